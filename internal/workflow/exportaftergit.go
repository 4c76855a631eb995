package workflow

import (
	"context"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
)

// ExportAfterGit is ExportOnCommit for the post-merge and post-rewrite
// hooks: a pull (merge or rebase) that brings in memory changes leaves an
// opted-in export (hooks.ExportOnCommitKey) stale until the next commit
// otherwise. The same rules hold: opt-in per clone, only when the memories
// changed (ORIG_HEAD..HEAD, where the merge or rebase started from), the
// result left in the work tree for the person to commit, never a failure.
// A squash merge (args "1") moves no HEAD, and an amend's post-commit has
// exported already: both are skipped.
func ExportAfterGit(ctx context.Context, s *contextfs.Store, hook string, args []string) (report []string, note string) {
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch {
	case hook == "post-merge" && first == "1":
		return nil, "" // squash: nothing committed; the commit exports
	case hook == "post-rewrite" && first != "rebase":
		return nil, "" // amend: its post-commit exported
	case hook != "post-merge" && hook != "post-rewrite":
		return nil, "" // no other hook brings commits in
	}
	targets, err := hooks.ExportOnCommit(ctx, s.Repo.Root)
	if err != nil {
		return []string{hookWarning(hook, err.Error())}, ""
	}
	if len(targets) == 0 {
		return nil, ""
	}
	changed, ok, err := hooks.RangeTouches(ctx, s.Repo.Root, "ORIG_HEAD", "HEAD", gitstore.Dir)
	switch {
	case err != nil:
		return []string{hookWarning(hook, "export skipped: "+err.Error())}, ""
	case !ok:
		return nil, "export skipped: no ORIG_HEAD to compare with"
	case !changed:
		return nil, "export skipped: no memory changed"
	}
	return exportTargets(ctx, s, hook, targets)
}
