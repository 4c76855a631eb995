package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/workflow"
)

// setExportOnCommit turns keeping target current from the post-commit hook
// on or off in this clone's git config and, when on, makes sure the
// post-commit hook (and post-merge and post-rewrite, which export after a
// pull) is installed. It says what it did on stderr.
func (a *app) setExportOnCommit(ctx context.Context, svc *workflow.Service, target string, on bool) error {
	set, err := workflow.SetExportOnCommit(ctx, svc.Repo(), target, on)
	if set == nil {
		return err
	}
	list := "none"
	if len(set.Targets) > 0 {
		list = strings.Join(set.Targets, ",")
	}
	if !on {
		fmt.Fprintf(a.io.ErrOut, "the hooks no longer export %s (git config %s: %s)\n", target, workflow.ExportOnCommitKey, list)
		return nil
	}
	fmt.Fprintf(a.io.ErrOut, "the hooks export %s after each commit, merge or rebase that changes memories (git config %s: %s, this clone only);\n"+
		"what it changes is left in the work tree for you to commit\n", target, workflow.ExportOnCommitKey, list)
	if err != nil {
		return err
	}
	// A hook file the team shares (core.hooksPath in the work tree)
	// changes in git status: say so, as hooks install does.
	for _, n := range workTreeNotes(set.Hook.Changed) {
		fmt.Fprintln(a.io.ErrOut, n)
	}
	for _, st := range set.Hook.States {
		if !st.Runs() {
			return fmt.Errorf("the %s hook %s will not run contextfs; see git contextfs hooks status", st.Name, printable.Path(st.Path))
		}
	}
	return nil
}
