//go:build linux

package contextfs_test

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/testproc"
	"github.com/contextfs/contextfs/internal/watch"
)

// TestHelperWatcherProcess is the watcher, in a process of its own, of
// TestStatusNamesAWatcherThatDoesNotAnswer; run by itself, it does nothing.
func TestHelperWatcherProcess(t *testing.T) {
	dir := os.Getenv("CONTEXTFS_TEST_WATCHER_DIR")
	if dir == "" {
		t.Skip("the watcher process of TestStatusNamesAWatcherThatDoesNotAnswer")
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	o := watch.ServeOptions{Root: repo.Root, Dir: gitstore.Dir, Socket: contextfs.WatchSocketOf(repo), Idle: time.Minute}
	if err := watch.Serve(ctx, o); err != nil {
		t.Fatal(err)
	}
}

// TestStatusNamesAWatcherThatDoesNotAnswer: a watcher stopped with SIGSTOP
// takes the status request but answers nothing. Status said it was not
// running; it says it runs, with its pid, but does not answer, within the
// status request's timeout.
func TestStatusNamesAWatcherThatDoesNotAnswer(t *testing.T) {
	t.Setenv("CONTEXTFS_WATCH", "on")
	dir := testgit.Init(t)
	s := open(t, dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperWatcherProcess$")
	cmd.Env = append(os.Environ(), "CONTEXTFS_TEST_WATCHER_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	ctx := context.Background()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if w := s.WatcherStatus(ctx); w.Running && !w.NotAnswering {
			if w.PID != pid || w.Started.IsZero() {
				t.Fatalf("watcher status of a live watcher (pid %d): %+v", pid, w)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not start")
		}
	}

	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testproc.WaitStopped(t, pid)
	want := contextfs.WatcherStatus{Mode: contextfs.WatchOn, Running: true, PID: pid, NotAnswering: true}
	start := time.Now()
	if w := s.WatcherStatus(ctx); w != want {
		t.Errorf("watcher status of a stopped watcher: %+v, want %+v", w, want)
	}
	// The status request's deadline is 0.2 s (watch's queryTimeout); the
	// bound is 10 times that, for a loaded machine.
	if took, bound := time.Since(start), 10*200*time.Millisecond; took > bound {
		t.Errorf("watcher status of a stopped watcher took %v, want at most %v", took, bound)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Watcher != want {
		t.Errorf("status of a stopped watcher: %+v, want %+v", st.Watcher, want)
	}

	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// Just woken, on a loaded machine, it may miss the 0.2 s deadline of
	// a request: it is asked again for up to 30 s to answer for itself.
	var w contextfs.WatcherStatus
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		if w = s.WatcherStatus(ctx); w.Running && !w.NotAnswering && w.PID == pid {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !w.Running || w.NotAnswering || w.PID != pid {
		t.Errorf("watcher status of the watcher awake again: %+v", w)
	}
}
