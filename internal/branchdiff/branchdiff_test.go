package branchdiff

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

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

func TestFilesOfABranch(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "README.md", "hi\n")
	write(t, dir, "auth/token.go", "package auth\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "base")
	testgit.Run(t, dir, "checkout", "-qb", "feature")
	write(t, dir, "auth/token.go", "package auth // changed\n")
	testgit.Run(t, dir, "commit", "-qam", "committed change")
	write(t, dir, "docs/new.md", "untracked\n")
	write(t, dir, "lib/staged.go", "package lib\n")
	testgit.Run(t, dir, "add", "lib/staged.go")
	write(t, dir, "README.md", "edited in the work tree\n")

	ch, err := Files(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "auth/token.go", "docs/new.md", "lib/staged.go"}
	if ch.Base != "main" || !slices.Equal(ch.Files, want) {
		t.Errorf("Files = %+v, want base main and %v", ch, want)
	}
}

func TestFilesOnTheDefaultBranchAreTheWorkTreeChanges(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "a.go", "package a\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "base")
	ch, err := Files(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 0 {
		t.Errorf("a clean default branch changes %v", ch.Files)
	}
	write(t, dir, "a.go", "package a // edit\n")
	if ch, err = Files(context.Background(), dir); err != nil || !slices.Equal(ch.Files, []string{"a.go"}) {
		t.Errorf("Files = %v, %v; want [a.go]", ch.Files, err)
	}
}

func TestFilesWithoutCommitsListsEveryFile(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "x/y.go", "package x\n")
	ch, err := Files(context.Background(), dir)
	if err != nil || !slices.Equal(ch.Files, []string{"x/y.go"}) {
		t.Errorf("Files = %v, %v", ch.Files, err)
	}
}

// TestDefaultBranchFollowsOneRule builds each layout of refs that a clone
// can have and checks the base DefaultBranch names: the rule review and
// the context block share.
func TestDefaultBranchFollowsOneRule(t *testing.T) {
	tests := []struct {
		name string
		// refs are the refs to create at the first commit, besides the
		// checked-out branch feature.
		refs []string
		head string // origin/HEAD's target, if any
		want string
	}{
		{"origin/HEAD comes first", []string{"refs/heads/main", "refs/remotes/origin/trunk"}, "refs/remotes/origin/trunk", "origin/trunk"},
		{"a local main before origin/main", []string{"refs/heads/main", "refs/remotes/origin/main"}, "", "main"},
		{"a local master", []string{"refs/heads/master"}, "", "master"},
		{"only origin/main, as in a CI checkout", []string{"refs/remotes/origin/main"}, "", "origin/main"},
		{"only origin/master", []string{"refs/remotes/origin/master"}, "", "origin/master"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			write(t, dir, "a.go", "package a\n")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "base")
			testgit.Run(t, dir, "branch", "-m", "feature")
			for _, r := range tt.refs {
				testgit.Run(t, dir, "update-ref", r, "HEAD")
			}
			if tt.head != "" {
				testgit.Run(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", tt.head)
			}
			got, err := DefaultBranch(context.Background(), dir)
			if err != nil || got != tt.want {
				t.Errorf("DefaultBranch = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	t.Run("none of them is ErrNoDefaultBranch", func(t *testing.T) {
		dir := testgit.Init(t)
		write(t, dir, "a.go", "package a\n")
		testgit.Run(t, dir, "add", ".")
		testgit.Run(t, dir, "commit", "-qm", "base")
		testgit.Run(t, dir, "branch", "-m", "feature")
		if got, err := DefaultBranch(context.Background(), dir); !errors.Is(err, ErrNoDefaultBranch) {
			t.Errorf("DefaultBranch = %q, %v; want ErrNoDefaultBranch", got, err)
		}
	})
}
