package gitstore

import (
	"os"
	"path/filepath"
	"time"
)

// ScratchGrace is how old a scratch file must be before RemoveStaleScratch
// looks at whether it is held: its creator takes the lock (HoldScratch)
// just after creating it, and a younger file may be in that gap.
const ScratchGrace = time.Minute

// HoldScratch marks f, a scratch file its creator is still writing or
// reading (a cache rebuild's vectors, a list being saved), as held: an
// exclusive flock, which the kernel drops when f is closed or its process
// dies — so a file a killed process left is unheld, and RemoveStaleScratch
// removes it, while one in use is never touched, however long the work
// takes. Where flock is missing it does nothing, and only age
// (TempMaxAge) tells an abandoned file.
func HoldScratch(f *os.File) error {
	_, err := tryLock(f)
	return err
}

// RemoveStaleScratch removes the regular files of dir whose names match
// and that no live process holds (HoldScratch): what killed writers left,
// which nothing else ever removes — a rebuild's vector scratch file can
// be gigabytes. A file younger than ScratchGrace is kept, and where flock
// is missing one younger than TempMaxAge. It returns the names removed;
// what it cannot read or remove is left, silently: sweeping is a courtesy
// to the disk, never a reason to fail the command that does it.
func RemoveStaleScratch(dir string, match func(name string) bool) []string {
	minAge := ScratchGrace
	if !flockWorks {
		minAge = TempMaxAge
	}
	return sweep(dir, time.Now().Add(-minAge), match, removeUnheld)
}

// sweep removes, with remove, the regular files of dir whose names match
// and that were last modified before cutoff, and returns the names it
// removed; what it cannot read is left.
func sweep(dir string, cutoff time.Time, match func(name string) bool, remove func(path string) bool) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !match(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err != nil || !fi.ModTime().Before(cutoff) {
			continue
		}
		if remove(filepath.Join(dir, e.Name())) {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// removeUnheld removes path when no other open file holds its lock,
// holding the lock itself meanwhile.
func removeUnheld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil || !ok {
		return false // held: its writer is alive
	}
	defer unlockFile(f)
	return os.Remove(path) == nil
}
