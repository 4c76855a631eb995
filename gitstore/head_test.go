package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// commitIn commits a new file named name in the work tree dir.
func commitIn(t *testing.T, dir, name string) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644)
	runGit(t, dir, "add", name)
	runGit(t, dir, "commit", "-qm", name)
}

// gitHead is HEAD's commit as git resolves it, "" on an unborn branch.
func gitHead(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "-q", "--verify", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "" // unborn: no commit to name
	}
	return string(out[:len(out)-1])
}

// canInit reports whether the installed git takes these init options.
func canInit(t *testing.T, args ...string) bool {
	cmd := exec.Command("git", append([]string{"init", "-q"}, args...)...)
	cmd.Dir = t.TempDir()
	return cmd.Run() == nil
}

// TestHeadReadsRefsAsGitDoes compares Head, which reads the ref files
// with go-git, with `git rev-parse HEAD` in real repositories of every
// shape the files ref backend takes, and checks that the repositories
// go-git cannot read (reftable, SHA-256, a ref that holds no object
// name) are left to git (ok false), which HeadCommit then asks.
func TestHeadReadsRefsAsGitDoes(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the repository and returns the folder to ask in.
		setup  func(t *testing.T) string
		wantOK bool
		skip   func(t *testing.T) string
	}{
		{name: "an unborn branch is no commit and ok", wantOK: true, setup: func(t *testing.T) string {
			return tempRepo(t)
		}},
		{name: "a loose branch ref", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			return dir
		}},
		{name: "a branch in packed-refs only", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			runGit(t, dir, "pack-refs", "--all")
			if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main")); err == nil {
				t.Fatal("pack-refs left the loose ref")
			}
			return dir
		}},
		{name: "a loose ref newer than its packed one wins", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			runGit(t, dir, "pack-refs", "--all")
			commitIn(t, dir, "b")
			return dir
		}},
		{name: "a chain of symbolic refs", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			runGit(t, dir, "branch", "target")
			runGit(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/target")
			runGit(t, dir, "symbolic-ref", "HEAD", "refs/heads/alias")
			commitIn(t, dir, "b") // moves target, through alias
			return dir
		}},
		{name: "a detached HEAD", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			commitIn(t, dir, "b")
			runGit(t, dir, "checkout", "-q", "--detach", "HEAD~1")
			return dir
		}},
		{name: "an orphan branch after commits is unborn", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			runGit(t, dir, "checkout", "-q", "--orphan", "fresh")
			return dir
		}},
		{name: "a linked worktree reads its own HEAD and the shared branches", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			wt := filepath.Join(t.TempDir(), "wt")
			runGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			commitIn(t, wt, "b")
			runGit(t, dir, "pack-refs", "--all")
			commitIn(t, dir, "c") // main moves; the worktree's HEAD must not
			return wt
		}},
		{name: "the main worktree after a commit in a linked one", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			wt := filepath.Join(t.TempDir(), "wt")
			runGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			commitIn(t, wt, "b")
			return dir
		}},
		{name: "a detached linked worktree", wantOK: true, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			commitIn(t, dir, "b")
			wt := filepath.Join(t.TempDir(), "wt")
			runGit(t, dir, "worktree", "add", "-q", "--detach", wt, "HEAD~1")
			return wt
		}},
		{name: "a HEAD that names no object is left to git", wantOK: false, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("not an object name\n"), 0o644)
			return dir
		}},
		{name: "a SHA-256 repository is left to git", wantOK: false,
			skip: func(t *testing.T) string {
				if !canInit(t, "--object-format=sha256") {
					return "git cannot make SHA-256 repositories"
				}
				return ""
			},
			setup: func(t *testing.T) string {
				dir := t.TempDir()
				runGit(t, dir, "init", "-q", "-b", "main", "--object-format=sha256")
				commitIn(t, dir, "a")
				return dir
			}},
		{name: "a reftable repository is left to git", wantOK: false,
			skip: func(t *testing.T) string {
				if !canInit(t, "--ref-format=reftable") {
					return "git has no reftable backend (git 2.45 or later)"
				}
				return ""
			},
			setup: func(t *testing.T) string {
				dir := t.TempDir()
				runGit(t, dir, "init", "-q", "-b", "main", "--ref-format=reftable")
				commitIn(t, dir, "a")
				return dir
			}},
		{name: "a reftable folder, as a reftable repository has, is left to git", wantOK: false, setup: func(t *testing.T) string {
			dir := tempRepo(t)
			commitIn(t, dir, "a")
			os.Mkdir(filepath.Join(dir, ".git", "reftable"), 0o755)
			return dir
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip != nil {
				if why := tt.skip(t); why != "" {
					t.Skip(why)
				}
			}
			dir := tt.setup(t)
			r, err := Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := r.Head()
			if ok != tt.wantOK {
				t.Fatalf("Head() = %q, %v; want ok %v", got, ok, tt.wantOK)
			}
			// HeadCommit answers in every repository, asking git where
			// Head leaves it.
			if hc, want := r.HeadCommit(context.Background()), gitHead(t, dir); hc != want {
				t.Errorf("HeadCommit() = %q; git rev-parse HEAD says %q", hc, want)
			}
			if !ok {
				if got != "" {
					t.Errorf("Head() = %q with ok false; want \"\"", got)
				}
				return
			}
			if want := gitHead(t, dir); got != want {
				t.Errorf("Head() = %q; git rev-parse HEAD says %q", got, want)
			}
		})
	}
}

// BenchmarkHead is one Head in a repository whose branch is in
// packed-refs beside 200 other refs: what auto-indexing pays per search.
func BenchmarkHead(b *testing.B) {
	dir := b.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
	run("add", "a")
	run("commit", "-qm", "a")
	for i := 0; i < 200; i++ {
		run("tag", "t"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	run("pack-refs", "--all")
	r, err := Discover(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.Head(); !ok {
			b.Fatal("Head not ok")
		}
	}
}
