package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// GlobalMergeDriverState is the merge driver as the user's global git
// config has it.
type GlobalMergeDriverState struct {
	// File is the global config file git reads (GIT_CONFIG_GLOBAL, or
	// ~/.gitconfig).
	File string
	// Configured reports that merge.contextfs.driver there is the command
	// this version registers.
	Configured bool
	// Ours reports that merge.contextfs.driver there is a command
	// contextfs registers or once registered (OwnsMergeDriver): install may
	// replace it and uninstall remove it. Any other value is the user's.
	Ours bool
	// Driver is the value there, or "" when unset.
	Driver string
}

// pastMergeDriverCommands are the merge.contextfs.driver values that
// earlier versions registered, recognised as contextfs's own so that
// install updates them and uninstall removes them.
var pastMergeDriverCommands = []string{
	"git-contextfs merge-driver %O %A %B %P",
	`command -v git-contextfs >/dev/null 2>&1 || { echo "contextfs: git-contextfs is not on PATH, so %P was merged as plain text; put it on PATH (make install) to merge memories field by field" >&2; exec git merge-file %A %O %B; }; exec git-contextfs merge-driver %O %A %B %P`,
}

// OwnsMergeDriver reports whether v, a merge.contextfs.driver value, is
// one that contextfs registers or registered: this version's command or
// an earlier version's. A value a person wrote (their own wrapper) is
// not, and is never replaced or removed without being asked.
func OwnsMergeDriver(v string) bool {
	return v == mergeDriverCommand || slices.Contains(pastMergeDriverCommands, v)
}

// ForeignDriverError is a merge.contextfs.driver in the global config that
// contextfs did not write; RegisterGlobalMergeDriver leaves it as it is
// unless forced.
type ForeignDriverError struct {
	File, Driver string
}

// Error names the config file and the driver found there, and says that
// it is left as it is.
func (e *ForeignDriverError) Error() string {
	return fmt.Sprintf("merge.contextfs.driver in %s is %q, which contextfs did not write: left as it is", e.File, e.Driver)
}

// beforeCreate, when set (by tests), runs just before install creates
// the global config file: where another process may create it first.
var beforeCreate func()

// createdMarker is the first line of a global config file that install
// created: uninstall deletes the file when nothing else is left in it,
// and never a file the user had, which lacks the line.
const createdMarker = "# Created by git contextfs install; git contextfs uninstall deletes this file while nothing else is in it.\n"

// RegisterGlobalMergeDriver sets merge.contextfs.name and
// merge.contextfs.driver in the user's global git config, once per user
// like `git lfs install`: the driver's config is never cloned, while the
// .gitattributes line that routes memories to it is, so with this every
// clone of every repository merges memories field by field. dir is any
// directory to run git from; it need not be a repository. Registering
// again changes nothing, and an earlier version's driver is updated; a
// driver contextfs did not write is kept, with a *ForeignDriverError,
// unless force.
func RegisterGlobalMergeDriver(ctx context.Context, dir string, force bool) error {
	st, err := CheckGlobalMergeDriver(ctx, dir)
	if err != nil {
		return err
	}
	if st.Driver != "" && !st.Ours && !force {
		return &ForeignDriverError{File: st.File, Driver: st.Driver}
	}
	if err := checkRegular(st.File); err != nil {
		return err
	}
	created := createMarked(st.File)
	for _, kv := range [][2]string{
		{"merge.contextfs.name", mergeDriverName},
		{"merge.contextfs.driver", mergeDriverCommand},
	} {
		cur, err := git(ctx, dir, "config", "--global", "--get", kv[0])
		if err == nil && cur == kv[1] {
			continue
		}
		if err == nil || exitCode(err) == 1 { // 1: unset
			_, err = git(ctx, dir, "config", "--global", kv[0], kv[1])
		}
		if err != nil {
			if created {
				removeIfCreatedAndEmpty(st.File)
			}
			return err
		}
	}
	return nil
}

// GlobalUnregistration is what UnregisterGlobalMergeDriver found and did.
type GlobalUnregistration struct {
	// Found is the driver as it was.
	Found GlobalMergeDriverState
	// Removed reports that the driver was contextfs's and is gone.
	Removed bool
	// FileRemoved reports that the config file is gone too: install had
	// created it, and nothing else was left in it.
	FileRemoved bool
}

