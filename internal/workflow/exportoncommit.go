package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/internal/exporter"
)

// ExportDefaultBudget is the export's size in estimated tokens when no
// budget is given; the post-commit hook always exports with it.
const ExportDefaultBudget = exporter.DefaultBudget

// ExportOnCommit is the post-commit hook's second job: when this clone's
// git config opts in (hooks.ExportOnCommitKey) and the commit changed
// memories, it exports each target named there. What the export changes
// stays a work-tree change for the person to commit: a hook that made
// commits of its own would surprise everyone. It returns lines for stderr
// and a note for CONTEXTFS_HOOK_DEBUG; it never fails the commit. from
// names the caller in those lines: the post-commit hook, or `git contextfs
// commit`, which makes its commit with commit-tree and so runs no hook.
func ExportOnCommit(ctx context.Context, s *contextfs.Store, from string) (report []string, note string) {
	targets, err := hooks.ExportOnCommit(ctx, s.Repo.Root)
	if err != nil {
		return []string{hookWarning(from, err.Error())}, ""
	}
	if len(targets) == 0 {
		return nil, ""
	}
	changed, err := hooks.CommitTouches(ctx, s.Repo.Root, "HEAD", gitstore.Dir)
	if err != nil {
		return []string{hookWarning(from, "export skipped: "+err.Error())}, ""
	}
	if !changed {
		return nil, "export skipped: the commit changed no memory"
	}
	return exportTargets(ctx, s, from, targets)
}

// hookWarning is a warning line of the hook (or command) from.
func hookWarning(from, msg string) string { return "contextfs: " + from + ": warning: " + msg }

// exportTargets exports each of targets (ExportOnCommit's and
// ExportAfterGit's common part), reporting as ExportOnCommit does.
func exportTargets(ctx context.Context, s *contextfs.Store, from string, targets []string) (report []string, note string) {
	var done []string
	for _, t := range targets {
		if !slices.Contains(exporter.Targets, t) {
			report = append(report, hookWarning(from, fmt.Sprintf("git config %s names %q, which is no export target (%s); skipped",
				hooks.ExportOnCommitKey, t, strings.Join(exporter.Targets, ", "))))
			continue
		}
		res, err := exporter.Export(ctx, s, exporter.Options{Target: t})
		if err != nil {
			report = append(report, hookWarning(from, fmt.Sprintf("export %s: %v", t, err)))
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				break
			}
			continue
		}
		for _, f := range res.Files {
			if f.Action != "unchanged" {
				report = append(report, fmt.Sprintf("contextfs: %s: export %s: %s %s (commit it when you are ready)", from, t, f.Action, f.Path))
			}
		}
		done = append(done, t)
	}
	return report, "exported " + strings.Join(done, ", ")
}
