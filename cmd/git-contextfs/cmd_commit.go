package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

// commitOptions are the flags of commit.
type commitOptions struct {
	message                string
	dryRun, noVerify, json bool
}

// commitCmd is commit: its help and flags; runCommit does the work.
func (a *app) commitCmd() *cobra.Command {
	o := &commitOptions{}
	cmd := &cobra.Command{
		Use:   "commit [-m MESSAGE] [--dry-run] [--json]",
		Short: "Commit the changed memory files, and nothing else",
		Long: `Commits the memory files that differ from HEAD in the work tree (added,
modified, moved or deleted under .contextfs/), with .contextfs/config.yaml
and .gitattributes when they changed. Nothing else is committed: files you
have staged stay staged for your own next commit.

The commit is built in a temporary index and HEAD moves only if no other
commit landed meanwhile. Afterwards the committed paths are up to date in
the index too, so "git status" shows them clean.

Without -m the message is generated from what changed, for example
"contextfs: add 2 decisions, update 1 fact", with one line per memory.

git hooks do not run (the commit is made with git commit-tree). The checks
of the contextfs pre-commit hook run instead: invalid memories and
suspected secrets are refused, unless --no-verify; and the export that
"export --on-commit" turned on in this clone runs after the commit, as the
post-commit hook would, leaving what it changes uncommitted.

Exit status: 0 committed, or nothing to commit; 1 refused or failed.`,
		Example: `  git contextfs commit
  git contextfs commit -m "Record the connection-pool decision"
  git contextfs commit --dry-run
  git contextfs commit --json`,
		Args: argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			return a.runCommit(cmd.Context(), s, o)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&o.message, "message", "m", "", "commit `MESSAGE` (default: generated from the changes)")
	f.BoolVar(&o.dryRun, "dry-run", false, "show the message and files that would be committed; commit nothing")
	f.BoolVarP(&o.noVerify, "no-verify", "n", false, "commit invalid memories and suspected secrets anyway")
	f.BoolVar(&o.json, "json", false, "print {sha, message, files} as JSON")
	return cmd
}

// runCommit runs commit with o.
func (a *app) runCommit(ctx context.Context, s *contextfs.Store, o *commitOptions) error {
	res, err := s.CommitMemories(ctx, contextfs.CommitOptions{Message: o.message, DryRun: o.dryRun, NoVerify: o.noVerify})
	var ve *contextfs.VerifyError
	if errors.As(err, &ve) {
		return a.refuseCommit(ve, o.json)
	}
	if err != nil {
		return err
	}
	if !o.dryRun && len(res.Files) > 0 {
		// commit-tree runs no post-commit hook, so the export this clone
		// opted into (export --on-commit) happens here, as the hook would,
		// and is reported after the commit is.
		defer func() {
			report, _ := workflow.ExportOnCommit(ctx, s, "commit")
			for _, line := range report {
				fmt.Fprintln(a.io.ErrOut, line)
			}
		}()
	}
	if o.json {
		return a.printJSON(res)
	}
	switch {
	case len(res.Files) == 0:
		fmt.Fprintln(a.io.ErrOut, "nothing to commit: the memory files match HEAD")
	case o.dryRun:
		fmt.Fprintln(a.io.Out, res.Message)
		fmt.Fprintln(a.io.Out, "\nwould commit:")
		for _, f := range res.Files {
			fmt.Fprintf(a.io.Out, "  %-9s %s\n", f.Status, f.Path)
		}
	default:
		subject, _, _ := strings.Cut(res.Message, "\n")
		fmt.Fprintln(a.io.Out, res.SHA)
		fmt.Fprintf(a.io.ErrOut, "[%.12s] %s (%d file(s))\n", res.SHA, subject, len(res.Files))
	}
	return nil
}

// refuseCommit reports why a memory commit was refused, as the pre-commit
// hook would, and exits 1.
func (a *app) refuseCommit(ve *contextfs.VerifyError, asJSON bool) error {
	if asJSON {
		// Lists, never null, as the other --json outputs give them.
		if err := a.printJSON(map[string]any{"sha": "", "problems": orEmpty(ve.Problems), "secrets": orEmpty(ve.Secrets)}); err != nil {
			return err
		}
	}
	for _, p := range ve.Problems {
		fmt.Fprintln(a.io.ErrOut, p)
	}
	for _, f := range ve.Secrets {
		fmt.Fprintf(a.io.ErrOut, "%s\n", f)
	}
	fmt.Fprintf(a.io.ErrOut, "git-contextfs commit: %v; nothing was committed.\n"+
		"Fix the files (git contextfs validate), or commit anyway with --no-verify.\n", ve)
	return &exitError{exitFail}
}

// orEmpty is xs, or an empty list for nil: JSON output gives a list, not
// null.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
