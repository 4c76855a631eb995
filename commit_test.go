package contextfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

func save(t *testing.T, s *contextfs.Store, typ, title string) *memory.Memory {
	t.Helper()
	res, err := s.Save(context.Background(), contextfs.SaveRequest{Type: typ, Title: title, Body: title + ".\n"})
	if err != nil {
		t.Fatalf("save %q: %v", title, err)
	}
	return res.Memory
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// repoWithHistory is a repository whose first commit holds code and two
// memories.
func repoWithHistory(t *testing.T) (dir string, s *contextfs.Store, kept, doomed *memory.Memory) {
	t.Helper()
	dir = testgit.Init(t)
	write(t, dir, "main.go", "package main\n")
	s = open(t, dir)
	kept = save(t, s, "fact", "Staging runs on Kubernetes")
	doomed = save(t, s, "error", "Flaky port in tests")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "start")
	return dir, s, kept, doomed
}

func TestCommitMemoriesCommitsOnlyMemoryFilesAndKeepsOtherStagedWork(t *testing.T) {
	ctx := context.Background()
	dir, s, kept, doomed := repoWithHistory(t)
	before := testgit.Run(t, dir, "rev-parse", "HEAD")

	// The user's own work in progress: one staged file, one unstaged edit.
	write(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	testgit.Run(t, dir, "add", "main.go")
	write(t, dir, "notes.txt", "scratch\n")

	added := save(t, s, "decision", "Use pgx pools")
	if _, err := s.Update(ctx, kept.ID, func(m *memory.Memory) error { m.Tags = []string{"infra"}; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, doomed.ID); err != nil {
		t.Fatal(err)
	}

	res, err := s.CommitMemories(ctx, contextfs.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != res.SHA || res.Parent != before {
		t.Fatalf("HEAD = %s, result %s with parent %s; want a new commit on %s", got, res.SHA, res.Parent, before)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD~1"); got != before {
		t.Errorf("HEAD~1 = %s, want the old HEAD %s", got, before)
	}
	gotFiles := lines(testgit.Run(t, dir, "show", "--name-only", "--no-renames", "--format=", "HEAD"))
	wantFiles := []string{added.Path, kept.Path, doomed.Path}
	slices.Sort(gotFiles)
	slices.Sort(wantFiles)
	if !slices.Equal(gotFiles, wantFiles) {
		t.Errorf("commit holds %q, want only the memories %q", gotFiles, wantFiles)
	}
	if got := testgit.Run(t, dir, "diff", "--cached", "--name-only"); got != "main.go" {
		t.Errorf("staged after commit: %q, want the user's main.go still staged", got)
	}
	if got := testgit.Run(t, dir, "status", "--porcelain", "--", ".contextfs"); got != "" {
		t.Errorf("memory files not clean after commit:\n%s", got)
	}
	subject := testgit.Run(t, dir, "log", "-1", "--format=%s")
	if want := "contextfs: add 1 decision, update 1 fact, delete 1 error"; subject != want {
		t.Errorf("subject = %q, want %q", subject, want)
	}
	body := testgit.Run(t, dir, "log", "-1", "--format=%b")
	for _, w := range []string{"- added decision " + added.ID + ": Use pgx pools", "- modified fact " + kept.ID, "- deleted error " + doomed.ID} {
		if !strings.Contains(body, w) {
			t.Errorf("message body lacks %q:\n%s", w, body)
		}
	}
}

func TestCommitMemoriesWithNothingToCommitMakesNoCommit(t *testing.T) {
	dir, s, _, _ := repoWithHistory(t)
	before := testgit.Run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "main.go", "package main // edited\n")
	res, err := s.CommitMemories(context.Background(), contextfs.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.SHA != "" || len(res.Files) != 0 {
		t.Errorf("result = %+v, want nothing committed", res)
	}
	if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD moved to %s", got)
	}
}

func TestCommitMemoriesRefusesInvalidMemoriesUnlessNoVerify(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	const times = "created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n"
	tests := []struct {
		name, content string
		problems      int
		secrets       int
	}{
		{"unknown type", "---\nid: bad0000001\ntype: nonsense\ntitle: Bad\n" + times + "---\nx\n", 1, 0},
		{"broken YAML", "---\nid: [unclosed\n---\nx\n", 1, 0},
		{"AWS key", "---\nid: key0000001\ntype: fact\ntitle: Key\n" + times + "---\nThe key is " + key + ".\n", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir, s, _, _ := repoWithHistory(t)
			before := testgit.Run(t, dir, "rev-parse", "HEAD")
			write(t, dir, ".contextfs/memories/bad.md", tt.content)

			_, err := s.CommitMemories(ctx, contextfs.CommitOptions{})
			var ve *contextfs.VerifyError
			if !errors.As(err, &ve) || len(ve.Problems) != tt.problems || len(ve.Secrets) != tt.secrets {
				t.Fatalf("err = %v (%+v), want %d problem(s) and %d secret(s)", err, ve, tt.problems, tt.secrets)
			}
			if got := testgit.Run(t, dir, "rev-parse", "HEAD"); got != before {
				t.Fatalf("HEAD moved to %s although the commit was refused", got)
			}
			res, err := s.CommitMemories(ctx, contextfs.CommitOptions{NoVerify: true})
			if err != nil || res.SHA == "" {
				t.Fatalf("with NoVerify: %+v, %v; want a commit", res, err)
			}
		})
	}
}

func TestCommitMemoriesOnAnUnbornBranchMakesTheFirstCommit(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	m := save(t, s, "decision", "Files are the source of truth")
	write(t, dir, "main.go", "package main\n")
	testgit.Run(t, dir, "add", "main.go")
	res, err := s.CommitMemories(context.Background(), contextfs.CommitOptions{Message: "Record the first decision"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Parent != "" || res.SHA != testgit.Run(t, dir, "rev-parse", "main") {
		t.Fatalf("result %+v; want the first commit of main", res)
	}
	if got := testgit.Run(t, dir, "show", "--name-only", "--format=%s", "HEAD"); got != "Record the first decision\n\n"+m.Path {
		t.Errorf("git show = %q", got)
	}
	if got := testgit.Run(t, dir, "diff", "--cached", "--name-only"); got != "main.go" {
		t.Errorf("staged after commit: %q, want main.go", got)
	}
}

func TestCommitMemoriesReportsARenameAsOneFile(t *testing.T) {
	dir, s, kept, _ := repoWithHistory(t)
	to := ".contextfs/infra/" + filepath.Base(kept.Path)
	if err := os.MkdirAll(filepath.Join(dir, ".contextfs/infra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, kept.Path), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
	res, err := s.CommitMemories(context.Background(), contextfs.CommitOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []contextfs.CommitFile{{Path: to, Status: contextfs.CommitRenamed, OldPath: kept.Path, ID: kept.ID, Type: "fact", Title: kept.Title}}
	if !slices.Equal(res.Files, want) {
		t.Errorf("files = %+v, want %+v", res.Files, want)
	}
	if res.SHA != "" || testgit.Run(t, dir, "rev-list", "--count", "HEAD") != "1" {
		t.Errorf("a dry run committed: %+v", res)
	}
	if !strings.HasPrefix(res.Message, "contextfs: update 1 fact\n\n- renamed fact "+kept.ID) {
		t.Errorf("message = %q", res.Message)
	}
}

func TestCommitMemoriesCommitsTheWorkTreeVersionOfAStagedMemory(t *testing.T) {
	ctx := context.Background()
	dir, s, kept, _ := repoWithHistory(t)
	full := filepath.Join(dir, kept.Path)
	orig, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, kept.Path, string(orig)+"Staged line.\n")
	testgit.Run(t, dir, "add", kept.Path)
	write(t, dir, kept.Path, string(orig)+"Staged line.\nWork-tree line.\n")
	if _, err := s.CommitMemories(ctx, contextfs.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := testgit.Run(t, dir, "show", "HEAD:"+kept.Path); !strings.HasSuffix(got, "Work-tree line.") {
		t.Errorf("committed version:\n%s", got)
	}
	if got := testgit.Run(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status after commit:\n%s", got)
	}
}

// With LeaveRefused, the memories that pass are committed and a refused
// one is left in the work tree, and so is a memory that links to it: with
// the first left out, the link names no committed memory.
func TestCommitMemoriesLeavesRefusedFilesAndWhatLinksToThem(t *testing.T) {
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	const times = "created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n"
	ctx := context.Background()
	dir, s, _, _ := repoWithHistory(t)
	write(t, dir, ".contextfs/memories/key.md", "---\nid: key0000001\ntype: fact\ntitle: Key\n"+times+"---\nThe key is "+key+".\n")
	write(t, dir, ".contextfs/memories/uses.md", "---\nid: use0000001\ntype: fact\ntitle: Uses the key\nlinks: [key0000001]\n"+times+"---\nDeploys use it.\n")
	write(t, dir, ".contextfs/memories/fine.md", "---\nid: fin0000001\ntype: fact\ntitle: Fine\n"+times+"---\nNothing to hide.\n")

	res, err := s.CommitMemories(ctx, contextfs.CommitOptions{LeaveRefused: true})
	if err != nil || res.SHA == "" {
		t.Fatalf("CommitMemories = %+v, %v; want a commit of the rest", res, err)
	}
	left := map[string]string{}
	for _, p := range res.LeftOut {
		left[p.Path] = p.Rule
	}
	if left[".contextfs/memories/key.md"] != "secret" || left[".contextfs/memories/uses.md"] != "link" || len(left) != 2 {
		t.Fatalf("left out %+v; want key.md (secret) and uses.md (link)", res.LeftOut)
	}
	committed := testgit.Run(t, dir, "show", "--name-only", "--format=", "HEAD")
	if committed != ".contextfs/memories/fine.md" {
		t.Fatalf("committed %q; want only fine.md", committed)
	}
	status := testgit.Run(t, dir, "status", "--porcelain", "--", ".contextfs")
	if !strings.Contains(status, "key.md") || !strings.Contains(status, "uses.md") {
		t.Fatalf("status %q; want the two files left in the work tree", status)
	}
}
