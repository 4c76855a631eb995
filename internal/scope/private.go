package scope

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/git"
)

// The user store holds what a person keeps for themselves ("private"
// preferences, lessons), so no other local user may read any of it: its
// folders are 0700 and its files 0600, the memory files, its git
// repository (core.sharedRepository=0600, so git's own writes follow)
// and its cache alike. A store is created so (openUser), the store's
// writes keep it so (contextfs.Options.Private), and doctor finds and
// repairs a store made before, or opened up since (PrivacyDiagnosis).

// privateShared is the user store's core.sharedRepository: git creates
// its objects, refs and index for the owner only.
const privateShared = "0600"

// exposed lists the files and folders under dir that group or others may
// read, write or enter (symbolic links are not followed: their own mode
// means nothing), at most max of them, and how many there are in all.
func exposed(dir string, max int) (paths []string, n int, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile (a temporary file)
			}
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			n++
			if len(paths) < max {
				paths = append(paths, p)
			}
		}
		return nil
	})
	return paths, n, err
}

// MakePrivate takes every permission for group and others from the files
// and folders under dir (the user store) and sets core.sharedRepository
// so that git's later writes are private too. It returns how many modes
// it changed.
func MakePrivate(ctx context.Context, dir string) (int, error) {
	changed := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	if err != nil {
		return changed, fmt.Errorf("user store %s: make private: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		if _, err := (git.Cmd{Dir: dir}).Run(ctx, "config", "core.sharedRepository", privateShared); err != nil {
			return changed, fmt.Errorf("user store %s: %w", dir, err)
		}
	}
	return changed, nil
}

// PrivacyDiagnosis is doctor's check that the user store is its owner's
// only; with fix it repairs it first and says what it did in fixed ("" when
// nothing was done). A store not created yet passes.
func PrivacyDiagnosis(ctx context.Context, fix bool) (d check.Diagnosis, fixed string, err error) {
	d = check.Diagnosis{Name: "user-privacy", OK: true, Fixable: true}
	dir, err := UserDir()
	if err != nil {
		d.Fixable, d.Message = false, "not checked: "+err.Error()
		return d, "", nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		d.Message = dir + ": not created yet"
		return d, "", nil
	}
	if fix {
		if _, n, err := exposed(dir, 0); err == nil && n > 0 {
			changed, err := MakePrivate(ctx, dir)
			if changed > 0 {
				fixed = fmt.Sprintf("made the user store %s private: %d file(s) and folder(s) were open to other users (now 0600/0700)", dir, changed)
			}
			if err != nil {
				return d, fixed, err
			}
		}
	}
	paths, n, err := exposed(dir, 1)
	if err != nil {
		d.OK, d.Fixable, d.Message = false, false, fmt.Sprintf("%s: cannot be checked: %v", dir, err)
		return d, fixed, nil
	}
	if n > 0 {
		d.OK = false
		d.Message = fmt.Sprintf("%s: %d file(s) and folder(s) other local users may read (first: %s); --fix makes them yours only (0600/0700)", dir, n, paths[0])
		return d, fixed, nil
	}
	d.Message = dir + ": yours only (0700/0600)"
	return d, fixed, nil
}
