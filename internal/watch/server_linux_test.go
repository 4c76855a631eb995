package watch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestFileChangesAreReported(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, file string) // makes the state the token is taken in
		change func(t *testing.T, file string) []string
	}{
		{
			name:   "create",
			change: func(t *testing.T, file string) []string { writeFile(t, file, "new"); return []string{file} },
		},
		{
			name:   "overwrite in place", // open, truncate, write, no rename: VS Code's save
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("new")
				f.Close()
				return []string{file}
			},
		},
		{
			name:   "write not yet closed",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				f, err := os.OpenFile(file, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				f.WriteString("new")
				return []string{file}
			},
		},
		{
			name:   "append",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(" and more")
				f.Close()
				return []string{file}
			},
		},
		{
			name:   "truncate",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				if err := os.Truncate(file, 1); err != nil {
					t.Fatal(err)
				}
				return []string{file}
			},
		},
		{
			name:   "atomic save by rename over",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				tmp := filepath.Join(filepath.Dir(file), ".x.md.tmp")
				writeFile(t, tmp, "new")
				if err := os.Rename(tmp, file); err != nil {
					t.Fatal(err)
				}
				return []string{file}
			},
		},
		{
			name:   "delete",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				if err := os.Remove(file); err != nil {
					t.Fatal(err)
				}
				return []string{file}
			},
		},
		{
			name:   "rename",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				to := filepath.Join(filepath.Dir(file), "y.md")
				if err := os.Rename(file, to); err != nil {
					t.Fatal(err)
				}
				return []string{file, to}
			},
		},
		{
			name:   "touch",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				when := time.Now().Add(time.Hour)
				if err := os.Chtimes(file, when, when); err != nil {
					t.Fatal(err)
				}
				return []string{file}
			},
		},
		{
			name:   "chmod",
			before: func(t *testing.T, file string) { writeFile(t, file, "old") },
			change: func(t *testing.T, file string) []string {
				if err := os.Chmod(file, 0o600); err != nil {
					t.Fatal(err)
				}
				return []string{file}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDaemon(t, ServeOptions{})
			file := filepath.Join(d.mem, "memories", "x.md")
			if tc.before != nil {
				tc.before(t, file)
			}
			tok := d.token(t)
			want := tc.change(t, file)
			c := d.query(t, tok)
			d.wantPaths(t, c, want...)
			for _, p := range c.Paths {
				if strings.Contains(p, "/.") {
					t.Errorf("hidden path %q reported", p)
				}
			}
			if again := d.query(t, c.Token); len(again.Paths)+len(again.Prefixes) != 0 || again.Full {
				t.Errorf("nothing changed since the last answer, yet: %+v", again)
			}
		})
	}
}

// TestChangeJustBeforeQueryIsReported is the freshness rule: a change
// made before Query is called is in its answer, every time.
func TestChangeJustBeforeQueryIsReported(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	dir := filepath.Join(d.mem, "memories")
	same := filepath.Join(dir, "same.md")
	tok := d.token(t)
	for i := range 500 {
		// Alternate between a new file and the same file again: the
		// latter exercises the merging of repeated changes of one path.
		file := same
		if i%2 == 0 {
			file = filepath.Join(dir, fmt.Sprintf("m%d.md", i))
		}
		writeFile(t, file, strconv.Itoa(i))
		c := d.query(t, tok)
		if c.Full || !slices.Contains(c.Paths, d.rel(t, file)) {
			t.Fatalf("iteration %d: change of %s not reported: %+v", i, file, c)
		}
		if len(c.Paths) != 1 {
			t.Fatalf("iteration %d: one file changed, answer lists %q", i, c.Paths)
		}
		tok = c.Token
	}
}

