package branchdiff

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"
)

// racyWindow is how recent a modification time may be before a stat can
// no longer tell a later change from it: file systems keep times in ticks
// (a few milliseconds on ext4, two seconds on FAT), so a file written
// twice within one tick, to the same size, shows the same stat. Git's
// index has the same problem ("racy git") and solves it the same way:
// what changed that recently is looked at again.
const racyWindow = 2 * time.Second

// maxTreeEntries bounds the walk of treeKey: beyond it, git is asked.
const maxTreeEntries = 20000

// treeKey describes, by stat and without running git, everything besides
// the refs that the changed files at or below within are computed from:
// the index file, the ignore files that apply there (info/exclude, the
// user's default excludes file, .gitignore in the root and in each folder
// above a path) and every file and folder below the paths. ok is false
// when it cannot vouch for the answer: within is empty (the whole work
// tree, which git is better at looking at), the walk meets more than
// maxTreeEntries entries, or something was modified within racyWindow of
// now.
//
// An excludes file named by core.excludesFile elsewhere than the default
// place is not looked at: editing it alone does not refresh a kept answer.
func (r *Resolver) treeKey(within []string, now time.Time) (string, bool) {
	if len(within) == 0 {
		return "", false
	}
	h := sha256.New()
	recent := now.Add(-racyWindow)
	n := 0
	add := func(p string, fi fs.FileInfo) bool {
		n++
		ino, ctime := sysStat(fi)
		if fi.ModTime().After(recent) || ctime.After(recent) {
			return false
		}
		fmt.Fprintf(h, "%s\x00%d %d %o %d %d\x00", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode(), ino, ctime.UnixNano())
		return true
	}
	single := []string{filepath.Join(r.gitDir, "index"), filepath.Join(r.commonDir, "info", "exclude"), filepath.Join(r.root, ".gitignore")}
	if dir, err := os.UserConfigDir(); err == nil {
		single = append(single, filepath.Join(dir, "git", "ignore"))
	}
	for _, w := range within {
		for d := path.Dir(w); d != "."; d = path.Dir(d) {
			single = append(single, filepath.Join(r.root, filepath.FromSlash(d), ".gitignore"))
		}
	}
	for _, p := range single {
		if fi, err := os.Lstat(p); err == nil {
			if !add(p, fi) {
				return "", false
			}
		} else {
			fmt.Fprintf(h, "%s\x00-\x00", p)
		}
	}
	for _, w := range within {
		if ok := r.walk(h, filepath.Join(r.root, filepath.FromSlash(w)), add, &n); !ok {
			return "", false
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// walk adds every entry at or below top to the key (an absent top too).
func (r *Resolver) walk(h hash.Hash, top string, add func(string, fs.FileInfo) bool, n *int) bool {
	ok := true
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top && os.IsNotExist(err) {
				fmt.Fprintf(h, "%s\x00-\x00", p)
				return nil
			}
			return err
		}
		if d.IsDir() && d.Name() == ".git" && p != top {
			return filepath.SkipDir // a nested repository is git's business
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !add(p, fi) || *n > maxTreeEntries {
			ok = false
			return filepath.SkipAll
		}
		return nil
	})
	return ok && err == nil
}
