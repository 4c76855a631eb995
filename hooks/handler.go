package hooks

import (
	"os"
	"path/filepath"
)

// RebaseInProgress reports whether a rebase is under way in gitDir, the
// work tree's own git directory (`git rev-parse --git-dir`; in a linked
// worktree that is not the common directory). git runs post-checkout and
// post-commit for every commit a rebase replays, so hook handlers skip
// their work until post-rewrite reports the rebase as a whole. Like git's
// own status, it counts rebase-merge, and rebase-apply unless `git am`
// owns it.
func RebaseInProgress(gitDir string) bool {
	if isDir(filepath.Join(gitDir, "rebase-merge")) {
		return true
	}
	if !isDir(filepath.Join(gitDir, "rebase-apply")) {
		return false
	}
	_, err := os.Stat(filepath.Join(gitDir, "rebase-apply", "applying"))
	return err != nil
}

// FileCheckout reports whether post-checkout's arguments (previous HEAD,
// new HEAD, flag) describe a checkout of paths rather than of a branch:
// the flag is "0" then. HEAD did not move, so a handler that reacts to
// branch switches can return at once instead of adding to every
// `git checkout -- file`.
func FileCheckout(args []string) bool {
	return len(args) >= 3 && args[2] == "0"
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