// TestNewFolderIsFullyReported creates folders and files in them at once,
// racing the daemon's watch of the new folder: every file must be
// reported, whether the daemon lists it or gets its event.
func TestNewFolderIsFullyReported(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	tok := d.token(t)
	for i := range 40 {
		top := filepath.Join(d.mem, "memories", fmt.Sprintf("d%d", i))
		var want []string
		for _, sub := range []string{"", "a", "a/b", "c"} {
			dir := filepath.Join(top, sub)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for j := range 3 {
				f := filepath.Join(dir, fmt.Sprintf("f%d.md", j))
				writeFile(t, f, "x")
				want = append(want, f)
			}
		}
		c := d.query(t, tok)
		d.wantPaths(t, c, want...)
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
		tok = c.Token

		// The new folders are watched: changes in them are seen.
		f := filepath.Join(top, "a", "b", "later.md")
		writeFile(t, f, "y")
		c = d.query(t, tok)
		d.wantPaths(t, c, f)
		tok = c.Token
	}
}

func TestFolderMovedInIsFullyReported(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	outside := filepath.Join(t.TempDir(), "incoming")
	mkdirAll(t, filepath.Join(outside, "deep", "er"))
	writeFile(t, filepath.Join(outside, "a.md"), "a")
	writeFile(t, filepath.Join(outside, "deep", "er", "b.md"), "b")
	writeFile(t, filepath.Join(outside, ".hidden.md"), "h")
	tok := d.token(t)

	in := filepath.Join(d.mem, "memories", "incoming")
	if err := os.Rename(outside, in); err != nil {
		t.Skipf("rename across temp folders: %v", err)
	}
	c := d.query(t, tok)
	d.wantPaths(t, c, filepath.Join(in, "a.md"), filepath.Join(in, "deep", "er", "b.md"))
	if slices.Contains(c.Paths, d.rel(t, filepath.Join(in, ".hidden.md"))) {
		t.Errorf("hidden file reported: %q", c.Paths)
	}

	f := filepath.Join(in, "deep", "er", "c.md")
	writeFile(t, f, "c")
	c = d.query(t, c.Token)
	d.wantPaths(t, c, f)
}

func TestRemovedFolderIsReportedAsPrefix(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove func(dir string) error
	}{
		{"deleted", os.RemoveAll},
		{"moved away", func(dir string) error { return os.Rename(dir, filepath.Join(filepath.Dir(dir), ".trash")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDaemon(t, ServeOptions{})
			dir := filepath.Join(d.mem, "memories", "ab")
			mkdirAll(t, filepath.Join(dir, "sub"))
			writeFile(t, filepath.Join(dir, "sub", "x.md"), "x")
			tok := d.token(t)
			if err := tc.remove(dir); err != nil {
				t.Fatal(err)
			}
			c := d.query(t, tok)
			d.wantPrefixes(t, c, dir)
			for _, p := range c.Prefixes {
				if !isUnder(p, d.rel(t, dir)) {
					t.Errorf("unrelated prefix %q", p)
				}
			}
			waitFor(t, "watches of the removed folders to go", func() bool {
				st, err := Status(context.Background(), d.socket)
				return err == nil && st.Dirs == 2 // .contextfs, memories
			})
		})
	}
}

// TestFolderRenamedWithinTreeKeepsWatching renames folders around, in ways
// where the daemon may watch a folder at its new place before it reads the
// event of the move, and checks that changes in every folder are still
// seen afterwards.
func TestFolderRenamedWithinTreeKeepsWatching(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	mem := filepath.Join(d.mem, "memories")
	x := filepath.Join(mem, "x")
	mkdirAll(t, filepath.Join(x, "inner"))
	tok := d.token(t)
	for i := range 20 {
		// x moves into a new folder z, and a new x takes its place.
		z := filepath.Join(mem, fmt.Sprintf("z%d", i))
		mkdirAll(t, z)
		moved := filepath.Join(z, "x")
		if err := os.Rename(x, moved); err != nil {
			t.Fatal(err)
		}
		mkdirAll(t, filepath.Join(x, "inner"))
		f1 := filepath.Join(moved, "inner", "f.md")
		f2 := filepath.Join(x, "inner", "f.md")
		writeFile(t, f1, "1")
		writeFile(t, f2, "2")
		c := d.query(t, tok)
		d.wantPaths(t, c, f1, f2)
		d.wantPrefixes(t, c, x)

		g1 := filepath.Join(moved, "inner", "g.md")
		g2 := filepath.Join(x, "inner", "g.md")
		writeFile(t, g1, "1")
		writeFile(t, g2, "2")
		c = d.query(t, c.Token)
		d.wantPaths(t, c, g1, g2)
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
		tok = c.Token
	}
	st, err := Status(context.Background(), d.socket)
	if err != nil {
		t.Fatal(err)
	}
	// .contextfs, memories, x, x/inner, and z, z/x, z/x/inner for each z.
	if want := 4 + 3*20; st.Dirs != want {
		t.Errorf("%d folders watched, want %d", st.Dirs, want)
	}
}

