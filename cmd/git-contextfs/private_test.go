//go:build linux

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// umaskCLI runs git-contextfs in dir under the usual umask 022 (whatever
// the test's own is), with env added: modes then come from the program,
// not from a strict umask.
func umaskCLI(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `umask 022 && exec "$0" "$@"`, filepath.Join(binDir, "git-contextfs")}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	return runProcess(t, cmd)
}

// openToOthers lists what under root group or others may read, write or
// enter (links aside: their mode means nothing).
func openToOthers(t *testing.T, root string) []string {
	t.Helper()
	var open []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 && fi.Mode().Perm()&0o077 != 0 {
			open = append(open, fi.Mode().Perm().String()+" "+p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return open
}

// TestTheUserStoreIsPrivate: the user store holds what a person keeps for
// themselves, so with the usual umask its folders are created 0700 and
// its files 0600: the memory files, its git repository and its cache,
// after saves, searches and the commits they make. The cache folder in a
// repository's git directory is 0700 as well.
func TestTheUserStoreIsPrivate(t *testing.T) {
	dir := testgit.Init(t)
	home := t.TempDir()
	env := []string{"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "CONTEXTFS_WATCH=off"}
	for _, args := range [][]string{
		{"save", "--type", "user", "Prefers terse answers"},
		{"save", "--scope", "user", "--type", "decision", "--tag", "editor", "Use tabs in private scripts"},
		{"search", "--scope", "all", "terse"},
		{"list", "--scope", "user"},
		{"save", "--type", "fact", "The repository's own fact."},
	} {
		if r := umaskCLI(t, dir, env, args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	user := filepath.Join(home, "data", "contextfs", "user")
	if open := openToOthers(t, user); len(open) > 0 {
		t.Errorf("%d path(s) of the user store open to other users, first %q", len(open), open[:min(5, len(open))])
	}
	for _, d := range []string{filepath.Join(dir, ".git", "contextfs"), filepath.Join(user, ".git", "contextfs")} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("cache folder %s: mode %v (%v), want 0700", d, fi.Mode().Perm(), err)
		}
	}
}

// TestDoctorMakesAnOpenUserStorePrivate: a user store that other users
// can read (made by an earlier release, or opened up by hand) fails
// doctor, naming it; doctor --fix makes it private, says so, and the
// store's later writes (a save, its commit) stay private.
func TestDoctorMakesAnOpenUserStorePrivate(t *testing.T) {
	dir := testgit.Init(t)
	home := t.TempDir()
	env := []string{"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "CONTEXTFS_WATCH=off"}
	if r := umaskCLI(t, dir, env, "save", "--type", "user", "Prefers terse answers"); r.code != 0 {
		t.Fatalf("save: %s", r.stderr)
	}
	user := filepath.Join(home, "data", "contextfs", "user")
	// What the umask of an earlier release gave: 0755 folders, 0644 files,
	// and git's own writes by the umask.
	filepath.WalkDir(user, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink == 0 {
			fi, _ := d.Info()
			os.Chmod(p, fi.Mode().Perm()|0o044|(fi.Mode().Perm()&0o100)>>3|(fi.Mode().Perm()&0o100)>>6)
		}
		return nil
	})
	testgit.Run(t, user, "config", "--unset", "core.sharedRepository")
	if len(openToOthers(t, user)) == 0 {
		t.Fatal("the store was not opened up")
	}

	r := umaskCLI(t, dir, env, "doctor")
	if r.code == 0 || !strings.Contains(r.stdout, "FAIL   user-privacy") || !strings.Contains(r.stdout, user) {
		t.Fatalf("doctor on an open store: exit %d, want a user-privacy failure naming %s\n%s%s", r.code, user, r.stdout, r.stderr)
	}
	r = umaskCLI(t, dir, env, "doctor", "--fix")
	if !strings.Contains(r.stdout, "fixed  made the user store "+user+" private") || !strings.Contains(r.stdout, "ok     user-privacy") {
		t.Fatalf("doctor --fix did not say it made the store private:\n%s%s", r.stdout, r.stderr)
	}
	if open := openToOthers(t, user); len(open) > 0 {
		t.Fatalf("after doctor --fix, %d path(s) still open, first %q", len(open), open[0])
	}
	if r := umaskCLI(t, dir, env, "save", "--type", "user", "--title", "Shell", "Uses fish"); r.code != 0 {
		t.Fatalf("save after the repair: %s", r.stderr)
	}
	if open := openToOthers(t, user); len(open) > 0 {
		t.Errorf("a save after the repair wrote %d path(s) open to others, first %q", len(open), open[0])
	}
}
