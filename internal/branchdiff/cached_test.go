package branchdiff

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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
	// Everything here was written just now: a clock past the racy window
	// lets the Resolver keep what it found, which is what is tested.
	r.now = func() time.Time { return time.Now().Add(time.Minute) }
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

// keptOrAsked calls r.FilesUnder once with git out of reach (PATH empty),
// which succeeds only from a kept answer, and once with git, whose answer
// must equal FilesUnder's. It reports whether the first call succeeded.
func keptOrAsked(t *testing.T, r *Resolver, dir string, within []string) (kept bool, files []string) {
	t.Helper()
	ctx := context.Background()
	path := os.Getenv("PATH")
	t.Setenv("PATH", "")
	_, err := r.FilesUnder(ctx, within)
	t.Setenv("PATH", path)
	got, gerr := r.FilesUnder(ctx, within)
	want, werr := FilesUnder(ctx, dir, within)
	if gerr != nil || werr != nil {
		t.Fatalf("Resolver: %v; FilesUnder: %v", gerr, werr)
	}
	if got.MergeBase != want.MergeBase || !slices.Equal(got.Files, want.Files) {
		t.Fatalf("Resolver says %+v, FilesUnder says %+v", got, want)
	}
	return err == nil, got.Files
}

// TestResolverKeepsChangedFilesUntilACommitAStagedChangeOrAnEdit checks
// the kept answer of FilesUnder: it is used while nothing it came from
// changed, and a commit, a staged change, a work tree edit or a new file
// below the paths each make the Resolver ask git again; an edit elsewhere
// does not.
func TestResolverKeepsChangedFilesUntilACommitAStagedChangeOrAnEdit(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "auth/token.go", "package auth\n")
	write(t, dir, "docs/a.md", "# A\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "one")
	testgit.Run(t, dir, "checkout", "-qb", "feature")
	r := NewResolver(dir, filepath.Join(dir, ".git"), filepath.Join(dir, ".git"))
	// Every file here was written just now; a clock ahead of the racy
	// window lets the Resolver keep answers (its own test is below).
	r.now = func() time.Time { return time.Now().Add(time.Minute) }
	within := []string{"auth"}

	if kept, _ := keptOrAsked(t, r, dir, within); kept {
		t.Fatal("the first answer came from nowhere")
	}
	steps := []struct {
		name     string
		do       func()
		wantKept bool
		want     []string
	}{
		{"nothing changed", func() {}, true, nil},
		{"an edit outside the paths", func() { write(t, dir, "docs/a.md", "# A, edited\n") }, true, nil},
		{"a commit", func() {
			write(t, dir, "auth/refresh.go", "package auth // refresh\n")
			testgit.Run(t, dir, "add", "auth/refresh.go")
			testgit.Run(t, dir, "commit", "-qm", "two")
		}, false, []string{"auth/refresh.go"}},
		{"then nothing", func() {}, true, []string{"auth/refresh.go"}},
		{"a work tree edit", func() { write(t, dir, "auth/token.go", "package auth // edited\n") }, false, []string{"auth/refresh.go", "auth/token.go"}},
		{"a staged change", func() { testgit.Run(t, dir, "add", "auth/token.go") }, false, []string{"auth/refresh.go", "auth/token.go"}},
		{"the edit undone in the work tree", func() { write(t, dir, "auth/token.go", "package auth\n") }, false, []string{"auth/refresh.go"}},
		{"a new untracked file", func() { write(t, dir, "auth/jwt/sign.go", "package jwt\n") }, false, []string{"auth/jwt/sign.go", "auth/refresh.go"}},
		{"a deleted file", func() { os.Remove(filepath.Join(dir, "auth", "jwt", "sign.go")) }, false, []string{"auth/refresh.go"}},
		{"an ignore rule", func() { write(t, dir, ".gitignore", "auth/refresh.go\n") }, false, []string{"auth/refresh.go"}},
	}
	for _, st := range steps {
		st.do()
		kept, files := keptOrAsked(t, r, dir, within)
		if kept != st.wantKept {
			t.Errorf("%s: kept answer used = %v, want %v", st.name, kept, st.wantKept)
		}
		if !slices.Equal(files, st.want) {
			t.Errorf("%s: files %q, want %q", st.name, files, st.want)
		}
	}
}

// TestResolverKeepsNothingModifiedWithinTheRacyWindow: a file written in
// the last moments may change again without its stat showing it, so
// nothing is kept until it is older.
func TestResolverKeepsNothingModifiedWithinTheRacyWindow(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "auth/token.go", "package auth\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "one")
	write(t, dir, "auth/token.go", "package auth // a\n")
	r := NewResolver(dir, filepath.Join(dir, ".git"), filepath.Join(dir, ".git"))
	for i := range 2 {
		if kept, _ := keptOrAsked(t, r, dir, []string{"auth"}); kept {
			t.Fatalf("call %d: an answer was kept for files written just now", i)
		}
		// The same size, in the same tick: only git can tell.
		write(t, dir, "auth/token.go", "package auth // b\n")
	}
}

// The whole work tree is git's to look at: nothing is kept without paths.
func TestResolverKeepsNothingForTheWholeTree(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "a.go", "package a\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "one")
	r := NewResolver(dir, filepath.Join(dir, ".git"), filepath.Join(dir, ".git"))
	r.now = func() time.Time { return time.Now().Add(time.Minute) }
	for range 2 {
		if kept, _ := keptOrAsked(t, r, dir, nil); kept {
			t.Fatal("an answer for the whole tree was kept")
		}
	}
}

// TestResolverStateCarriesToTheNextProcess: what one Resolver saved, the
// next one (a later CLI command) uses without asking git while nothing
// changed, and not after a commit.
func TestResolverStateCarriesToTheNextProcess(t *testing.T) {
	dir := testgit.Init(t)
	write(t, dir, "auth/token.go", "package auth\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "one")
	testgit.Run(t, dir, "checkout", "-qb", "feature")
	write(t, dir, "auth/token.go", "package auth // edited\n")
	path := filepath.Join(t.TempDir(), "branchdiff.json")
	next := func() *Resolver {
		r := NewResolver(dir, filepath.Join(dir, ".git"), filepath.Join(dir, ".git"))
		r.now = func() time.Time { return time.Now().Add(time.Minute) }
		r.Load(path)
		return r
	}
	within := []string{"auth"}
	r := next()
	if kept, _ := keptOrAsked(t, r, dir, within); kept {
		t.Fatal("an answer before any was saved")
	}
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	if kept, files := keptOrAsked(t, next(), dir, within); !kept || !slices.Equal(files, []string{"auth/token.go"}) {
		t.Errorf("the next process asked git again (kept %v) or got %q", kept, files)
	}
	testgit.Run(t, dir, "commit", "-qam", "two")
	if kept, _ := keptOrAsked(t, next(), dir, within); kept {
		t.Error("after a commit, the saved answer was used")
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if kept, _ := keptOrAsked(t, next(), dir, within); kept {
		t.Error("a damaged state file gave an answer")
	}
}
