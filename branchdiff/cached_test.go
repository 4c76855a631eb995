package branchdiff

import (
	"context"
	"slices"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestResolverAnswersAsFiles walks a repository through the changes that
// move a branch's base or merge-base (first commit, a new branch, commits
// on either side, a checkout, a detached HEAD, a rewritten main) and work
// tree changes, and after each one compares a long-lived Resolver with
// Files.
func TestResolverAnswersAsFiles(t *testing.T) {
	dir := testgit.Init(t)
	ctx := context.Background()
	r := NewResolver(dir, dir+"/.git", dir+"/.git")
	steps := []struct {
		name string
		do   func()
	}{
		{"no commits yet", func() { write(t, dir, "a.go", "package a\n") }},
		{"first commit on main", func() { testgit.Run(t, dir, "add", "."); testgit.Run(t, dir, "commit", "-qm", "one") }},
		{"a feature branch", func() { testgit.Run(t, dir, "checkout", "-qb", "feature") }},
		{"a commit on the branch", func() {
			write(t, dir, "b.go", "package b\n")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "two")
		}},
		{"a work tree edit", func() { write(t, dir, "a.go", "package a // edited\n") }},
		{"an untracked file", func() { write(t, dir, "new.txt", "new\n") }},
		{"main moves on", func() {
			testgit.Run(t, dir, "stash", "-q", "-u")
			testgit.Run(t, dir, "checkout", "-q", "main")
			write(t, dir, "c.go", "package c\n")
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "three")
			testgit.Run(t, dir, "checkout", "-q", "feature")
			testgit.Run(t, dir, "stash", "pop", "-q")
		}},
		{"the branch merges main", func() { testgit.Run(t, dir, "merge", "-q", "--no-edit", "main") }},
		{"main is rewritten", func() { testgit.Run(t, dir, "branch", "-f", "main", "feature~1") }},
		{"refs are packed", func() { testgit.Run(t, dir, "pack-refs", "--all") }},
		{"a detached HEAD", func() { testgit.Run(t, dir, "checkout", "-q", "--detach", "HEAD~1") }},
		{"back on main", func() { testgit.Run(t, dir, "checkout", "-q", "main") }},
	}
	for _, st := range steps {
		st.do()
		want, err := Files(ctx, dir)
		if err != nil {
			t.Fatalf("%s: Files: %v", st.name, err)
		}
		for range 2 { // a first answer, then one from what it kept
			got, err := r.Files(ctx)
			if err != nil {
				t.Fatalf("%s: Resolver: %v", st.name, err)
			}
			if got.Base != want.Base || got.MergeBase != want.MergeBase || !slices.Equal(got.Files, want.Files) {
				t.Fatalf("%s: Resolver says %+v, Files says %+v", st.name, got, want)
			}
		}
	}
}
