package contextblock_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// commitAt commits everything in dir with the committer date at.
func commitAt(t *testing.T, dir string, at time.Time, msg string) {
	t.Helper()
	testgit.Run(t, dir, "add", "-A")
	env := append(testgit.Env(), "GIT_COMMITTER_DATE="+at.Format(time.RFC3339), "GIT_AUTHOR_DATE="+at.Format(time.RFC3339))
	if out, err := (git.Cmd{Dir: dir, Env: env}).Combined(context.Background(), "commit", "-q", "-m", msg); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
}

// TestBlockFlagsMemoriesWhoseCodeChangedSince: an item whose paths: cover
// a file committed after the memory last changed is "may be stale" in the
// block (JSON and Markdown); a memory committed with its code, one whose
// code has not changed since, one without paths and one updated after its
// code changed are not.
func TestBlockFlagsMemoriesWhoseCodeChangedSince(t *testing.T) {
	ctx := context.Background()
	// openAt's clock saves at 2026-01-01 00:0x; commits are dated around it.
	saved := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := saved.Add(24 * time.Hour)
	tests := []struct {
		name  string
		paths []string
		after func(t *testing.T, dir string, s *contextfs.Store, id string) // what happens after the memory is committed
		stale bool
	}{
		{"its code committed since", []string{"auth/**"}, func(t *testing.T, dir string, _ *contextfs.Store, _ string) {
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
			commitAt(t, dir, later, "auth: TTL 2")
		}, true},
		{"committed with its code, nothing since", []string{"auth/**"}, nil, false},
		{"its code committed since, in the same second", []string{"auth/**"}, func(t *testing.T, dir string, _ *contextfs.Store, _ string) {
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
			commitAt(t, dir, saved.Add(time.Hour), "auth: TTL 2")
		}, true},
		{"its code committed in the second it was saved and committed", []string{"auth/**"}, func(t *testing.T, dir string, s *contextfs.Store, id string) {
			m, err := s.Resolve(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			// Recommit the memory in the second of its updated:, then its code.
			testgit.WriteFile(t, dir, "auth/README", "tokens\n")
			testgit.WriteFile(t, dir, m.Path, strings.Replace(readRepoFile(t, dir, m.Path), "one hour", "one hour or so", 1))
			commitAt(t, dir, m.Updated, "memory again")
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
			commitAt(t, dir, m.Updated, "auth: TTL 2")
		}, true},
		{"updated and committed after its code, in the same second", []string{"auth/**"}, func(t *testing.T, dir string, s *contextfs.Store, id string) {
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
			commitAt(t, dir, later, "auth: TTL 2")
			if _, err := s.Update(ctx, id, func(m *memory.Memory) error { m.Body = "Tokens live two hours.\n"; return nil }); err != nil {
				t.Fatal(err)
			}
			commitAt(t, dir, later, "memory: TTL 2")
		}, false},
		{"other code committed since", []string{"auth/**"}, func(t *testing.T, dir string, _ *contextfs.Store, _ string) {
			testgit.WriteFile(t, dir, "billing/invoice.go", "package billing\n")
			commitAt(t, dir, later, "billing")
		}, false},
		{"no paths", nil, func(t *testing.T, dir string, _ *contextfs.Store, _ string) {
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
			commitAt(t, dir, later, "auth: TTL 2")
		}, false},
		{"updated and committed after its code changed", []string{"auth/**"}, func(t *testing.T, dir string, s *contextfs.Store, id string) {
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
			commitAt(t, dir, later, "auth: TTL 2")
			if _, err := s.Update(ctx, id, func(m *memory.Memory) error { m.Body = "Tokens live two hours.\n"; return nil }); err != nil {
				t.Fatal(err)
			}
			commitAt(t, dir, later.Add(time.Hour), "memory: TTL 2")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			s := openAt(t, dir)
			testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 1\n")
			id := save(t, s, contextfs.SaveRequest{Type: "architecture", Title: "Tokens", Body: "Tokens live one hour.", Paths: tt.paths})
			commitAt(t, dir, saved.Add(time.Hour), "auth and its memory")
			if tt.after != nil {
				tt.after(t, dir, s, id)
			}
			b, err := contextblock.Build(ctx, s, contextblock.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got *contextblock.Item
			for _, sec := range b.Sections {
				for i := range sec.Items {
					if sec.Items[i].ID == id {
						got = &sec.Items[i]
					}
				}
			}
			if got == nil {
				t.Fatalf("the memory is not in the block:\n%s", b.Markdown())
			}
			if got.MayBeStale != tt.stale || strings.Contains(b.Markdown(), "may be stale") != tt.stale {
				t.Errorf("may be stale %v, want %v:\n%s", got.MayBeStale, tt.stale, b.Markdown())
			}
		})
	}
}

// TestBlockFlagsStaleInASHA256Repository: where go-git cannot read HEAD
// (SHA-256 object names), git is asked, and a memory whose code changed
// is still flagged.
func TestBlockFlagsStaleInASHA256Repository(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if out, err := (git.Cmd{Dir: dir}).Combined(ctx, "init", "-q", "-b", "main", "--object-format=sha256"); err != nil {
		t.Skipf("git cannot make SHA-256 repositories: %v: %s", err, out)
	}
	testgit.Run(t, dir, "config", "user.name", "Ada Lovelace")
	testgit.Run(t, dir, "config", "user.email", "ada@example.com")
	s := openAt(t, dir)
	saved := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 1\n")
	id := save(t, s, contextfs.SaveRequest{Type: "architecture", Title: "Tokens", Body: "Tokens live one hour.", Paths: []string{"auth/**"}})
	commitAt(t, dir, saved.Add(time.Hour), "auth and its memory")
	testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
	commitAt(t, dir, saved.Add(24*time.Hour), "auth: TTL 2")
	b, err := contextblock.Build(ctx, s, contextblock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range b.Sections {
		for _, it := range sec.Items {
			if it.ID == id && it.MayBeStale {
				return
			}
		}
	}
	t.Errorf("the memory is not flagged may be stale:\n%s", b.Markdown())
}

// TestBuilderFlagsStaleAfterACommit: the MCP server's Builder, which
// keeps what it learnt of each memory for a block state, says "may be
// stale" once a commit changes the memory's code, though no memory file
// changed: HEAD is part of the state.
func TestBuilderFlagsStaleAfterACommit(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	s := openAt(t, dir)
	testgit.WriteFile(t, dir, "auth/token.go", "package auth\n")
	id := save(t, s, contextfs.SaveRequest{Type: "architecture", Title: "Tokens", Body: "Tokens live one hour.", Paths: []string{"auth/**"}})
	saved := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	commitAt(t, dir, saved, "auth and its memory")
	var bd contextblock.Builder
	stale := func(task string) bool {
		b, err := bd.Build(ctx, s, contextblock.Options{Task: task})
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range b.Sections {
			for _, it := range sec.Items {
				if it.ID == id {
					return it.MayBeStale
				}
			}
		}
		t.Fatalf("the memory is not in the block")
		return false
	}
	if stale("") || stale("token lifetime") {
		t.Fatal("may be stale before its code changed")
	}
	testgit.WriteFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
	commitAt(t, dir, saved.Add(time.Hour), "auth: TTL")
	if !stale("") || !stale("token lifetime") {
		t.Error("not may be stale after a commit changed its code")
	}
}

// readRepoFile returns the file at rel in dir.
func readRepoFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
