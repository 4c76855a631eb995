package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// hugeSize is the size of the sparse memory file the limit tests write:
// reading it whole would cost 200 MB, twice the RSS bound they allow.
const (
	hugeSize = 200 << 20
	maxRSS   = 100 << 20
)

// writeHuge adds a 200 MB sparse memory file to the repository at dir and
// returns its work-tree relative path. A sparse file costs no disk, only
// whatever a reader that does not stat first spends on it.
func writeHuge(t *testing.T, dir string) string {
	t.Helper()
	rel := ".contextfs/memories/huge-hugehuge01.md"
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(p, hugeSize); err != nil {
		t.Fatal(err)
	}
	return rel
}

// The peak RSS of a command is read by a launcher: this test binary run
// again with rssRunEnv naming the command (as JSON) and rssOutEnv a file
// for the figure. Linux counts a process's peak from the memory of the
// one that started it (os/exec shares the parent's memory until exec), so
// a command started by this test binary, grown large by other tests,
// would report the test binary's size; the launcher is small.
const (
	rssRunEnv = "CONTEXTFS_TEST_RSS_RUN"
	rssOutEnv = "CONTEXTFS_TEST_RSS_OUT"
)

// rssLaunch is the launcher's whole run (TestMain calls it): it runs the
// command with this process's standard streams, writes the command's
// peak RSS in bytes to the file rssOutEnv names, and exits as it did.
func rssLaunch(argvJSON string) int {
	var argv []string
	if err := json.Unmarshal([]byte(argvJSON), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "rss launcher: bad command:", argvJSON)
		return 125
	}
	out := os.Getenv(rssOutEnv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, rssRunEnv+"=") && !strings.HasPrefix(kv, rssOutEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rss launcher:", err)
		return 126
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
		if runtime.GOOS == "linux" {
			rss <<= 10 // kilobytes on Linux, bytes on the BSDs and macOS
		}
	}
	if err := os.WriteFile(out, []byte(fmt.Sprint(rss)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rss launcher:", err)
		return 126
	}
	return cmd.ProcessState.ExitCode()
}

// measured makes cmd run through the launcher, and returns a function that
// reads the command's peak RSS once it has exited.
func measured(t *testing.T, cmd *exec.Cmd) func() int64 {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("rusage is a unix measure")
	}
	argv, err := json.Marshal(append([]string{cmd.Path}, cmd.Args[1:]...))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rss")
	cmd.Path, cmd.Args = os.Args[0], []string{os.Args[0]}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, rssRunEnv+"="+string(argv), rssOutEnv+"="+out)
	return func() int64 {
		t.Helper()
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("no peak RSS from the launcher: %v", err)
		}
		var n int64
		fmt.Sscan(string(b), &n)
		return n
	}
}

// TestReadersRefuseAnOversizedFileUnread runs each command that reads
// memory files on a repository holding a 200 MB sparse one. Each names the
// file and the limit; fmt exits 1 (the file cannot be formatted), graph
// draws the other memories and exits 0; none of them reads the file, so
// the process's peak RSS stays under 100 MB (fmt --check used 1.65 GB and
// exited 0 when it read files whole).
func TestReadersRefuseAnOversizedFileUnread(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("rusage is a unix measure")
	}
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "--title", "Small", "The build uses a shared cache.")
	rel := writeHuge(t, dir)
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // in stdout, when not ""
	}{
		{"fmt --check refuses it", []string{"fmt", "--check"}, 1, ""},
		{"fmt refuses it and writes nothing", []string{"fmt"}, 1, ""},
		{"fmt of the file named refuses it", []string{"fmt", "--check", rel}, 1, ""},
		{"fmt --json reports it as a size problem", []string{"fmt", "--check", "--json"}, 1, `"rule": "size"`},
		{"graph leaves it out and draws the rest", []string{"graph"}, 0, "Small"},
		{"validate reports it", []string{"validate"}, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), c.args...)
			cmd.Dir, cmd.Env = dir, testgit.Env()
			peakRSS := measured(t, cmd)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
				t.Fatal(err)
			}
			all := out.String() + errb.String()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out.String(), errb.String())
			}
			if !strings.Contains(all, "huge-hugehuge01.md") || !strings.Contains(all, "limited to") || !strings.Contains(all, "max_file_bytes") {
				t.Errorf("the file and the limit are not named\nstdout: %s\nstderr: %s", out.String(), errb.String())
			}
			if c.stdout != "" && !strings.Contains(out.String(), c.stdout) {
				t.Errorf("stdout lacks %q:\n%s", c.stdout, out.String())
			}
			if rss := peakRSS(); rss > maxRSS {
				t.Errorf("peak RSS %d MB, want under %d MB", rss>>20, maxRSS>>20)
			}
		})
	}
	if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || fi.Size() != hugeSize {
		t.Errorf("the oversized file was changed: %v, %v", fi, err)
	}
}

