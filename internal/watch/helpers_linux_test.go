package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Environment of the helper process started by TestServeInAnotherProcess:
// the test binary, re-executed, runs a daemon instead of the tests.
const (
	envDaemon = "CONTEXTFS_WATCH_TEST_DAEMON"
	envRoot   = "CONTEXTFS_WATCH_TEST_ROOT"
	envSocket = "CONTEXTFS_WATCH_TEST_SOCKET"
)

func TestMain(m *testing.M) {
	if os.Getenv(envDaemon) == "1" {
		err := Serve(context.Background(), ServeOptions{
			Root:   os.Getenv(envRoot),
			Dir:    ".contextfs",
			Socket: os.Getenv(envSocket),
			Idle:   time.Minute, // in case the test dies before stopping it
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// waitTimeout bounds every wait for a condition: generous, because -race
// on a loaded 2-core machine is slow; a passing test never waits it out.
const waitTimeout = 30 * time.Second

// daemon is a Serve running in a goroutine of the test, on real files and
// a real socket.
type daemon struct {
	root   string // work-tree root
	mem    string // root/.contextfs
	socket string
	cancel context.CancelFunc
	done   chan error // Serve's result
}

// startDaemon starts Serve with o, filling in a fresh work tree with an
// empty .contextfs/memories and a socket path, and waits until it answers.
// The daemon is cancelled and awaited when the test ends.
func startDaemon(t testing.TB, o ServeOptions) *daemon {
	t.Helper()
	if o.Root == "" {
		o.Root = t.TempDir()
		mkdirAll(t, filepath.Join(o.Root, ".contextfs", "memories"))
	}
	if o.Dir == "" {
		o.Dir = ".contextfs"
	}
	if o.Socket == "" {
		o.Socket = filepath.Join(t.TempDir(), "watch.sock")
	}
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &daemon{root: o.Root, mem: filepath.Join(o.Root, o.Dir), socket: o.Socket, cancel: cancel, done: make(chan error, 1)}
	go func() { d.done <- Serve(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-d.done:
		case <-time.After(waitTimeout):
			t.Errorf("daemon did not stop within %v of cancel", waitTimeout)
		}
	})
	waitFor(t, "daemon to answer", func() bool {
		select {
		case err := <-d.done:
			t.Fatalf("Serve returned early: %v", err)
		default:
		}
		_, err := Status(context.Background(), o.Socket)
		return err == nil
	})
	return d
}

// exited waits for Serve to return and returns its result.
func (d *daemon) exited(t testing.TB) error {
	t.Helper()
	select {
	case err := <-d.done:
		d.done <- err // for the cleanup
		return err
	case <-time.After(waitTimeout):
		t.Fatalf("daemon still running after %v", waitTimeout)
		return nil
	}
}

// waitFor polls cond until it holds, failing the test after waitTimeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// query asks the daemon, failing the test on error.
func (d *daemon) query(t testing.TB, token string) Changes {
	t.Helper()
	c, err := queryRetry(d.socket, token)
	if err != nil {
		t.Fatalf("Query(%q): %v", token, err)
	}
	return c
}

// queryRetry is Query with a retry on timeout: the 200 ms client
// deadline is meant for production, where a timeout costs a full scan;
// under -race on a loaded machine a legitimately slow answer must not
// fail a test. Any other error is returned at once.
func queryRetry(socket, token string) (Changes, error) {
	var err error
	for range 5 {
		var c Changes
		c, err = Query(context.Background(), socket, token)
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
			return c, err
		}
	}
	return Changes{}, err
}

// token returns a fresh token of the daemon: what a caller has after a
// full scan.
func (d *daemon) token(t testing.TB) string {
	t.Helper()
	c := d.query(t, "")
	if !c.Full {
		t.Fatalf("query without a token was not full: %+v", c)
	}
	return c.Token
}

// rel returns the answer form of a path under the work tree.
func (d *daemon) rel(t testing.TB, abs string) string {
	t.Helper()
	r, err := filepath.Rel(d.root, abs)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

// wantPaths fails unless c is partial and lists every path in paths
// (absolute, under the work tree) among its files.
func (d *daemon) wantPaths(t testing.TB, c Changes, paths ...string) {
	t.Helper()
	if c.Full {
		t.Fatalf("answer is full, want changes %v", paths)
	}
	for _, p := range paths {
		if r := d.rel(t, p); !slices.Contains(c.Paths, r) {
			t.Errorf("changes %q lack %q", c.Paths, r)
		}
	}
}

// wantPrefixes is wantPaths for removed folders.
func (d *daemon) wantPrefixes(t testing.TB, c Changes, dirs ...string) {
	t.Helper()
	if c.Full {
		t.Fatalf("answer is full, want prefixes %v", dirs)
	}
	for _, p := range dirs {
		if r := d.rel(t, p); !slices.Contains(c.Prefixes, r) {
			t.Errorf("prefixes %q lack %q", c.Prefixes, r)
		}
	}
}

func mkdirAll(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// isUnder reports whether rel is prefix or under it.
func isUnder(rel, prefix string) bool {
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}
