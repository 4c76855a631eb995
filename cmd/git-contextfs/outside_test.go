package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// outsideDirs is a folder that is no git repository and a user store of
// its own (XDG_DATA_HOME), for a test run where an agent may start: a home
// folder.
func outsideDirs(t *testing.T) (dir string, env []string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "home")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// GIT_CEILING_DIRECTORIES keeps git from finding a repository above the
	// temporary folder (the test may run inside a checkout).
	env = []string{"XDG_DATA_HOME=" + filepath.Join(root, "data"), "XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"GIT_CEILING_DIRECTORIES=" + root}
	return dir, env
}

// cliCmd is the CLI run in dir with env added to the test environment.
func cliCmd(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
	cmd.Dir, cmd.Env = dir, append(testgit.Env(), env...)
	return cmd
}

// TestContextOutsideARepositoryServesTheUserStore: Claude Code's
// SessionStart hook runs `git contextfs context` wherever the session
// starts; outside a repository it printed an error and exited 1.
func TestContextOutsideARepositoryServesTheUserStore(t *testing.T) {
	dir, env := outsideDirs(t)
	run := func(args ...string) result {
		return runProcess(t, cliCmd(dir, env, args...))
	}
	if r := run("context"); r.code != 0 || !strings.Contains(r.stdout, "# Project memory") {
		t.Fatalf("context with no user store: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "data", "contextfs")); err == nil {
		t.Error("reading the block created a user store")
	}
	if r := run("save", "--type", "user", "Answer tersely, without preamble."); r.code != 0 {
		t.Fatalf("save: exit %d\n%s", r.code, r.stderr)
	}
	r := run("context", "--format", "json")
	if r.code != 0 {
		t.Fatalf("context: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Answer tersely") {
		t.Errorf("the user store's preference is not in the block:\n%s", r.stdout)
	}
}

// TestMCPServerOutsideARepositoryServesTheUserStore starts the MCP server
// in a folder that is no repository: it answers get_context and
// search_memory from the user store instead of exiting 1.
func TestMCPServerOutsideARepositoryServesTheUserStore(t *testing.T) {
	dir, env := outsideDirs(t)
	if r := runProcess(t, cliCmd(dir, env, "save", "--type", "user", "Answer tersely, without preamble.")); r.code != 0 {
		t.Fatalf("save: exit %d\n%s", r.code, r.stderr)
	}
	p := startMCPEnv(t, dir, env)
	p.initialize()
	for i, call := range []string{
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"get_context","arguments":{"task":"how should answers look"}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"terse answers"}}}`,
	} {
		p.send(call)
		text, isErr := toolText(t, p.next())
		if isErr || !strings.Contains(text, "Answer tersely") {
			t.Errorf("call %d: error %v, text:\n%s\nstderr: %s", i, isErr, text, p.stderr)
		}
	}
	// A save to the repository has nowhere to go: the tool error says so
	// in the tools' terms (the scope argument, --repo), not the CLI's flag.
	p.send(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"save_memory","arguments":{"type":"decision","content":"Always answer in English."}}}`)
	text, isErr := toolText(t, p.next())
	if !isErr || !strings.Contains(text, `pass scope "user"`) || !strings.Contains(text, "--repo") || strings.Contains(text, "--scope") {
		t.Errorf("save_memory outside a repository: error %v, text:\n%s", isErr, text)
	}
}

// TestDoctorOutsideARepositoryChecksTheUserStore: doctor outside any
// repository exited 1 with "not a git repository" while MCP check_setup,
// there, checked the user store. With a user store it now checks that
// (hooks: not a repository), without one it still says it is no
// repository and creates nothing.
func TestDoctorOutsideARepositoryChecksTheUserStore(t *testing.T) {
	dir, env := outsideDirs(t)
	run := func(args ...string) result {
		return runProcess(t, cliCmd(dir, env, args...))
	}
	if r := run("doctor"); r.code != 1 || !strings.Contains(r.stderr, "not a git repository") {
		t.Fatalf("doctor with no user store: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "data", "contextfs")); err == nil {
		t.Error("doctor created a user store")
	}
	if r := run("save", "--type", "user", "Answer tersely, without preamble."); r.code != 0 {
		t.Fatalf("save: exit %d\n%s", r.code, r.stderr)
	}
	r := run("doctor")
	for _, want := range []string{"hooks          not a repository", "user-store", "1 memories, all committed", "memories       1 memory file(s), all valid"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor outside a repository lacks %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
}
