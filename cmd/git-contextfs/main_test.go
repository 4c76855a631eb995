package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// binDir holds the git-contextfs binary built once for all CLI tests; it is
// first on PATH so `git contextfs` and the hooks run it.
var binDir string

func TestMain(m *testing.M) {
	if os.Getenv("CONTEXTFS_TEST_VERSION_ALLOCS") == "1" {
		os.Exit(m.Run()) // the child of TestVersionDoesNotBuildTheLexicon needs no binary
	}
	if argv := os.Getenv(rssRunEnv); argv != "" {
		os.Exit(rssLaunch(argv)) // a launcher that measures a command's peak RSS
	}
	dir, err := os.MkdirTemp("", "contextfs-cli-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	// No test reads or writes the developer's own user store or config;
	// tests of scopes point these at their own temp dirs.
	os.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	os.Unsetenv("CONTEXTFS_USER_DIR")
	// The three programs, side by side as make install puts them: the CLI
	// runs the MCP server beside it for `git-contextfs mcp`, and both run
	// git-contextfs-embed for provider openai.
	// -buildvcs=false: the programs then report the version this test
	// binary has (dev), as go test stamps none, whatever the checkout.
	args := []string{"build", "-tags", "sqlite_fts5", "-buildvcs=false", "-o", dir + string(filepath.Separator)}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".", "../git-contextfs-mcp", "../git-contextfs-embed")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build git-contextfs, git-contextfs-mcp and git-contextfs-embed:", err)
		os.Exit(1)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is a finished CLI run.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs `git-contextfs args...` in dir as a real process.
func cli(t testing.TB, dir string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
	cmd.Dir = dir
	cmd.Env = testgit.Env()
	cmd.Stdin = strings.NewReader(stdin)
	return runProcess(t, cmd)
}

// runProcess runs cmd with its output captured. It fails the test only
// when the program could not be run: an exit code is the result's.
func runProcess(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", cmd.Args, err)
	}
	return r
}

// ok runs the CLI and fails the test unless it exits 0.
func ok(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := cli(t, dir, "", args...)
	if r.code != 0 {
		t.Fatalf("git-contextfs %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func decodeJSON(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
}