// UnregisterGlobalMergeDriver removes what RegisterGlobalMergeDriver set,
// and the section when nothing else is left in it. A driver contextfs did
// not write is left as it is (Found says what it is). A config file that
// install created and that holds nothing else is deleted.
func UnregisterGlobalMergeDriver(ctx context.Context, dir string) (GlobalUnregistration, error) {
	var u GlobalUnregistration
	st, err := CheckGlobalMergeDriver(ctx, dir)
	u.Found = st
	if err != nil || st.Driver != "" && !st.Ours {
		return u, err
	}
	if err := checkRegular(st.File); err != nil {
		if st.Driver == "" {
			return u, nil // nothing there to remove
		}
		return u, err
	}
	if st.Driver != "" {
		if _, err := git(ctx, dir, "config", "--global", "--unset-all", "merge.contextfs.driver"); err != nil && exitCode(err) != 5 {
			return u, err
		}
		u.Removed = true
	}
	name, err := git(ctx, dir, "config", "--global", "--get", "merge.contextfs.name")
	if err == nil && name == mergeDriverName {
		if _, err := git(ctx, dir, "config", "--global", "--unset-all", "merge.contextfs.name"); err != nil && exitCode(err) != 5 {
			return u, err
		}
	} else if !u.Removed {
		return u, nil // nothing of ours: write nothing (git would create a missing file)
	}
	if out, err := git(ctx, dir, "config", "--global", "--get-regexp", `^merge\.contextfs\.`); err == nil && out != "" {
		return u, nil // someone's own keys: leave the section
	}
	if _, err := git(ctx, dir, "config", "--global", "--remove-section", "merge.contextfs"); err != nil && exitCode(err) > 1 && exitCode(err) != 128 {
		return u, err
	}
	u.FileRemoved = removeIfCreatedAndEmpty(st.File)
	return u, nil
}

// checkRegular refuses a global config that exists and is not a regular
// file (GIT_CONFIG_GLOBAL=/dev/null, as CI jobs set it): git config
// writes by renaming a new file over the old, which, run as root, would
// replace the device itself.
func checkRegular(p string) error {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file, so contextfs leaves it alone (does GIT_CONFIG_GLOBAL name it?)", p)
	}
	return nil
}

// createMarked creates the global config file at p with createdMarker
// when there is none, and reports whether it did. It creates it
// exclusively: a file that exists, or that another process creates
// meanwhile, is the user's and is left as it is. Best effort: without
// the marker, uninstall leaves an empty file.
func createMarked(p string) bool {
	if beforeCreate != nil {
		beforeCreate()
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false // it exists (not ours), or git creates it
	}
	_, err = f.WriteString(createdMarker)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(p) // created by us just now, and holding nothing of anyone's
		return false
	}
	return true
}

// removeIfCreatedAndEmpty deletes the config file at p when it holds
// nothing but the line install wrote when it created it, and reports
// whether it did.
func removeIfCreatedAndEmpty(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil || string(b) != createdMarker {
		return false
	}
	return os.Remove(p) == nil
}

// CheckGlobalMergeDriver reports the merge driver in the user's global
// git config.
func CheckGlobalMergeDriver(ctx context.Context, dir string) (GlobalMergeDriverState, error) {
	st := GlobalMergeDriverState{File: globalConfigFile()}
	v, err := git(ctx, dir, "config", "--global", "--get", "merge.contextfs.driver")
	if err != nil && exitCode(err) != 1 {
		return st, err
	}
	st.Driver = v
	st.Configured = v == mergeDriverCommand
	st.Ours = OwnsMergeDriver(v)
	return st, nil
}

// globalConfigFile names the file `git config --global` writes:
// GIT_CONFIG_GLOBAL; else ~/.gitconfig, unless only the XDG file
// ($XDG_CONFIG_HOME/git/config, or ~/.config/git/config) exists, which
// git then writes instead.
func globalConfigFile() string {
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "~/.gitconfig"
	}
	user := filepath.Join(home, ".gitconfig")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	xdg = filepath.Join(xdg, "git", "config")
	if _, err := os.Stat(user); err != nil {
		if _, err := os.Stat(xdg); err == nil {
			return xdg
		}
	}
	return user
}
