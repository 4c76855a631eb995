package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestHooksInstallSaysWhatItChangesInATrackedHooksFolder points
// core.hooksPath at .githooks, a folder the repository tracks, with a
// tracked pre-commit script and a tracked, non-executable post-merge the
// team turned off. install must say, file by file, what it changed there
// (the block added to the tracked script, the hooks it created), leave the
// turned-off hook as it was and say so (exit 1, as for every hook it
// leaves alone), and a second install says nothing more.
func TestHooksInstallSaysWhatItChangesInATrackedHooksFolder(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	writeFile(t, dir, ".githooks/pre-commit", "#!/bin/sh\necho team check\n")
	writeFile(t, dir, ".githooks/post-merge", "#!/bin/sh\necho turned off\n")
	if err := os.Chmod(filepath.Join(dir, ".githooks/pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "team hooks")
	testgit.Run(t, dir, "config", "core.hooksPath", ".githooks")
	postMerge := readFile(t, dir, ".githooks/post-merge")

	r := cli(t, dir, "", "hooks", "install")
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (a hook left alone)\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"note: added contextfs' block to .githooks/pre-commit, a file tracked in the repository",
		"note: created .githooks/post-checkout, an untracked file in the work tree",
		"note: created .githooks/post-commit, an untracked file in the work tree",
		".githooks/post-merge is not executable, so git skips it",
		"chmod +x",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "note: created .githooks/post-merge") || strings.Contains(r.stderr, "block to .githooks/post-merge") {
		t.Errorf("install claims to have changed the turned-off hook:\n%s", r.stderr)
	}
	if got := readFile(t, dir, ".githooks/post-merge"); got != postMerge {
		t.Errorf("the turned-off hook changed:\n%s", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, ".githooks/post-merge")); err != nil || fi.Mode().Perm()&0o111 != 0 {
		t.Errorf("the turned-off hook was made executable: %v %v", fi.Mode(), err)
	}
	if !strings.Contains(readFile(t, dir, ".githooks/pre-commit"), "git-contextfs hook pre-commit") {
		t.Errorf("no block in the tracked pre-commit")
	}
	again := cli(t, dir, "", "hooks", "install")
	if strings.Contains(again.stderr, "note: ") {
		t.Errorf("a second install reports changes:\n%s", again.stderr)
	}
}

// TestHooksInstallInGitsOwnHooksFolderNotesNothing installs into the
// default .git/hooks (no core.hooksPath), from a plain repository and from
// a linked worktree: those files are git's own, never shown by git status,
// so install must not tell the user to commit them.
func TestHooksInstallInGitsOwnHooksFolderNotesNothing(t *testing.T) {
	t.Parallel()
	main := testgit.Init(t)
	writeFile(t, main, "a.txt", "a\n")
	testgit.Run(t, main, "add", "-A")
	testgit.Run(t, main, "commit", "-q", "--no-verify", "-m", "a")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, main, "worktree", "add", "-q", wt)
	for _, tt := range []struct{ name, dir string }{
		{"plain repository", main},
		{"linked worktree", wt},
	} {
		r := cli(t, tt.dir, "", "hooks", "install")
		if r.code != 0 {
			t.Errorf("%s: exit %d\nstderr: %s", tt.name, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "note: ") {
			t.Errorf("%s: install notes a file in .git/hooks:\n%s", tt.name, r.stderr)
		}
	}
}
