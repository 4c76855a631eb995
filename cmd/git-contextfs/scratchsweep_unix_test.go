//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestKilledWritersScratchFilesAreSweptWhenNoOneHoldsThem: a rebuild
// killed mid-way leaves its vector scratch file (docs-KIND.vectors-*, a
// gigabyte at a million documents) in the git directory's contextfs
// folder, and a killed save of the tracked-file list its .tracked-* file.
// The next open of the cache (any command), and the next save of the list
// (index), remove them — but never one a live process holds (its flock),
// nor one so young its writer may not have locked it yet.
func TestKilledWritersScratchFilesAreSweptWhenNoOneHoldsThem(t *testing.T) {
	old := time.Now().Add(-2 * time.Hour)
	tests := []struct {
		name     string
		file     string
		mtime    time.Time
		held     bool // this test process, alive, holds the file's flock
		run      []string
		wantGone bool
	}{
		{"an old unheld vector scratch file goes on the next open", "docs-code.vectors-12345", old, false, []string{"list"}, true},
		{"an old unheld memory vector scratch file goes on the next open", "docs-memory.vectors-987", old, false, []string{"status"}, true},
		{"a held vector scratch file stays, however old", "docs-code.vectors-555", old, true, []string{"list"}, false},
		{"a young vector scratch file stays", "docs-code.vectors-777", time.Now(), false, []string{"list"}, false},
		{"an old unheld tracked-list temporary file goes on the next save", ".tracked-4242", old, false, []string{"index"}, true},
		{"a held tracked-list temporary file stays", ".tracked-4343", old, true, []string{"index"}, false},
		{"the database is not a scratch file", "docs-code.base", old, false, []string{"list"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := testgit.Init(t)
			writeFile(t, dir, "main.go", "package main\n\nfunc main() {}\n")
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "code")
			ok(t, dir, "init")
			// An index older than git's racy window: the tracked-file
			// list made from it is saved (autoindex's trust rule).
			if err := os.Chtimes(filepath.Join(dir, ".git", "index"), old, old); err != nil {
				t.Fatal(err)
			}
			cacheDir := filepath.Join(dir, ".git", "contextfs")
			if err := os.MkdirAll(cacheDir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(cacheDir, tc.file)
			if err := os.WriteFile(path, []byte("left by a killed writer"), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.held {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chtimes(path, tc.mtime, tc.mtime); err != nil {
				t.Fatal(err)
			}
			ok(t, dir, tc.run...)
			_, err := os.Stat(path)
			if gone := os.IsNotExist(err); gone != tc.wantGone {
				t.Errorf("after %v: %s gone %v, want %v (stat: %v)", tc.run, tc.file, gone, tc.wantGone, err)
			}
			if tc.run[0] == "index" {
				if _, err := os.Stat(filepath.Join(cacheDir, "tracked")); err != nil {
					t.Errorf("index saved no tracked-file list, so the sweep was not exercised: %v", err)
				}
			}
		})
	}
}
