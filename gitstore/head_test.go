package gitstore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHeadMatchesGit(t *testing.T) {
	dir := tempRepo(t)
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sha, ok := r.Head(); !ok || sha != "" {
		t.Fatalf("a repository without commits: Head() = %q, %v; want \"\", true", sha, ok)
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	runGit(t, dir, "add", "f")
	runGit(t, dir, "commit", "-qm", "one")
	check := func(name, in string) {
		t.Helper()
		r, err := Discover(in)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := r.Head()
		if want := runGit(t, in, "rev-parse", "HEAD"); !ok || got != want {
			t.Errorf("%s: Head() = %q, %v; git says %s", name, got, ok, want)
		}
	}
	check("loose branch ref", dir)
	runGit(t, dir, "pack-refs", "--all")
	check("packed ref", dir)
	runGit(t, dir, "checkout", "-q", "--detach")
	check("detached HEAD", dir)
	runGit(t, dir, "checkout", "-q", "main")
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	os.WriteFile(filepath.Join(wt, "g"), []byte("y"), 0o644)
	runGit(t, wt, "add", "g")
	runGit(t, wt, "commit", "-qm", "two")
	check("linked worktree", wt)
	check("main worktree after a commit elsewhere", dir)
}
