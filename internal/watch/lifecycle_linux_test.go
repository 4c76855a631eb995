package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testproc"
)

// repoLayout makes a work tree laid out as git-contextfs uses it: the
// memory folder and, inside the same tree, the git dir holding the
// socket. It returns the root and the socket path.
func repoLayout(t *testing.T) (root, socket string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "repo")
	mkdirAll(t, filepath.Join(root, ".contextfs", "memories"))
	mkdirAll(t, filepath.Join(root, ".git", "contextfs"))
	return root, filepath.Join(root, ".git", "contextfs", "watch.sock")
}

// TestRemovedRepositoryStopsDaemonWhoseSocketIsInside is `rm -rf repo` of
// a plain repository: the socket and its lock live in the tree, and they
// keep the root's directory entry alive, so the kernel says nothing about
// the root itself (IN_DELETE_SELF waits for the last reference). The
// daemon must notice anyway and exit, having run nothing of its owner's
// in the deleted tree (which would create it again).
func TestRemovedRepositoryStopsDaemonWhoseSocketIsInside(t *testing.T) {
	root, socket := repoLayout(t)
	writeFile(t, filepath.Join(root, ".contextfs", "memories", "a.md"), "a")
	var changes, calls atomic.Int32
	d := startDaemon(t, ServeOptions{
		Root: root, Socket: socket, Settle: 50 * time.Millisecond,
		OnChange: func() { changes.Add(1) },
		Call:     func(context.Context, string, []byte) ([]byte, error) { calls.Add(1); return nil, nil },
	})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if n := changes.Load(); n != 0 {
		t.Errorf("OnChange ran %d times after the work tree was removed", n)
	}
	if _, err := os.Lstat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed work tree is back: %v", err)
	}
}

// TestDaemonStopsWhenItsSocketIsRemoved: with the git dir removed (or
// its contextfs folder), no client can reach the daemon any more; it
// exits rather than watch for nobody until it idles out.
func TestDaemonStopsWhenItsSocketIsRemoved(t *testing.T) {
	root, socket := repoLayout(t)
	d := startDaemon(t, ServeOptions{Root: root, Socket: socket})
	if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	t.Logf("exited %v after the socket was removed", time.Since(start))
	if _, err := os.Lstat(filepath.Join(root, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed git dir is back: %v", err)
	}
}

// TestNothingRunsInAWorkTreeThatIsGone: a call or a settled burst of
// changes that comes after the work tree went, but before the daemon
// noticed, must not run its owner's code there. The tree is kept alive
// in the kernel by an open file in it, as a daemon's own files do.
func TestNothingRunsInAWorkTreeThatIsGone(t *testing.T) {
	root, _ := repoLayout(t)
	keep, err := os.Create(filepath.Join(root, ".git", "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	var changes, calls atomic.Int32
	d := startDaemon(t, ServeOptions{
		Root: root, Settle: 20 * time.Millisecond,
		OnChange: func() { changes.Add(1) },
		Call:     func(context.Context, string, []byte) ([]byte, error) { calls.Add(1); return nil, nil },
	})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	_, err = CallDaemon(context.Background(), d.socket, "run", nil, time.Second)
	if err == nil {
		t.Errorf("a call was answered after the work tree was removed")
	}
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("Call ran %d times after the work tree was removed", n)
	}
	if n := changes.Load(); n != 0 {
		t.Errorf("OnChange ran %d times after the work tree was removed", n)
	}
}

// TestMovedWorkTreeStopsDaemon: a moved tree (mv, git worktree move)
// stops the daemon too, as before.
func TestMovedWorkTreeStopsDaemon(t *testing.T) {
	root, socket := repoLayout(t)
	d := startDaemon(t, ServeOptions{Root: root, Socket: socket})
	if err := os.Rename(root, root+"2"); err != nil {
		t.Fatal(err)
	}
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := os.Lstat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the moved work tree's old path is back: %v", err)
	}
}

// spawnHelper starts the test binary as a daemon in another process (see
// TestMain) and returns its socket and pid; it is stopped (or killed)
// when the test ends.
func spawnHelper(t *testing.T) (socket string, pid int) {
	t.Helper()
	root := t.TempDir()
	mkdirAll(t, filepath.Join(root, ".contextfs", "memories"))
	socket = filepath.Join(t.TempDir(), "watch.sock")
	t.Setenv(envDaemon, "1")
	t.Setenv(envRoot, root)
	t.Setenv(envSocket, socket)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := Spawn(exe, []string{"-test.run=^$"}, root); err != nil {
		t.Fatal(err)
	}
	var st DaemonStatus
	waitFor(t, "spawned daemon to answer", func() bool {
		st, err = Status(context.Background(), socket)
		return err == nil
	})
	pid = st.PID
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGCONT)
		if Stop(context.Background(), socket) != nil && processAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return socket, pid
}

