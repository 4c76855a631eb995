//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// watcherPID is the pid `watch status --json` reports in dir (0 if none).
func watcherPID(t *testing.T, bin, dir string) int {
	t.Helper()
	r := runBin(t, bin, dir, nil, "watch", "status", "--json")
	var st struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	}
	decodeJSON(t, r.stdout, &st)
	if !st.Running || st.PID <= 0 {
		t.Fatalf("no watcher running in %s: %s%s", dir, r.stdout, r.stderr)
	}
	return st.PID
}

// processRuns reports whether pid runs: neither gone nor a zombie that
// nobody reaped (a watcher's parent, the command that started it, is gone).
func processRuns(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// killAtEnd kills the watcher pid when the test ends, should a test that
// expects it to exit by itself fail: no test leaves a watcher behind.
func killAtEnd(t *testing.T, pid int) {
	t.Cleanup(func() {
		if processRuns(pid) {
			syscall.Kill(pid, syscall.SIGCONT)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// waitExit waits up to 10 s for the watcher pid to exit.
func waitExit(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); processRuns(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher (pid %d) still runs 10s after %s", pid, what)
		}
	}
}

// listTree names what is under dir, for a failure message.
func listTree(dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error {
		b.WriteString(p + "\n")
		return nil
	})
	return b.String()
}

// memRepo is a repository with a memory about the deploy bot, committed.
func memRepo(t *testing.T, bin string) string {
	t.Helper()
	dir := testgit.Init(t)
	for _, args := range [][]string{
		{"init"},
		{"save", "--type", "fact", "The deploy bot posts to the releases channel."},
	} {
		if r := runBin(t, bin, dir, nil, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "memories")
	return dir
}

// startWatcher starts a watcher in dir with a warm search (which opens its
// stores, so that a later change makes it write to the cache) and returns
// its pid. The test kills it at the end should it still run.
func startWatcher(t *testing.T, bin, dir string) int {
	t.Helper()
	if r := runBin(t, bin, dir, nil, "watch", "start"); r.code != 0 {
		t.Fatalf("watch start: exit %d: %s", r.code, r.stderr)
	}
	pid := watcherPID(t, bin, dir)
	killAtEnd(t, pid)
	if r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, "search", "deploy"); r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Fatalf("warm search: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return pid
}

// TestCLIWatcherExitsWhenItsRepositoryIsDeleted: `rm -rf repo` stops the
// watcher, which writes nothing there: its files there (socket, lock,
// cache) kept the kernel from saying the tree was gone, and its update
// after the memory files went created repo/.git/contextfs again, which
// then kept a clone from using the path.
func TestCLIWatcherExitsWhenItsRepositoryIsDeleted(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := memRepo(t, bin)
	pid := startWatcher(t, bin, dir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitExit(t, pid, "its repository was deleted")
	time.Sleep(300 * time.Millisecond) // what it would have written, it has
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the deleted repository is back:\n%s", listTree(dir))
	}
}

// TestCLIWatcherExitsWhenItsWorktreeIsRemoved: `git worktree remove`
// stops the worktree's watcher, which must not create the worktree's git
// dir (.git/worktrees/<name>) again.
func TestCLIWatcherExitsWhenItsWorktreeIsRemoved(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	main := memRepo(t, bin)
	wt := filepath.Join(t.TempDir(), "W")
	testgit.Run(t, main, "worktree", "add", "-q", wt)
	pid := startWatcher(t, bin, wt)
	testgit.Run(t, main, "worktree", "remove", wt)
	waitExit(t, pid, "its worktree was removed")
	time.Sleep(300 * time.Millisecond)
	gitDir := filepath.Join(main, ".git", "worktrees", "W")
	if _, err := os.Lstat(gitDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed worktree's git dir is back:\n%s", listTree(gitDir))
	}
	if _, err := os.Lstat(wt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed worktree is back:\n%s", listTree(wt))
	}
}

// TestCLIWatcherExitsWhenItsRepositoryIsMoved: as before the fixes above.
func TestCLIWatcherExitsWhenItsRepositoryIsMoved(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := memRepo(t, bin)
	pid := startWatcher(t, bin, dir)
	moved := dir + "-moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(moved) })
	waitExit(t, pid, "its repository was moved")
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old path is back:\n%s", listTree(dir))
	}
}

// hungWatcherDeadline is the longest a command waits for a watcher that
// does not answer: watch's probeAfter plus probeTimeout, after which the
// probe gives up on it. Tests bound commands at 10 times it.
const hungWatcherDeadline = 1250 * time.Millisecond

// TestCLIHungWatcherIsNamedAndStopped: a watcher that does not answer
// (stopped with SIGSTOP) cost every command 10 s, silently; watch status
// said "not running" and watch stop failed.
func TestCLIHungWatcherIsNamedAndStopped(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	pid := watcherPID(t, bin, dir)
	killAtEnd(t, pid)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := runBin(t, bin, dir, nil, "search", "deploy")
	took := time.Since(start)
	if r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Fatalf("search with a hung watcher: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The notice below says the probe gave up on the watcher, which only
	// it does; the bound, 10 times the probe's deadline, catches a wait
	// without end and leaves room for a loaded machine.
	if took > 10*hungWatcherDeadline {
		t.Errorf("search with a hung watcher took %v, want at most %v", took, 10*hungWatcherDeadline)
	}
	if !strings.Contains(r.stderr, "not answering") || !strings.Contains(r.stderr, strconv.Itoa(pid)) || !strings.Contains(r.stderr, "watch stop") {
		t.Errorf("search with a hung watcher: no notice naming it and the fix: %q", r.stderr)
	}
	if n := strings.Count(r.stderr, "\n"); n != 1 {
		t.Errorf("want one line of notice, got %d: %q", n, r.stderr)
	}

	r = runBin(t, bin, dir, nil, "watch", "status")
	if !strings.Contains(r.stdout, "not answering") || !strings.Contains(r.stdout, strconv.Itoa(pid)) {
		t.Errorf("watch status with a hung watcher: %q", r.stdout)
	}
	var st struct {
		Running      bool `json:"running"`
		PID          int  `json:"pid"`
		NotAnswering bool `json:"not_answering"`
	}
	decodeJSON(t, runBin(t, bin, dir, nil, "watch", "status", "--json").stdout, &st)
	if !st.Running || st.PID != pid || !st.NotAnswering {
		t.Errorf("watch status --json with a hung watcher: %+v", st)
	}
	if r := runBin(t, bin, dir, nil, "watch", "start"); r.code == 0 || !strings.Contains(r.stderr, "not answering") {
		t.Errorf("watch start with a hung watcher: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	r = runBin(t, bin, dir, nil, "watch", "stop")
	if r.code != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Fatalf("watch stop of a hung watcher: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if processRuns(pid) {
		t.Fatalf("the hung watcher %d still runs after watch stop", pid)
	}
	if watcherRunning(t, dir) {
		t.Fatal("watch status says running after watch stop")
	}
	if r := runBin(t, bin, dir, nil, "watch", "start"); r.code != 0 {
		t.Fatalf("watch start after stopping a hung watcher: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, "search", "deploy"); r.code != 0 {
		t.Fatalf("warm search from the new watcher: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// runGit runs `git args...` in dir with the test environment plus env:
// git finds git-contextfs on PATH (TestMain puts it first) and runs it
// with its own additions to the environment.
func runGit(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	return runProcess(t, cmd)
}

// TestWarmAnswersServeBothFormsOfTheCommand: git runs `git contextfs` with
// GIT_EXEC_PATH set and its exec path put first in PATH. A watcher
// started one way (the hooks run git-contextfs, the docs say git
// contextfs) declined the other as "another environment". PATH and
// GIT_EXEC_PATH cannot change an answer; a variable that points git at
// other files of the repository (GIT_INDEX_FILE) is declined.
func TestWarmAnswersServeBothFormsOfTheCommand(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin) // started as git-contextfs
	only := []string{"CONTEXTFS_WARM=only"}
	if r := runGit(t, dir, only, "contextfs", "search", "deploy"); r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Errorf("git contextfs, watcher started by git-contextfs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runGit(t, dir, nil, "contextfs", "watch", "stop"); r.code != 0 {
		t.Fatalf("git contextfs watch stop: exit %d\n%s", r.code, r.stderr)
	}
	if r := runGit(t, dir, nil, "contextfs", "watch", "start"); r.code != 0 {
		t.Fatalf("git contextfs watch start: exit %d\n%s", r.code, r.stderr)
	}
	if r := runBin(t, bin, dir, only, "search", "deploy"); r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Errorf("git-contextfs, watcher started by git contextfs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runGit(t, dir, only, "contextfs", "search", "deploy"); r.code != 0 {
		t.Errorf("git contextfs, watcher started by git contextfs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Another PATH or exec path cannot change an answer: served warm.
	for _, env := range [][]string{
		{"PATH=" + t.TempDir() + string(os.PathListSeparator) + os.Getenv("PATH")},
		{"GIT_EXEC_PATH=" + t.TempDir()},
	} {
		if r := runBin(t, bin, dir, append(env, only...), "search", "deploy"); r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
			t.Errorf("%v: exit %d, %q; want a warm answer", env, r.code, r.stderr)
		}
	}
	// A variable that names other files of the repository is declined.
	if r := runBin(t, bin, dir, append([]string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}, only...), "search", "deploy"); r.code != 1 || !strings.Contains(r.stderr, "another environment") {
		t.Errorf("GIT_INDEX_FILE: exit %d, %q; want the watcher to decline", r.code, r.stderr)
	}
}