func TestDeletedAndRecreatedTopFolderIsWatched(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	mkdirAll(t, filepath.Join(d.mem, "memories", "ab"))
	writeFile(t, filepath.Join(d.mem, "memories", "ab", "old.md"), "old")
	tok := d.token(t)

	// A checkout of a branch without memories.
	if err := os.RemoveAll(d.mem); err != nil {
		t.Fatal(err)
	}
	c := d.query(t, tok)
	d.wantPrefixes(t, c, d.mem)

	// And back.
	f := filepath.Join(d.mem, "memories", "ab", "new.md")
	mkdirAll(t, filepath.Dir(f))
	writeFile(t, f, "new")
	c = d.query(t, c.Token)
	d.wantPaths(t, c, f)

	g := filepath.Join(d.mem, "memories", "ab", "later.md")
	writeFile(t, g, "later")
	writeFile(t, f, "newer")
	c = d.query(t, c.Token)
	d.wantPaths(t, c, f, g)
	st, err := Status(context.Background(), d.socket)
	if err != nil {
		t.Fatal(err)
	}
	if st.Dirs != 3 {
		t.Errorf("%d folders watched, want 3", st.Dirs)
	}
}

func TestTopFolderCreatedAfterStartIsWatched(t *testing.T) {
	root := t.TempDir()
	d := startDaemon(t, ServeOptions{Root: root})
	tok := d.token(t)
	f := filepath.Join(root, ".contextfs", "memories", "x.md")
	mkdirAll(t, filepath.Dir(f))
	writeFile(t, f, "x")
	writeFile(t, filepath.Join(root, "unrelated.txt"), "not a memory")
	c := d.query(t, tok)
	d.wantPaths(t, c, f)
	if len(c.Paths) != 1 {
		t.Errorf("changes %q, want only %q", c.Paths, d.rel(t, f))
	}
	writeFile(t, f, "y")
	d.wantPaths(t, d.query(t, c.Token), f)
}

func TestTokensThatCannotBeAnsweredGetFull(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	tok := d.token(t)
	inst, seq, _ := parseToken(tok)
	for _, bad := range []string{
		"",
		"garbage",
		"0123456789abcdef:0", // another daemon's
		inst + ":" + strconv.FormatUint(seq+1000, 10), // from the future
		inst + ":x",
		"has space:1", // cannot even be sent
	} {
		c := d.query(t, bad)
		if !c.Full {
			t.Errorf("token %q: answer is not full: %+v", bad, c)
		}
		if c.Token == "" || c.Token == bad {
			t.Errorf("token %q: new token %q", bad, c.Token)
		}
	}
	if c := d.query(t, tok); c.Full {
		t.Errorf("own token %q: answer is full", tok)
	}
}

func TestTooManyChangesGetFull(t *testing.T) {
	const max = 5
	d := startDaemon(t, ServeOptions{MaxPaths: max})
	dir := filepath.Join(d.mem, "memories")
	tok := d.token(t)
	for i := range max {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("%d.md", i)), "x")
	}
	mid := d.query(t, tok)
	if mid.Full || len(mid.Paths) != max {
		t.Fatalf("%d changes: %+v, want them listed", max, mid)
	}
	writeFile(t, filepath.Join(dir, "one-more.md"), "x")
	if c := d.query(t, tok); !c.Full {
		t.Errorf("%d changes: %+v, want full", max+1, c)
	}
	if c := d.query(t, mid.Token); c.Full || len(c.Paths) != 1 {
		t.Errorf("1 change since the middle token: %+v", c)
	}
}

