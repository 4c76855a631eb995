package branchdiff

import (
	"context"
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
