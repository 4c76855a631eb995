package warm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/sibling"
	"github.com/contextfs/contextfs/internal/watch"
)

// The watcher's life, as `git contextfs watch run|start|stop` drive it:
// the change watcher (package watch) serves this package's Server beside
// its change queries, so starting, running and stopping it belong here,
// and the CLI only parses flags and prints.

// Locate finds the watcher of the repository around dir without opening
// the store: the top of its work tree, which the command line sent to it
// names, and the socket it listens on.
func Locate(dir string) (root, socket string, err error) {
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return "", "", err
	}
	return repo.Root, contextfs.WatchSocketOf(repo), nil
}

// SpawnWatcher starts this program's `watch run` for the work tree at
// root, detached: what a command does when the watch mode asks for a
// watcher (contextfs.Options.StartWatcher).
func SpawnWatcher(root string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return watch.SpawnFor(exe, root)
}

// RunWatcher runs the watcher of st's work tree in the foreground until
// ctx ends or the watcher exits (idle, the tree gone, a stop), answering
// warm commands through run when a Server can be made. idle, when
// positive, replaces watch.idle.
func RunWatcher(ctx context.Context, st *contextfs.Store, idle time.Duration, version string, run Runner) error {
	o := st.WatchOptions()
	if idle > 0 {
		o.Idle = idle
	}
	if w, err := NewServer(o.Root, version, run); err == nil {
		o.Call, o.OnChange = w.Call, w.Refresh
		defer w.Close()
		go w.CloseWhenIdle(ctx, Idle)
	}
	err := watch.Serve(ctx, o)
	if errors.Is(err, watch.ErrAlreadyRunning) {
		return fmt.Errorf("a watcher already serves %s", o.Root)
	}
	return err
}

// StartWatcher starts the watcher of st's work tree in the background,
// whatever the watch mode says, and waits until it answers, so that a
// script can rely on it. already reports a watcher that was running;
// one that runs but does not answer is a *NotAnsweringError.
func StartWatcher(ctx context.Context, st *contextfs.Store) (pid int, already bool, err error) {
	o := st.WatchOptions()
	if s, err := watch.Status(ctx, o.Socket); err == nil {
		return s.PID, true, nil
	} else if !errors.Is(err, watch.ErrNotRunning) {
		if pid, _ := watch.Holder(o.Socket); pid > 0 {
			return 0, false, &NotAnsweringError{PID: pid, Err: err}
		}
	}
	if err := SpawnWatcher(o.Root); err != nil {
		return 0, false, fmt.Errorf("start watcher: %w", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := watch.Status(ctx, o.Socket)
		if err == nil {
			return s.PID, false, nil
		}
		if time.Now().After(deadline) {
			return 0, false, fmt.Errorf("the watcher did not answer within 5s: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stopped is how StopWatcher stopped the watcher.
type Stopped struct {
	// NotRunning reports that no watcher was running.
	NotRunning bool
	// Signalled is the pid of a watcher that did not answer and was
	// stopped with a signal; 0 when it answered and stopped itself.
	Signalled int
}

// StopWatcher stops the watcher of st's work tree: it asks it, and when
// it does not answer (stopped, stuck), or there is no socket to ask while
// a process holds the watcher's lock, signals that process, which
// watch.Terminate makes sure is this work tree's watcher.
func StopWatcher(ctx context.Context, st *contextfs.Store) (Stopped, error) {
	socket := st.WatchSocket()
	err := watch.Stop(ctx, socket)
	if err == nil {
		return Stopped{}, nil
	}
	if errors.Is(err, watch.ErrForeignDaemon) {
		return Stopped{}, fmt.Errorf("stop watcher: %w", err)
	}
	pid, terr := watch.Terminate(socket)
	switch {
	case errors.Is(terr, watch.ErrNotRunning) && errors.Is(err, watch.ErrNotRunning):
		return Stopped{NotRunning: true}, nil
	case errors.Is(terr, watch.ErrNotRunning):
		return Stopped{}, fmt.Errorf("stop watcher: %w", err)
	case terr != nil:
		return Stopped{}, fmt.Errorf("stop watcher: %v; %w", err, terr)
	}
	return Stopped{Signalled: pid}, nil
}

// SpawnSiblingWatcher is SpawnWatcher for a program installed beside
// git-contextfs (the MCP server): the watcher is git-contextfs's own
// `watch run`, found next to the running program.
func SpawnSiblingWatcher(root string) error {
	exe, err := sibling.Find("git-contextfs")
	if err != nil {
		return err
	}
	return watch.SpawnFor(exe, root)
}
