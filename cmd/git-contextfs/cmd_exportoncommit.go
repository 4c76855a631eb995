package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/workflow"
)

// setExportOnCommit turns keeping target current from the post-commit hook
// on or off in this clone's git config and, when on, makes sure the
// post-commit hook (and post-merge and post-rewrite, which export after a
// pull) is installed. It says what it did on stderr.
func (a *app) setExportOnCommit(ctx context.Context, svc *workflow.Service, target string, on bool) error {
	s := svc.Repo()
	targets, err := hooks.SetExportOnCommit(ctx, s.Repo.Root, target, on)
	if err != nil {
		return err
	}
	list := "none"
	if len(targets) > 0 {
		list = strings.Join(targets, ",")
	}
	if !on {
		fmt.Fprintf(a.io.ErrOut, "the hooks no longer export %s (git config %s: %s)\n", target, hooks.ExportOnCommitKey, list)
		return nil
	}
	fmt.Fprintf(a.io.ErrOut, "the hooks export %s after each commit, merge or rebase that changes memories (git config %s: %s, this clone only);\n"+
		"what it changes is left in the work tree for you to commit\n", target, hooks.ExportOnCommitKey, list)
	before, _ := hooks.Status(ctx, s.Repo.Root)
	// post-merge and post-rewrite export what a pull brings in.
	states, err := hooks.Install(ctx, s.Repo.Root, []string{"post-commit", "post-merge", "post-rewrite"})
	if err != nil {
		return fmt.Errorf("install the post-commit, post-merge and post-rewrite hooks: %w", err)
	}
	// A hook file the team shares (core.hooksPath in the work tree)
	// changes in git status: say so, as hooks install does.
	for _, n := range workTreeChanges(s.Repo.Root, []string{s.Repo.GitDir, s.Repo.CommonDir}, before, states) {
		fmt.Fprintln(a.io.ErrOut, n)
	}
	for _, st := range states {
		if !st.Runs() {
			return fmt.Errorf("the %s hook %s will not run contextfs; see git contextfs hooks status", st.Name, printable.Path(st.Path))
		}
	}
	return nil
}
