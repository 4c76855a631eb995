//go:build unix

package commitflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/testgit"
)

// killAtEnv makes the test binary, run as a child, commit the memories of
// its working directory and SIGKILL itself after the named step.
const killAtEnv = "COMMITFLOW_TEST_KILL_AT"

func TestMain(m *testing.M) {
	if at := os.Getenv(killAtEnv); at != "" {
		os.Exit(commitAndDie(at))
	}
	os.Exit(m.Run())
}

// commitAndDie is the child: a real process, killed with SIGKILL after
// step at, as a user's Ctrl-\ or the OOM killer would kill it, so nothing
// deferred runs.
func commitAndDie(at string) int {
	repo, err := gitstore.Discover(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, err = Commit(context.Background(), repo, config.SecretsConfig{}, Options{afterStep: func(step string) {
		if step == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestAKillAfterAnyStepOfCommitNeverLetsAGitCommitLoseAMemory kills a real
// commit process with SIGKILL after each of its steps, then checks that
// git's lock files are gone, that the index is never behind HEAD for a
// memory (each entry is HEAD's version or the work tree's), and that
// whatever the user does next keeps every memory: a plain `git commit`,
// `git commit -a`, or the next memory commit, which also removes what
// the killed one left and leaves the user's staged file staged.
func TestAKillAfterAnyStepOfCommitNeverLetsAGitCommitLoseAMemory(t *testing.T) {
	testgit.Isolate(t)
	for _, at := range steps {
		for _, next := range []string{"git commit", "git commit -a", "memory commit"} {
			t.Run("killed after "+at+", then "+next, func(t *testing.T) {
				dir := killRepo(t)
				runKilled(t, dir, at)

				for _, lock := range []string{"index.lock", "HEAD.lock", "refs/heads/main.lock"} {
					if _, err := os.Stat(filepath.Join(dir, ".git", lock)); err == nil {
						t.Errorf("the kill left .git/%s", lock)
					}
				}
				head, index, work := treeOf(t, dir, "HEAD"), indexOf(t, dir), workOf(t, dir)
				for p, oid := range index {
					if oid != head[p] && oid != work[p] {
						t.Errorf("index has %s at %s: neither HEAD's version (%s) nor the work tree's (%s)", p, oid, head[p], work[p])
					}
				}
				for p := range head {
					if _, ok := index[p]; !ok && work[p] != "" {
						t.Errorf("index lacks %s, which HEAD and the work tree hold: a commit would delete it", p)
					}
				}

				switch next {
				case "git commit":
					testgit.Run(t, dir, "commit", "-q", "-m", "user")
				case "git commit -a":
					testgit.Run(t, dir, "commit", "-q", "-a", "-m", "user")
				case "memory commit":
					repo, err := gitstore.Discover(dir)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := Commit(context.Background(), repo, config.SecretsConfig{}, Options{}); err != nil {
						t.Fatal(err)
					}
				}
				after := treeOf(t, dir, "HEAD")
				for p, oid := range work {
					if !gitstore.IsMemoryPath(p) {
						continue
					}
					if after[p] != oid && after[p] != head[p] {
						t.Errorf("%s after %s is %q: neither the killed commit's HEAD (%s) nor the work tree (%s)", p, next, after[p], head[p], oid)
					}
					if after[p] == "" && head[p] != "" {
						t.Errorf("%s deleted by %s", p, next)
					}
				}
				if next != "memory commit" {
					return
				}
				for p, oid := range work {
					if gitstore.IsMemoryPath(p) && after[p] != oid {
						t.Errorf("after the next memory commit %s is %q in HEAD, want the work tree's %s", p, after[p], oid)
					}
				}
				if _, ok := after[".contextfs/gone.md"]; ok {
					t.Errorf("the next memory commit did not commit the deletion of gone.md")
				}
				if got := testgit.Run(t, dir, "status", "--porcelain"); got != "M README.md\nA  main.go" {
					t.Errorf("status after the next memory commit:\n%s\nwant the user's staged main.go and changed README.md only", got)
				}
				left, _ := filepath.Glob(filepath.Join(dir, ".git", "contextfs", indexFile+"*"))
				if len(left) > 0 {
					t.Errorf("the next memory commit left %v", left)
				}
			})
		}
	}
}

// killRepo is a repository whose work tree changes, adds and deletes a
// memory, with a file the user staged and one changed and not staged.
func killRepo(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	writeFile(t, dir, ".contextfs/kept.md", memoryFile("kept000001", "Kept.\n"))
	writeFile(t, dir, ".contextfs/old.md", memoryFile("old0000001", "Old.\n"))
	writeFile(t, dir, ".contextfs/gone.md", memoryFile("gone000001", "Gone.\n"))
	writeFile(t, dir, "README.md", "Readme.\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	writeFile(t, dir, ".contextfs/old.md", memoryFile("old0000001", "Changed.\n"))
	writeFile(t, dir, ".contextfs/new.md", memoryFile("new0000001", "New.\n"))
	if err := os.Remove(filepath.Join(dir, ".contextfs/gone.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "main.go", "package main\n")
	testgit.Run(t, dir, "add", "main.go")
	writeFile(t, dir, "README.md", "Readme, changed.\n")
	return dir
}

// runKilled runs the commit in a child process that kills itself after
// step at, and fails unless SIGKILL ended it.
func runKilled(t *testing.T, dir, at string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), killAtEnv+"="+at)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the commit was not killed after %s: %v\n%s", at, err, out)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the commit ended with %v, not SIGKILL, after %s:\n%s", err, at, out)
	}
}

// treeOf is path → blob of a commit's tree.
func treeOf(t *testing.T, dir, rev string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(testgit.Run(t, dir, "ls-tree", "-r", rev), "\n") {
		if meta, p, ok := strings.Cut(line, "\t"); ok {
			out[p] = strings.Fields(meta)[2]
		}
	}
	return out
}

// indexOf is path → blob of the real index.
func indexOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(testgit.Run(t, dir, "ls-files", "--stage"), "\n") {
		if meta, p, ok := strings.Cut(line, "\t"); ok {
			out[p] = strings.Fields(meta)[1]
		}
	}
	return out
}

// workOf is path → blob of the files in the work tree, tracked or not
// (git's own folder left out).
func workOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range strings.Split(testgit.Run(t, dir, "ls-files", "--cached", "--others", "--exclude-standard"), "\n") {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			out[p] = testgit.Run(t, dir, "hash-object", "--", p)
		}
	}
	return out
}