// initialize runs the MCP handshake.
func (p *mcpProc) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := p.next(); r.Error != nil {
		p.t.Fatalf("initialize: %+v", r.Error)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// toolText is the text of a tools/call result, and whether it is an error.
func toolText(t *testing.T, r rpcReply) (string, bool) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("reply %s: json-rpc error %+v", r.ID, r.Error)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("reply %s: %v: %s", r.ID, err, r.Result)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String(), res.IsError
}

// TestMCPFormatMemoriesRefusesAnOversizedFileAndServesOn calls
// format_memories on a repository holding a 200 MB sparse memory file,
// over all files and over that one: each answer names the file and the
// limit, the server answers the next call, and its peak RSS stays under
// 100 MB (an 8 GB file killed it, unanswered, when it read files whole).
func TestMCPFormatMemoriesRefusesAnOversizedFileAndServesOn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("rusage is a unix measure")
	}
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "--title", "Small", "The build uses a shared cache.")
	rel := writeHuge(t, dir)
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "mcp")
	cmd.Dir, cmd.Env = dir, testgit.Env()
	peakRSS := measured(t, cmd)
	p := startMCPCmd(t, cmd)
	p.initialize()
	calls := []struct {
		name string
		args string
	}{
		{"every file, check only", `{"check":true}`},
		{"every file, writing", `{}`},
		{"the file named", fmt.Sprintf(`{"path":[%q],"check":true}`, rel)},
	}
	for i, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			p.t = t
			id := 10 + i
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"format_memories","arguments":%s}}`, id, c.args))
			text, _ := toolText(t, p.next())
			if !strings.Contains(text, rel) || !strings.Contains(text, "limited to") {
				t.Errorf("the answer does not name the file and the limit:\n%s", text)
			}
			p.ping(100 + i)
		})
	}
	p.t = t
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr: %s", err, p.stderr)
	}
	if rss := peakRSS(); rss > maxRSS {
		t.Errorf("peak RSS of the server %d MB, want under %d MB", rss>>20, maxRSS>>20)
	}
}

// TestPreCommitRefusesAStagedOversizedFileUnread stages a 200 MB memory
// file: the pre-commit hook names it and the limit and exits 1, and
// neither it nor the git it runs holds the file in memory (git streams a
// blob over the limit past the reader: git.Cmd.ReadBlobsUpTo).
func TestPreCommitRefusesAStagedOversizedFileUnread(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("rusage is a unix measure")
	}
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "--title", "Small", "The build uses a shared cache.")
	rel := writeHuge(t, dir)
	testgit.Run(t, dir, "add", "-A")
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "hook", "pre-commit")
	cmd.Dir, cmd.Env = dir, testgit.Env()
	peakRSS := measured(t, cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "huge-hugehuge01.md") || !strings.Contains(out.String(), "limited to") {
		t.Errorf("the file %s and the limit are not named:\n%s", rel, out.String())
	}
	if rss := peakRSS(); rss > maxRSS {
		t.Errorf("peak RSS %d MB, want under %d MB", rss>>20, maxRSS>>20)
	}
}
