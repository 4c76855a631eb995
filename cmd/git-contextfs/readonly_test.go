package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestReadOnlyCacheIsUsedNotDeleted makes the cache unwritable for the
// process (another user's cache, as root; a read-only folder otherwise):
// search and list must answer from it with a notice, and the cache must
// still be there afterwards.
func TestReadOnlyCacheIsUsedNotDeleted(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "The pool holds twenty connections.")
	cacheDir := filepath.Join(dir, ".git", "contextfs")
	before, err := os.ReadFile(filepath.Join(cacheDir, "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
		cmd.Dir = dir
		cmd.Env = append(testgit.Env(), "CONTEXTFS_WATCH=off")
		if os.Getuid() == 0 {
			// Permission bits do not bind root: run as nobody, who may
			// read the repository but not write its cache.
			setpriv, err := exec.LookPath("setpriv")
			if err != nil {
				t.Fatalf("running as root needs setpriv to drop privileges: %v", err)
			}
			gitconfig := filepath.Join(t.TempDir(), "gitconfig")
			os.WriteFile(gitconfig, []byte("[safe]\n\tdirectory = *\n"), 0o644)
			os.Chmod(filepath.Dir(gitconfig), 0o755)
			cmd = exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", filepath.Join(binDir, "git-contextfs")}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(testgit.Env(), "CONTEXTFS_WATCH=off", "GIT_CONFIG_GLOBAL="+gitconfig, "HOME="+os.TempDir())
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if os.Getuid() == 0 {
		// nobody must be able to reach and read the repository.
		for p := dir; p != "/"; p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil {
				os.Chmod(p, fi.Mode().Perm()|0o005)
			}
		}
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				os.Chmod(p, fi.Mode().Perm()|0o004|(fi.Mode().Perm()&0o100)>>6)
			}
			return nil
		})
	} else {
		os.Chmod(filepath.Join(cacheDir, "cache.db"), 0o444)
		os.Chmod(cacheDir, 0o555)
		t.Cleanup(func() { os.Chmod(cacheDir, 0o755) })
	}
	for _, args := range [][]string{{"search", "pool"}, {"list"}} {
		out, stderr, err := run(args...)
		if err != nil || !strings.Contains(out, "pool") || !strings.Contains(stderr, "read-only") {
			t.Fatalf("%v: %v\nstdout: %s\nstderr: %s", args, err, out, stderr)
		}
	}
	// A memory written meanwhile is not in the cache: status says the
	// cache is stale and counts the files, rather than call it fresh.
	added := "---\nid: kangaroo01\ntype: fact\ntitle: Kangaroos\ncreated: 2025-01-01T00:00:00Z\nupdated: 2025-01-01T00:00:00Z\n---\nKangaroos hop.\n"
	if err := os.WriteFile(filepath.Join(dir, ".contextfs", "memories", "kangaroos-kangaroo01.md"), []byte(added), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := run("status")
	if err != nil || !strings.Contains(out, "memories    1 in 1 files as the cache last saw them; 2 files now") || !strings.Contains(out, "stale: it cannot be written") {
		t.Fatalf("status of a read-only cache: %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	out, stderr, err = run("status", "--json")
	var st struct {
		Files  int `json:"files"`
		OnDisk int `json:"files_on_disk"`
		Cache  struct {
			Fresh bool `json:"fresh"`
		} `json:"cache"`
	}
	if err != nil {
		t.Fatalf("status --json: %v\n%s", err, stderr)
	}
	decodeJSON(t, out, &st)
	if st.Cache.Fresh || st.Files != 1 || st.OnDisk != 2 {
		t.Fatalf("status --json of a read-only cache: %+v\n%s", st, out)
	}
	after, err := os.ReadFile(filepath.Join(cacheDir, "cache.db"))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the read-only cache was removed or changed (%v)", err)
	}
}
