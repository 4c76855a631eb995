package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// mcpSaveSession is what an agent writes to a stdio MCP server to save one
// memory; the server answers every request it read before the input ends.
const mcpSaveSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"save_memory","arguments":{"type":"fact","content":"The MCP server is a program of its own beside the CLI."}}}
`

// checkSaved checks the answers to mcpSaveSession and that the memory is a
// file of the repository at dir.
func checkSaved(t *testing.T, dir, stdout, stderr string) {
	t.Helper()
	var replies []rpcReply
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r rpcReply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a line that is not JSON-RPC: %q (%v)\nstderr: %s", line, err, stderr)
		}
		replies = append(replies, r)
	}
	if len(replies) != 2 || replies[0].Error != nil || replies[1].Error != nil {
		t.Fatalf("want two answers without error, got:\n%s\nstderr: %s", stdout, stderr)
	}
	if !strings.Contains(string(replies[0].Result), `"version":"`+version()+`"`) {
		t.Errorf("the server does not report the CLI's version %q: %s", version(), replies[0].Result)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "*", "*.md"))
	if len(files) != 1 {
		t.Fatalf("memory files in %s: %v; want the one saved\nstderr: %s", dir, files, stderr)
	}
}

// `git-contextfs mcp` serves through git-contextfs-mcp, installed beside
// it, with the repository that -C names: as the process an agent starts
// (which the server program replaces) and in-process (a child).
func TestMCPCommandRunsTheServerProgramBesideIt(t *testing.T) {
	t.Run("process", func(t *testing.T) {
		dir := testgit.Init(t)
		cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "-C", dir, "mcp")
		cmd.Dir = t.TempDir() // not the repository: -C names it
		cmd.Env = append(testgit.Env(), "CONTEXTFS_WATCH=off")
		cmd.Stdin = strings.NewReader(mcpSaveSession)
		r := runProcess(t, cmd)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		checkSaved(t, dir, r.stdout, r.stderr)
	})
	t.Run("in-process", func(t *testing.T) {
		dir := testgit.Init(t)
		r := inProcess(t, dir, mcpSaveSession, "mcp")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		checkSaved(t, dir, r.stdout, r.stderr)
	})
}

// aloneCLI copies git-contextfs into a folder of its own and returns it
// with an environment whose PATH has git but no git-contextfs-mcp: an
// install that lacks the server program.
func aloneCLI(t *testing.T) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	exe, err := os.ReadFile(filepath.Join(binDir, "git-contextfs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "git-contextfs"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range testgit.Env() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return dir, append(env, "PATH=/usr/bin:/bin")
}

// A git-contextfs installed without its server program says which program
// is missing, where it looked and how to install it: when the agent runs
// `git contextfs mcp` (exit 1), and already when setup registers it
// (a warning; the setup itself is done).
func TestMCPCommandNamesAMissingServerProgram(t *testing.T) {
	alone, env := aloneCLI(t)
	dir := testgit.Init(t)
	wants := []string{"git-contextfs-mcp is not installed in " + alone, "make install", "go install -tags sqlite_fts5 github.com/contextfs/contextfs/cmd/git-contextfs-mcp@latest"}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"mcp", []string{"mcp"}, exitFail},
		{"setup", []string{"setup", "claude", "--dry-run"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(alone, "git-contextfs"), tc.args...)
			cmd.Dir, cmd.Env = dir, env
			r := runProcess(t, cmd)
			for _, want := range wants {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if r.code != tc.code {
				t.Errorf("exit %d, want %d", r.code, tc.code)
			}
			if tc.name == "mcp" && r.stdout != "" {
				t.Errorf("stdout %q: it carries only the protocol", r.stdout)
			}
		})
	}
	t.Run("setup with the server installed says nothing of it", func(t *testing.T) {
		if r := cli(t, dir, "", "setup", "claude", "--dry-run"); r.code != 0 || strings.Contains(r.stderr, "git-contextfs-mcp") {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
}

// A git-contextfs installed without git-contextfs-embed, in a repository
// whose embedder is provider openai, says which program is missing and how
// to install it when it first needs a vector; what needs none still works.
func TestOpenAIProviderNamesAMissingEmbedProgram(t *testing.T) {
	alone, env := aloneCLI(t)
	dir := testgit.Init(t)
	env = append(env, "CONTEXTFS_WATCH=off", "CONTEXTFS_EMBEDDER=openai", "CONTEXTFS_EMBED_URL=http://127.0.0.1:1/v1")
	run := func(args ...string) result {
		cmd := exec.Command(filepath.Join(alone, "git-contextfs"), args...)
		cmd.Dir, cmd.Env = dir, env
		return runProcess(t, cmd)
	}
	r := run("search", "--mode", "semantic", "pooled connections")
	for _, want := range []string{"git-contextfs-embed is not installed in " + alone, "make install",
		"go install github.com/contextfs/contextfs/cmd/git-contextfs-embed@latest"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.code != exitFail {
		t.Errorf("exit %d, want %d", r.code, exitFail)
	}
	if r := run("list"); r.code != exitOK {
		t.Errorf("list: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// The server program's command line: its own mistakes exit 2, a missing
// folder 1, and a server started by a CLI of another version says so.
func TestMCPServerProgramCommandLine(t *testing.T) {
	dir := testgit.Init(t)
	for _, tc := range []struct {
		name   string
		args   []string
		env    string
		code   int
		stderr string
	}{
		{"an argument is a usage error", []string{"extra"}, "", exitUsage, `takes no arguments, got "extra"`},
		{"an unknown flag is a usage error", []string{"--bogus"}, "", exitUsage, "unknown flag: --bogus"},
		{"a missing folder is named", []string{"-C", filepath.Join(dir, "nope")}, "", exitFail, "nope: no such folder"},
		{"another CLI version is named", nil, "CONTEXTFS_CLI_VERSION=v0.0.0-other", exitOK, "warning: git-contextfs v0.0.0-other started git-contextfs-mcp " + version()},
		{"the same CLI version says nothing", nil, "CONTEXTFS_CLI_VERSION=" + version(), exitOK, ""},
		{"--version", []string{"--version"}, "", exitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, "git-contextfs-mcp"), tc.args...)
			cmd.Dir = dir
			cmd.Env = append(testgit.Env(), "CONTEXTFS_WATCH=off", tc.env)
			r := runProcess(t, cmd) // stdin is empty: the client has gone
			if r.code != tc.code || (tc.stderr == "") != (r.stderr == "") || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, tc.code, tc.stderr)
			}
		})
	}
}

// git-contextfs links neither the MCP SDK nor the server: Go initialises
// every package linked in, at every start of every command and hook. The
// server program does link them, which shows the check can see them.
func TestTheCLIDoesNotLinkTheMCPServer(t *testing.T) {
	deps := func(pkg string) string {
		out, err := exec.CommandContext(context.Background(), "go", "list", "-tags", "sqlite_fts5", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		return string(out)
	}
	const sdk, server = "github.com/modelcontextprotocol/go-sdk/mcp\n", "github.com/contextfs/contextfs/internal/mcpserver\n"
	const http, client = "\nnet/http\n", "github.com/contextfs/contextfs/internal/embed/openai\n"
	cli := deps(".")
	if strings.Contains(cli, sdk) || strings.Contains(cli, server) {
		t.Error("git-contextfs links the MCP server or the SDK")
	}
	if strings.Contains(cli, http) || strings.Contains(cli, client) {
		t.Error("git-contextfs links net/http or the openai client: they belong in git-contextfs-embed")
	}
	if d := deps("../git-contextfs-mcp"); !strings.Contains(d, sdk) || !strings.Contains(d, server) {
		t.Error("git-contextfs-mcp does not link the MCP server and the SDK")
	}
	if d := deps("../git-contextfs-embed"); !strings.Contains(d, http) || !strings.Contains(d, client) {
		t.Error("git-contextfs-embed does not link net/http and the openai client")
	}
}
