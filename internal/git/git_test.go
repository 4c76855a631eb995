package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestRunReturnsStandardOutput(t *testing.T) {
	dir := testgit.Init(t)
	out, err := git.Run(context.Background(), dir, "rev-parse", "--is-inside-work-tree")
	if err != nil || string(out) != "true\n" {
		t.Fatalf("Run = %q, %v; want \"true\\n\", nil", out, err)
	}
	s, err := git.Output(context.Background(), dir, "rev-parse", "--is-inside-work-tree")
	if err != nil || s != "true" {
		t.Fatalf("Output = %q, %v; want \"true\", nil", s, err)
	}
}

func TestAFailureIsATypedErrorWithExitCodeStderrAndArgs(t *testing.T) {
	dir := testgit.Init(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stderr   string
	}{
		{"unset config key exits 1 and says nothing", []string{"config", "--get", "no.such"}, 1, ""},
		{"unknown revision exits 128 with git's message", []string{"rev-parse", "--verify", "nope^{commit}"}, 128, "fatal: Needed a single revision"},
		{"unknown command exits 1 with git's message", []string{"no-such-command"}, 1, "is not a git command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := git.Run(context.Background(), dir, tt.args...)
			var ge *git.Error
			if !errors.As(err, &ge) {
				t.Fatalf("error %v (%T), want *git.Error", err, err)
			}
			if ge.ExitCode != tt.wantCode || git.ExitCode(err) != tt.wantCode {
				t.Errorf("exit code %d (ExitCode %d), want %d", ge.ExitCode, git.ExitCode(err), tt.wantCode)
			}
			if !slices.Equal(ge.Args, tt.args) || ge.Dir != dir {
				t.Errorf("args %q in %q, want %q in %q", ge.Args, ge.Dir, tt.args, dir)
			}
			if !strings.Contains(ge.Stderr, tt.stderr) || tt.stderr == "" && ge.Stderr != "" {
				t.Errorf("stderr %q, want it to hold %q", ge.Stderr, tt.stderr)
			}
			if !strings.HasPrefix(err.Error(), "git "+strings.Join(tt.args, " ")+" (in "+dir+"): ") {
				t.Errorf("message %q does not name the command and directory", err)
			}
		})
	}
}

func TestExitCodeOfOtherErrors(t *testing.T) {
	if got := git.ExitCode(nil); got != 0 {
		t.Errorf("ExitCode(nil) = %d, want 0", got)
	}
	if got := git.ExitCode(errors.New("not git")); got != -1 {
		t.Errorf("ExitCode(other) = %d, want -1", got)
	}
}

func TestACancelledCommandUnwrapsToTheContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := git.Run(ctx, t.TempDir(), "version")
	if !errors.Is(err, context.Canceled) || git.ExitCode(err) != -1 {
		t.Fatalf("error %v (exit %d), want context.Canceled and exit -1", err, git.ExitCode(err))
	}
}

func TestCmdPassesEnvironmentAndStdin(t *testing.T) {
	dir := testgit.Init(t)
	c := git.Cmd{Dir: dir, Env: append(testgit.Env(), "GIT_AUTHOR_NAME=Grace Hopper"), Stdin: strings.NewReader("hello\n")}
	oid, err := c.Output(context.Background(), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	who, err := c.Output(context.Background(), "var", "GIT_AUTHOR_IDENT")
	if err != nil || !strings.HasPrefix(who, "Grace Hopper ") {
		t.Errorf("author %q, %v; want the environment's Grace Hopper", who, err)
	}
	blobs, err := git.Cmd{Dir: dir}.ReadBlobs(context.Background(), []string{oid, "", oid, strings.Repeat("1", len(oid))})
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 1 || string(blobs[oid]) != "hello\n" {
		t.Errorf("ReadBlobs = %q, want only the one blob, read once, missing ones left out", blobs)
	}
}

func TestReadBlobsLeavesOutObjectsThatAreNotBlobs(t *testing.T) {
	dir := testgit.Init(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", "a.txt")
	testgit.Run(t, dir, "commit", "-q", "-m", "a")
	tree := testgit.Run(t, dir, "rev-parse", "HEAD^{tree}")
	blob := testgit.Run(t, dir, "rev-parse", "HEAD:a.txt")
	blobs, err := git.Cmd{Dir: dir}.ReadBlobs(context.Background(), []string{tree, blob})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := blobs[tree]; ok || string(blobs[blob]) != "a\n" {
		t.Errorf("ReadBlobs = %q, want the blob and not the tree", blobs)
	}
}

func TestCombinedInterleavesBothStreams(t *testing.T) {
	out, err := git.Cmd{Dir: t.TempDir()}.Combined(context.Background(), "rev-parse", "--verify", "HEAD")
	if err == nil || !strings.Contains(string(out), "fatal:") {
		t.Errorf("Combined = %q, %v; want git's message on stderr in the output, and an error", out, err)
	}
}

// TestReadBlobsUpToStreamsPastLargeBlobs reads blobs of many sizes, some
// over the limit, among an empty blob and a missing object: those within
// it come back whole, those over it only by size, and the heap does not
// grow by the large one's size.
func TestReadBlobsUpToStreamsPastLargeBlobs(t *testing.T) {
	dir := testgit.Init(t)
	write := func(content string) string {
		c := git.Cmd{Dir: dir, Stdin: strings.NewReader(content)}
		oid, err := c.Output(context.Background(), "hash-object", "-w", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		return oid
	}
	small, empty := write("small\n"), write("")
	edge := write(strings.Repeat("e", 99) + "\n") // exactly the limit
	big := write(strings.Repeat("b\n", 8<<20))    // 16 MiB
	missing := strings.Repeat("1", len(small))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	blobs, over, err := git.Cmd{Dir: dir}.ReadBlobsUpTo(context.Background(), []string{small, big, empty, missing, edge}, 100)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if string(blobs[small]) != "small\n" || len(blobs[edge]) != 100 || blobs[empty] == nil || len(blobs[empty]) != 0 {
		t.Errorf("blobs within the limit: %q", blobs)
	}
	if _, ok := blobs[big]; ok || over[big] != 16<<20 || len(over) != 1 {
		t.Errorf("over = %v, want only the big blob with its size", over)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 8<<20 {
		t.Errorf("reading allocated %d bytes: the big blob was buffered", grown)
	}
}