// TestLostEventsGetFull overflows the kernel's event queue (its length is
// fs.inotify.max_queued_events) while nothing reads it; every token
// issued before must then get a full answer, and later ones must work.
func TestLostEventsGetFull(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip(err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || limit > 1<<20 {
		t.Skipf("max_queued_events %q", b)
	}
	root := t.TempDir()
	dir := filepath.Join(root, ".contextfs")
	mkdirAll(t, dir)
	a, z := filepath.Join(dir, "a.md"), filepath.Join(dir, "z.md")
	writeFile(t, a, "a")
	writeFile(t, z, "z")

	// A server without its pump: the queue fills until a query reads it.
	o, err := ServeOptions{Root: root, Dir: ".contextfs", Socket: filepath.Join(root, "unused"), Logf: t.Logf}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeWatcher()
	tok, err := s.query("")
	if err != nil {
		t.Fatal(err)
	}
	// Alternating files: the kernel merges an event equal to the last
	// one queued.
	when := time.Now()
	for i := range limit + 10 {
		when = when.Add(time.Second)
		f := a
		if i%2 == 1 {
			f = z
		}
		if err := os.Chtimes(f, when, when); err != nil {
			t.Fatal(err)
		}
	}
	c, err := s.query(tok.Token)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Full {
		t.Fatalf("after overflow: %+v, want full", c)
	}
	writeFile(t, a, "again")
	c, err = s.query(c.Token)
	if err != nil {
		t.Fatal(err)
	}
	if c.Full || !slices.Equal(c.Paths, []string{".contextfs/a.md"}) {
		t.Errorf("after overflow, a change: %+v", c)
	}
}

func TestIdleDaemonExitsAndRemovesSocket(t *testing.T) {
	const idle = 300 * time.Millisecond
	d := startDaemon(t, ServeOptions{Idle: idle})
	// Requests keep it alive well past the idle time, as long as no two
	// are idle apart: the daemon notes each request between the client's
	// sending it and receiving the answer.
	var lastStart time.Time
	for end := time.Now().Add(3 * idle); time.Now().Before(end); time.Sleep(idle / 10) {
		start := time.Now()
		if _, err := Query(context.Background(), d.socket, ""); err != nil {
			if !lastStart.IsZero() && time.Since(lastStart) >= idle {
				t.Skipf("machine too slow to test: %v between requests", time.Since(lastStart))
			}
			t.Fatalf("daemon gone while in use: %v", err)
		}
		lastStart = start
	}
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if waited := time.Since(lastStart); waited < idle {
		t.Errorf("exited %v after the last request, idle time is %v", waited, idle)
	}
	if _, err := os.Lstat(d.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, err := Query(context.Background(), d.socket, ""); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Query after exit: %v, want ErrNotRunning", err)
	}
}

func TestStopStopsAtOnce(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	if err := Stop(context.Background(), d.socket); err != nil {
		t.Fatal(err)
	}
	// When Stop returns, the socket is gone and a new daemon can start.
	if _, err := os.Lstat(d.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	d2 := startDaemon(t, ServeOptions{Root: d.root, Socket: d.socket})
	d2.query(t, "")
}

func TestStaleSocketIsReplaced(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "watch.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // the socket file stays, with nobody listening: a crashed daemon
	if _, err := Query(context.Background(), socket, ""); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Query on a stale socket: %v, want ErrNotRunning", err)
	}
	d := startDaemon(t, ServeOptions{Socket: socket})
	d.query(t, "")
	fi, err := os.Lstat(socket)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode %v, want 0600", perm)
	}
}

func TestServeRefusesToReplaceAFile(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "watch.sock")
	writeFile(t, socket, "precious")
	root := t.TempDir()
	err := Serve(context.Background(), ServeOptions{Root: root, Dir: ".contextfs", Socket: socket})
	if err == nil || errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("Serve on a regular file: %v", err)
	}
	if b, _ := os.ReadFile(socket); string(b) != "precious" {
		t.Errorf("file replaced")
	}
}

