package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/testgit"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the output the tests get")

// inProcess runs `git-contextfs -C dir args...` in the test's own process,
// over buffers, with git isolated from the developer's configuration as
// testgit isolates it, and no change watcher started.
func inProcess(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	for _, kv := range testgit.Env() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") || k == "NO_COLOR" {
			t.Setenv(k, v)
		}
	}
	t.Setenv("CONTEXTFS_WATCH", "off")
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	code := (&app{io: ios}).run(context.Background(), append([]string{"-C", dir}, args...))
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// golden compares got with testdata/NAME.golden, or rewrites the file
// with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update if the change is meant):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// goldenRepo is reviewRepo with fixed commit dates, so that commit IDs,
// and the output that shows them, are the same on every run.
func goldenRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("GIT_AUTHOR_DATE", "2024-05-01T10:00:00Z")
	t.Setenv("GIT_COMMITTER_DATE", "2024-05-01T10:00:00Z")
	return reviewRepo(t)
}

// stable replaces what differs between runs, machines and cache
// versions: the repository's temporary path, the cache's size on disk and
// its schema number (which every change of the cache's tables bumps).
func stable(dir, s string) string {
	s = strings.ReplaceAll(s, dir, "$REPO")
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		s = strings.ReplaceAll(s, d, "$XDG_DATA_HOME")
	}
	s = regexp.MustCompile(`, schema \d+,`).ReplaceAllString(s, ", schema N,")
	return regexp.MustCompile(`\(\d+\.\d MB`).ReplaceAllString(s, "(N MB")
}

func TestCLIHumanOutputMatchesTheGoldenFiles(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"search", []string{"search", "pool connections per instance"}},
		{"search-type", []string{"search", "--type", "decision", "--limit", "2", "sql"}},
		{"list", []string{"list"}},
		{"list-all", []string{"list", "--all", "--type", "decision"}},
		{"recall", []string{"recall", "pool"}},
		{"status", []string{"status"}},
		{"review", []string{"review", "main..feature"}},
	}
	dir := goldenRepo(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inProcess(t, dir, "", tt.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			golden(t, tt.name, stable(dir, r.stdout))
		})
	}
}

func TestCLICommandLineMistakesExit2(t *testing.T) {
	dir := goldenRepo(t)
	tests := []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"an unknown subcommand", []string{"serach", "x"}, `unknown command "serach"`},
		{"an unknown subcommand suggests the closest", []string{"serach", "x"}, "Did you mean search?"},
		{"an unknown --type in search", []string{"search", "--type", "decison", "x"}, `did you mean "decision"`},
		{"an unknown --type in list", []string{"list", "--type", "nope"}, "--type"},
		{"an unknown --type in save", []string{"save", "--type", "nope", "x"}, "--type"},
		{"an unknown --type in update", []string{"update", "--type", "nope", "pool"}, "--type"},
		{"an unknown relation in update --link", []string{"update", "--link", "bogus:abcd1234", "pool"}, "--link"},
		{"a negative --limit in search", []string{"search", "--limit", "-1", "x"}, "--limit must be 0 or more"},
		{"a negative --limit in list", []string{"list", "-n", "-3"}, "--limit must be 0 or more"},
		{"a search --limit above the most a search returns", []string{"search", "--limit", "1000000000", "x"}, "--limit must be at most 1000"},
		{"index of a path outside the repository", []string{"index", "/etc"}, "outside the repository"},
		{"index of a path that does not exist", []string{"index", filepath.Join(dir, "nosuch", "dir")}, "no such file or folder"},
		{"an unknown flag", []string{"list", "--nope"}, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inProcess(t, dir, "", tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.inStderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 containing %q", r.code, r.stderr, tt.inStderr)
			}
		})
	}
	t.Run("code and commit are types for search", func(t *testing.T) {
		if r := inProcess(t, dir, "", "search", "--type", "code,commit", "pool"); r.code != exitOK {
			t.Errorf("exit %d, stderr %q; want 0", r.code, r.stderr)
		}
	})
	t.Run("no subcommand prints help and succeeds", func(t *testing.T) {
		if r := inProcess(t, dir, ""); r.code != exitOK || !strings.Contains(r.stdout, "Available Commands") {
			t.Errorf("exit %d, stdout %q; want 0 and the help", r.code, r.stdout)
		}
	})
}

// A command stopped by Ctrl-C (its context cancelled) exits 130, as a
// shell reports it, not 1 as a failure.
func TestAnInterruptedCommandExits130(t *testing.T) {
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	testgit.Run(t, dir, "add", "main.go")
	testgit.Run(t, dir, "commit", "-qm", "main")
	for _, kv := range testgit.Env() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, v)
		}
	}
	t.Setenv("CONTEXTFS_WATCH", "off")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ios, _, _, errOut := iostreams.Test()
	if code := (&app{io: ios}).run(ctx, []string{"-C", dir, "index", "--full"}); code != exitInterrupted {
		t.Fatalf("interrupted index: exit %d, want %d\n%s", code, exitInterrupted, errOut)
	}
}

// readyReader is standard input that says when a command first reads it.
type readyReader struct {
	io.Reader
	once  sync.Once
	ready chan struct{}
}

func (r *readyReader) Read(p []byte) (int, error) {
	r.once.Do(func() { close(r.ready) })
	return r.Reader.Read(p)
}

// Ctrl-C during a command's run cancels it: exit 130, nothing saved.
// Without the handler runInterruptible arms, the signal would kill the
// test.
func TestCtrlCWhileACommandRunsExits130(t *testing.T) {
	dir := testgit.Init(t)
	for _, kv := range testgit.Env() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, v)
		}
	}
	t.Setenv("CONTEXTFS_WATCH", "off")
	pr, pw := io.Pipe()
	in := &readyReader{Reader: pr, ready: make(chan struct{})}
	_, _, out, errOut := iostreams.Test()
	a := &app{io: &iostreams.IOStreams{In: in, Out: out, ErrOut: errOut}}
	done := make(chan int)
	go func() { done <- a.runInterruptible([]string{"-C", dir, "save", "--type", "fact", "-"}) }()
	<-in.ready // the command runs, so the handler is armed
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The handler cancels the context from a goroutine of its own: give
	// it the time, then let the save read its input and see it.
	time.Sleep(time.Second)
	pw.Write([]byte("A fact typed before Ctrl-C.\n"))
	pw.Close()
	if code := <-done; code != exitInterrupted {
		t.Fatalf("exit %d, want %d\nstderr: %s", code, exitInterrupted, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "*", "*.md")); len(files) > 0 {
		t.Fatalf("an interrupted save wrote %v", files)
	}
}

// Printing the version or help runs nothing to stop, so it arms no
// interrupt handler (its threads were a sixth of --version's CPU); every
// command does.
func TestOnlyVersionAndHelpGoWithoutAnInterruptHandler(t *testing.T) {
	for _, tc := range []struct {
		args []string
		arm  bool
	}{
		{nil, false},
		{[]string{"--version"}, false},
		{[]string{"-h"}, false},
		{[]string{"save", "-h"}, false},
		{[]string{"-C", "dir", "search", "--help"}, false},
		{[]string{"save", "a fact"}, true},
		{[]string{"-C", "dir", "list"}, true},
		{[]string{"help", "search"}, true},
		{[]string{"search", "-h", "pool"}, true},
	} {
		if got := runsACommand(tc.args); got != tc.arm {
			t.Errorf("runsACommand(%q) = %v, want %v", tc.args, got, tc.arm)
		}
	}
}
