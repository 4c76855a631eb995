//go:build linux

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// gitLogger puts a program named git first on PATH that appends its
// arguments to a log and runs the real git, and returns the PATH entry
// and a function reading (and emptying) the log.
func gitLogger(t *testing.T) (path string, log func() []string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "git.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + logFile + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	path = "PATH=" + dir + string(os.PathListSeparator) + binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	return path, func() []string {
		b, _ := os.ReadFile(logFile)
		os.Remove(logFile)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
}

// backdateTree sets the modification time of every file under the roots
// an hour back (not the cache's): the state of a repository nobody
// touched in the last seconds, where file times can stand for contents
// (git's racy window is over).
func backdateTree(t *testing.T, roots ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == "contextfs" && filepath.Base(filepath.Dir(p)) == ".git" {
				return fs.SkipDir
			}
			if d.Type().IsRegular() || d.IsDir() {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
}

// TestASecondSearchStartsNoGitProcess runs searches and a context block
// with a user store, cold and through the watcher, and logs every git
// process they start: once the repositories are as they were at the
// previous command, none. (Opening the user store used to ask git three
// times whether the merge driver was registered: rev-parse, config and
// check-attr, at every command.)
func TestASecondSearchStartsNoGitProcess(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	path, gitLog := gitLogger(t)
	data := t.TempDir()
	env := []string{path, "XDG_DATA_HOME=" + data}
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "pool.go", "package db\n\n// Pool opens the connection pool.\nfunc Pool() {}\n")
	for _, args := range [][]string{
		{"init"},
		{"save", "--type", "fact", "The deploy bot posts to the releases channel."},
		{"save", "--scope", "user", "--type", "preference", "I review deploy scripts before merging."},
	} {
		if r := runBin(t, bin, dir, append(env, "CONTEXTFS_WATCH=off"), args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "base")

	tests := []struct {
		name string
		env  []string
		args []string
	}{
		{"cold search", []string{"CONTEXTFS_WATCH=off"}, []string{"search", "deploy"}},
		{"cold context", []string{"CONTEXTFS_WATCH=off"}, []string{"context"}},
		{"warm search", []string{"CONTEXTFS_WARM=only"}, []string{"search", "deploy"}},
		{"warm context", []string{"CONTEXTFS_WARM=only"}, []string{"context"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env[0] == "CONTEXTFS_WARM=only" {
				if r := runBin(t, bin, dir, env, "watch", "start"); r.code != 0 {
					t.Fatalf("watch start: exit %d: %s", r.code, r.stderr)
				}
				t.Cleanup(func() { runBin(t, bin, dir, env, "watch", "stop") })
			}
			run := func() {
				t.Helper()
				r := runBin(t, bin, dir, append(env, tt.env...), tt.args...)
				if r.code != 0 || !strings.Contains(r.stdout, "deploy") {
					t.Fatalf("%v: exit %d\n%s%s", tt.args, r.code, r.stdout, r.stderr)
				}
			}
			run()
			backdateTree(t, dir, data)
			run() // may look again: the files' times changed
			gitLog()
			run()
			if log := gitLog(); len(log) > 0 {
				t.Errorf("the second %s started git %d times: %q", tt.name, len(log), log)
			}
		})
	}
}