func TestSecondDaemonIsAlreadyRunning(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	err := Serve(context.Background(), ServeOptions{Root: d.root, Dir: ".contextfs", Socket: d.socket})
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("second Serve: %v, want ErrAlreadyRunning", err)
	}
	d.query(t, "") // the first one is unharmed
}

func TestLongSocketPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("a", 60), strings.Repeat("b", 60))
	socket := filepath.Join(dir, "watch.sock")
	if len(socket) <= maxSunPath {
		t.Fatalf("socket path %d bytes long, want over %d", len(socket), maxSunPath)
	}
	if _, err := Query(context.Background(), socket, ""); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Query before start: %v, want ErrNotRunning", err)
	}
	d := startDaemon(t, ServeOptions{Socket: socket})
	f := filepath.Join(d.mem, "memories", "x.md")
	tok := d.token(t)
	writeFile(t, f, "x")
	d.wantPaths(t, d.query(t, tok), f)
	if err := Stop(context.Background(), socket); err != nil {
		t.Fatal(err)
	}
	if err := d.exited(t); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "watch.sock.lock" {
		t.Errorf("left in the socket folder: %v", ents)
	}
}

func TestWorkTreeRemovedStopsDaemon(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wt")
	mkdirAll(t, filepath.Join(root, ".contextfs", "memories"))
	d := startDaemon(t, ServeOptions{Root: root})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := d.exited(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := os.Lstat(d.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestStatusDescribesDaemon(t *testing.T) {
	before := time.Now()
	d := startDaemon(t, ServeOptions{})
	tok := d.token(t)
	writeFile(t, filepath.Join(d.mem, "memories", "a.md"), "a")
	writeFile(t, filepath.Join(d.mem, "memories", "b.md"), "b")
	st, err := Status(context.Background(), d.socket)
	if err != nil {
		t.Fatal(err)
	}
	inst, _, _ := parseToken(tok)
	if st.Instance != inst || st.PID != os.Getpid() || st.Root != d.root || st.Dir != ".contextfs" ||
		st.Dirs != 2 || st.Changes != 2 || st.Seq < 2 || st.Degraded != "" ||
		st.Started.Before(before.Add(-time.Second)) || st.LastRequest.Before(st.Started) {
		t.Errorf("status %+v", st)
	}
}

func TestMalformedRequestsGetErrors(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	for _, req := range []string{
		"\n",
		"hello\n",
		"v2 query\n",
		"v1\n",
		"v1 frob\n",
		"v1 query a b\n",
		"v1 status please\n",
		"v1 query " + strings.Repeat("x", 10000) + "\n",
		"\x00\xff\n",
	} {
		c, err := net.Dial("unix", d.socket)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(waitTimeout))
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		_, err = readAnswer(bufio.NewReader(c))
		c.Close()
		if err == nil || !strings.Contains(err.Error(), "daemon: ") {
			t.Errorf("request %.30q: %v, want an error answer", req, err)
		}
	}
	d.query(t, "") // still serving
}

func TestClientGivesUpOnSilentDaemon(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "watch.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts, never answers
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	start := time.Now()
	_, err = Query(context.Background(), socket, "")
	if err == nil || errors.Is(err, ErrNotRunning) {
		t.Errorf("Query: %v, want a timeout", err)
	}
	// Query's deadline is queryTimeout; 15 times it leaves room for a
	// loaded machine.
	if took := time.Since(start); took > 15*queryTimeout {
		t.Errorf("Query took %v, want it to give up within %v", took, 15*queryTimeout)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = Query(ctx, socket, "")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Query with cancelled context: %v, want context.Canceled", err)
	}
}

func TestQueryWithoutDaemonIsNotRunning(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "nothing", "watch.sock")
	for _, f := range []func() error{
		func() error { _, err := Query(context.Background(), socket, ""); return err },
		func() error { _, err := Status(context.Background(), socket); return err },
		func() error { return Stop(context.Background(), socket) },
	} {
		if err := f(); !errors.Is(err, ErrNotRunning) {
			t.Errorf("%v, want ErrNotRunning", err)
		}
	}
}

func TestConcurrentQueries(t *testing.T) {
	d := startDaemon(t, ServeOptions{})
	dir := filepath.Join(d.mem, "memories")
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.md", i%50)), []byte(strconv.Itoa(i)), 0o644)
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := ""
			var last uint64
			for i := range 40 {
				c, err := queryRetry(d.socket, tok)
				if err != nil {
					errs <- fmt.Errorf("goroutine %d, query %d: %w", g, i, err)
					return
				}
				if i > 0 && c.Full {
					errs <- fmt.Errorf("goroutine %d, query %d: full answer", g, i)
					return
				}
				_, seq, _ := parseToken(c.Token)
				if seq < last {
					errs <- fmt.Errorf("goroutine %d: token went back from %d to %d", g, last, seq)
					return
				}
				last, tok = seq, c.Token
			}
		}()
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestServeInAnotherProcess starts the daemon as a detached process with
// Spawn (the test binary, re-executed: see TestMain) and uses it from
// this one.
func TestServeInAnotherProcess(t *testing.T) {
	root := t.TempDir()
	mkdirAll(t, filepath.Join(root, ".contextfs", "memories"))
	socket := filepath.Join(t.TempDir(), "watch.sock")
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
	t.Cleanup(func() { Stop(context.Background(), socket) })

	var st DaemonStatus
	waitFor(t, "spawned daemon to answer", func() bool {
		st, err = Status(context.Background(), socket)
		return err == nil
	})
	if st.PID == os.Getpid() || st.PID <= 0 {
		t.Fatalf("daemon pid %d, test pid %d", st.PID, os.Getpid())
	}
	if sid, err := unix.Getsid(st.PID); err != nil || sid != st.PID {
		t.Errorf("daemon session %d (%v), want its own (%d)", sid, err, st.PID)
	}

	d := &daemon{root: root, mem: filepath.Join(root, ".contextfs"), socket: socket}
	tok := d.token(t)
	f := filepath.Join(d.mem, "memories", "x.md")
	writeFile(t, f, "x")
	d.wantPaths(t, d.query(t, tok), f)

	if err := Stop(context.Background(), socket); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "daemon process to exit", func() bool {
		return syscall.Kill(st.PID, 0) == syscall.ESRCH
	})
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

// TestUnwatchableFolderDegradesToFull puts a folder deeper than PATH_MAX
// in the tree, which inotify cannot watch (ENAMETOOLONG, as ENOSPC would
// be with too few fs.inotify.max_user_watches): changes there would go
// unseen, so every answer must be full, and the watches given back.
func TestUnwatchableFolderDegradesToFull(t *testing.T) {
	root := t.TempDir()
	mem := filepath.Join(root, ".contextfs", "memories")
	mkdirAll(t, mem)
	fd, err := unix.Open(mem, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 250)
	for range 20 { // 20 × 251 bytes: past PATH_MAX (4096)
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	unix.Close(fd)

	d := startDaemon(t, ServeOptions{Root: root})
	st, err := Status(context.Background(), d.socket)
	if err != nil {
		t.Fatal(err)
	}
	if st.Degraded == "" || st.Dirs != 0 {
		t.Errorf("status %+v, want degraded with no folder watched", st)
	}
	tok := d.token(t)
	if c := d.query(t, tok); !c.Full {
		t.Errorf("degraded daemon answered %+v, want full", c)
	}
}

func TestServeRejectsBadOptions(t *testing.T) {
	root := t.TempDir()
	socket := filepath.Join(t.TempDir(), "watch.sock")
	for _, o := range []ServeOptions{
		{Root: "relative", Dir: ".contextfs", Socket: socket},
		{Root: root, Dir: "", Socket: socket},
		{Root: root, Dir: ".", Socket: socket},
		{Root: root, Dir: "..", Socket: socket},
		{Root: root, Dir: "a/b", Socket: socket},
		{Root: root, Dir: ".contextfs", Socket: ""},
		{Root: filepath.Join(root, "missing"), Dir: ".contextfs", Socket: socket},
	} {
		if err := Serve(context.Background(), o); err == nil {
			t.Errorf("Serve(%+v) started", o)
		}
	}
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket created: %v", err)
	}
}
