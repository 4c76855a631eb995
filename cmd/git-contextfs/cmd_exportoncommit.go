package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/exporter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/internal/printable"
)

// exportOnCommit is the post-commit hook's second job: when this clone's
// git config opts in (hooks.ExportOnCommitKey) and the commit changed
// memories, it exports each target named there. What the export changes
// stays a work-tree change for the person to commit: a hook that made
// commits of its own would surprise everyone. It returns lines for stderr
// and a note for CONTEXTFS_HOOK_DEBUG; it never fails the commit. from
// names the caller in those lines: the post-commit hook, or `git contextfs
// commit`, which makes its commit with commit-tree and so runs no hook.
func exportOnCommit(ctx context.Context, s *contextfs.Store, from string) (report []string, note string) {
	warn := func(msg string) string { return "contextfs: " + from + ": warning: " + msg }
	targets, err := hooks.ExportOnCommit(ctx, s.Repo.Root)
	if err != nil {
		return []string{warn(err.Error())}, ""
	}
	if len(targets) == 0 {
		return nil, ""
	}
	changed, err := hooks.CommitTouches(ctx, s.Repo.Root, "HEAD", gitstore.Dir)
	if err != nil {
		return []string{warn("export skipped: " + err.Error())}, ""
	}
	if !changed {
		return nil, "export skipped: the commit changed no memory"
	}
	var done []string
	for _, t := range targets {
		if !slices.Contains(exporter.Targets, t) {
			report = append(report, warn(fmt.Sprintf("git config %s names %q, which is no export target (%s); skipped",
				hooks.ExportOnCommitKey, t, strings.Join(exporter.Targets, ", "))))
			continue
		}
		res, err := exporter.Export(ctx, s, exporter.Options{Target: t})
		if err != nil {
			report = append(report, warn(fmt.Sprintf("export %s: %v", t, err)))
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

// setExportOnCommit turns keeping target current from the post-commit hook
// on or off in this clone's git config and, when on, makes sure the
// post-commit hook is installed. It says what it did on stderr.
func (a *app) setExportOnCommit(ctx context.Context, s *contextfs.Store, target string, on bool) error {
	targets, err := hooks.SetExportOnCommit(ctx, s.Repo.Root, target, on)
	if err != nil {
		return err
	}
	list := "none"
	if len(targets) > 0 {
		list = strings.Join(targets, ",")
	}
	if !on {
		fmt.Fprintf(a.io.ErrOut, "the post-commit hook no longer exports %s (git config %s: %s)\n", target, hooks.ExportOnCommitKey, list)
		return nil
	}
	fmt.Fprintf(a.io.ErrOut, "the post-commit hook exports %s after each commit that changes memories (git config %s: %s, this clone only);\n"+
		"what it changes is left in the work tree for you to commit\n", target, hooks.ExportOnCommitKey, list)
	before, _ := hooks.Status(ctx, s.Repo.Root)
	states, err := hooks.Install(ctx, s.Repo.Root, []string{"post-commit"})
	if err != nil {
		return fmt.Errorf("install the post-commit hook: %w", err)
	}
	// A hook file the team shares (core.hooksPath in the work tree)
	// changes in git status: say so, as hooks install does.
	for _, n := range workTreeChanges(s.Repo.Root, []string{s.Repo.GitDir, s.Repo.CommonDir}, before, states) {
		fmt.Fprintln(a.io.ErrOut, n)
	}
	for _, st := range states {
		if !st.Runs() {
			return fmt.Errorf("the post-commit hook %s will not run contextfs; see git contextfs hooks status", printable.Path(st.Path))
		}
	}
	return nil
}
