package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestRepoFlagTakesRelativePathsFromItsFolder: as with git -C DIR, a
// relative PATH argument or path-valued flag given after -C DIR (--repo)
// is read from DIR, as if the command had been started there; an absolute
// one is left as it is. Before, index and validate (and repos add/remove,
// man, merge-driver) read relative paths from the current folder: validate
// failed with "no such file or directory", index with "outside the
// repository". The current folder holds decoys at the same relative paths,
// so a path read from the wrong folder cannot pass by chance.
func TestRepoFlagTakesRelativePathsFromItsFolder(t *testing.T) {
	isolateScopes(t) // repos add/remove write the user's config
	top := t.TempDir()
	repo := filepath.Join(top, "r")
	testgit.Run(t, top, "init", "-q", "-b", "main", "r")
	testgit.Run(t, repo, "config", "user.name", "Ada Lovelace")
	testgit.Run(t, repo, "config", "user.email", "ada@example.com")
	ok(t, repo, "init")
	const mem = ".contextfs/memories/"
	src := "package pool\n\n// Acquire takes a connection from the pool, waiting until one is free.\nfunc Acquire() {}\n"
	writeFile(t, repo, "pool/pool.go", src)
	writeFile(t, repo, mem+"good0001.md", testgit.Memory("good0001", "paths:\n  - pool/*.go\n", "The pool holds twenty connections.\n"))
	writeFile(t, repo, mem+"bad00001.md", strings.Replace(testgit.Memory("bad00001", "", "Body.\n"), "type: fact", "type: nosuchtype", 1))
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "base")
	// Decoys: the same relative paths, read from the current folder, are
	// outside the repository (and the memory is invalid).
	writeFile(t, top, mem+"good0001.md", "not a memory\n")
	writeFile(t, top, "pool/pool.go", src)
	writeFile(t, top, "outside.go", "package outside\n")
	// The repository named through a symbolic link.
	if err := os.Symlink(repo, filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	// Three versions of a memory for the merge driver: theirs changed
	// the body, so the merge is theirs.
	base := testgit.Memory("merge001", "", "Old body.\n")
	theirs := testgit.Memory("merge001", "", "New body.\n")
	writeFile(t, repo, "m/base.md", base)
	writeFile(t, repo, "m/ours.md", base)
	writeFile(t, repo, "m/theirs.md", theirs)

	indexed := func(t *testing.T, stdout string) {
		var res struct {
			Files, Parsed int
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Files != 1 {
			t.Errorf("index --json: %+v (%v), want the one file indexed\n%s", res, err, stdout)
		}
	}
	tests := []struct {
		name   string
		cwd    string // relative to top
		args   []string
		code   int
		stdout string // held by stdout
		stderr string // held by stderr
		check  func(t *testing.T, stdout string)
	}{
		{name: "validate a relative file", args: []string{"-C", "r", "validate", mem + "good0001.md"},
			stderr: "1 memory file(s) valid"},
		{name: "validate an invalid file names it", args: []string{"-C", "r", "validate", mem + "bad00001.md"},
			code: exitFail, stdout: mem + "bad00001.md:"},
		{name: "validate with --repo=DIR", args: []string{"--repo=r", "validate", "--json", mem + "good0001.md"},
			stdout: `"files": 1`},
		{name: "validate from a sub-folder of the repository", args: []string{"-C", "r/.contextfs", "validate", "memories/good0001.md"},
			stderr: "1 memory file(s) valid"},
		{name: "validate with a path up and down", cwd: "pool", args: []string{"-C", "../r/pool", "validate", "../" + mem + "good0001.md"},
			stderr: "1 memory file(s) valid"},
		{name: "validate of a missing file names it as given", args: []string{"-C", "r", "validate", "nosuch.md"},
			code: exitFail, stderr: "validate nosuch.md: no such file or directory"},
		{name: "a -C folder that does not exist is named before any path", args: []string{"-C", "nosuch", "validate", mem + "good0001.md"},
			code: exitFail, stderr: "nosuch: no such folder"},
		{name: "validate an absolute path", cwd: "pool", args: []string{"-C", "../r", "validate", filepath.Join(repo, mem, "good0001.md")},
			stderr: "1 memory file(s) valid"},
		{name: "index a relative file", args: []string{"-C", "r", "index", "--json", "pool/pool.go"}, check: indexed},
		{name: "index a relative folder", args: []string{"-C", "r", "index", "--json", "pool"}, check: indexed},
		{name: "index from a sub-folder of the repository", args: []string{"-C", "r/pool", "index", "--json", "pool.go"}, check: indexed},
		{name: "index through a symbolic link", args: []string{"-C", "link", "index", "--json", "pool/pool.go"}, check: indexed},
		{name: "index an absolute path", args: []string{"-C", "r", "index", "--json", filepath.Join(repo, "pool")}, check: indexed},
		{name: "index of a missing file names it as given", args: []string{"-C", "r", "index", "nosuch.go"},
			code: exitUsage, stderr: "index nosuch.go: no such file or folder"},
		{name: "index of a file outside the repository", args: []string{"-C", "r", "index", "../outside.go"},
			code: exitUsage, stderr: "index ../outside.go: outside the repository"},
		// Guards: these passed before -C reached every command's paths.
		{name: "fmt a relative file", args: []string{"-C", "r", "fmt", "--check", mem + "good0001.md"}},
		{name: "list --path a relative file", args: []string{"-C", "r", "list", "--path", "pool/pool.go"}, stdout: "good0001"},
		{name: "search --path from a sub-folder", args: []string{"-C", "r/pool", "search", "--path", "pool.go"}, stdout: "good0001"},
		{name: "repos add a relative folder", args: []string{"-C", "r", "repos", "add", "--name", "here", "."},
			stdout: "registered here"},
		{name: "repos remove a relative folder", args: []string{"-C", "r", "repos", "remove", "."},
			stdout: "removed here"},
		{name: "merge-driver reads and writes relative files", args: []string{"-C", "r", "merge-driver", "m/base.md", "m/ours.md", "m/theirs.md", mem + "merge001.md"},
			check: func(t *testing.T, _ string) {
				if got := readFile(t, repo, "m/ours.md"); got != theirs {
					t.Errorf("merge-driver left r/m/ours.md\n%s\nwant their version\n%s", got, theirs)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, filepath.Join(top, tt.cwd), "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("%v in %s: exit %d, want %d with %q in stdout and %q in stderr\nstdout: %s\nstderr: %s",
					tt.args, filepath.Join(top, tt.cwd), r.code, tt.code, tt.stdout, tt.stderr, r.stdout, r.stderr)
			}
			if tt.check != nil {
				tt.check(t, r.stdout)
			}
		})
	}
}