// processAlive reports whether pid runs: neither gone nor a zombie left
// for a parent that does not reap it.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// TestHungDaemonIsNamedAndStopped: a daemon that accepts connections but
// answers nothing (here stopped with SIGSTOP) costs a call about a
// second, not the call's whole timeout, with an error saying so; its pid
// is known from its lock, and Terminate stops it.
//
// The call's own timeout is an hour and its context ends after a minute,
// so only the probe can give up within 10 times its deadline
// (probeAfter+probeTimeout), the bound checked: generous enough for a
// loaded machine, and still far from what a call without the probe waits.
func TestHungDaemonIsNamedAndStopped(t *testing.T) {
	socket, pid := spawnHelper(t)
	if got, err := Holder(socket); err != nil || got != pid {
		t.Errorf("Holder = %d, %v; want the daemon's pid %d", got, err, pid)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// kill returns before the signal stops the process: on a loaded
	// machine the daemon could still answer the call ("answers no calls").
	testproc.WaitStopped(t, pid)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := CallDaemon(ctx, socket, "run", []byte("{}"), time.Hour)
	took := time.Since(start)
	if !errors.Is(err, ErrNotAnswering) {
		t.Errorf("call to a stopped daemon: %v, want ErrNotAnswering", err)
	}
	if bound := 10 * (probeAfter + probeTimeout); took > bound {
		t.Errorf("call to a stopped daemon took %v, want the probe to give up within %v", took, bound)
	}
	if got, err := Holder(socket); err != nil || got != pid {
		t.Errorf("Holder of a stopped daemon = %d, %v; want %d", got, err, pid)
	}
	got, err := Terminate(socket)
	if err != nil || got != pid {
		t.Fatalf("Terminate = %d, %v; want %d", got, err, pid)
	}
	if processAlive(pid) {
		t.Errorf("daemon %d still runs after Terminate", pid)
	}
	if got, err := Holder(socket); err != nil || got != 0 {
		t.Errorf("Holder after Terminate = %d, %v; want none", got, err)
	}
	if _, err := Terminate(socket); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Terminate with none running: %v, want ErrNotRunning", err)
	}
}

// TestSlowCallOfALiveDaemonIsAwaited: the liveness probe must not give
// up on a daemon that answers it while a call takes its time.
func TestSlowCallOfALiveDaemonIsAwaited(t *testing.T) {
	d := startDaemon(t, ServeOptions{Call: func(context.Context, string, []byte) ([]byte, error) {
		time.Sleep(probeAfter + probeTimeout + 300*time.Millisecond)
		return []byte("done"), nil
	}})
	out, err := CallDaemon(context.Background(), d.socket, "run", nil, 10*time.Second)
	if err != nil || string(out) != "done" {
		t.Fatalf("slow call: %q, %v", out, err)
	}
}

// TestHolderOfNoDaemon: no lock file, a lock file left by a daemon that
// exited, or one naming a process that does not hold it: no holder.
func TestHolderOfNoDaemon(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "watch.sock")
	if pid, err := Holder(socket); pid != 0 || err != nil {
		t.Errorf("no lock file: %d, %v", pid, err)
	}
	// This process runs, but does not hold the lock: a pid reused.
	writeFile(t, socket+".lock", strconv.Itoa(os.Getpid())+"\n")
	if pid, err := Holder(socket); pid != 0 || err != nil {
		t.Errorf("a lock file naming a process that does not hold it: %d, %v", pid, err)
	}
	d := startDaemon(t, ServeOptions{Socket: socket})
	if pid, err := Holder(socket); pid != os.Getpid() || err != nil {
		t.Errorf("a daemon of this process: %d, %v", pid, err)
	}
	if err := Stop(context.Background(), socket); err != nil {
		t.Fatal(err)
	}
	d.exited(t)
	if pid, err := Holder(socket); pid != 0 || err != nil {
		t.Errorf("after the daemon exited: %d, %v", pid, err)
	}
}
