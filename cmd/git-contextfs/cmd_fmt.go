package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/workflow"
)

// ---------------------------------------------------------------------------
// git contextfs fmt

// fmtCmd is `fmt`: memory files rewritten in canonical form.
// fmtOptions are the flags and arguments of fmt.
type fmtOptions struct {
	check, json bool
	paths       []string
}

func (a *app) fmtCmd() *cobra.Command {
	o := &fmtOptions{}
	cmd := &cobra.Command{
		Use:   "fmt [--check] [PATH...]",
		Short: "Rewrite memory files in canonical form",
		Long: `Rewrites memory files (all of them, or the files and folders named) in
canonical form: known frontmatter keys in the standard order (id, type,
title, summary, tags, links, supersedes, reason, paths, author, source,
session, created, updated, data),
block-style lists, times in UTC, the canonical type name. Unknown keys
are kept, after the known ones. The Markdown body is never changed, not
even by a byte.

A file is written only when its bytes change, atomically. A file that
does not parse is reported and left alone. The paths of rewritten files
are printed.

With --check nothing is written: the files that would change are listed,
for CI. Exit status: 0 nothing to do; 1 a file would change (--check) or
does not parse.

The pre-commit hook never refuses a commit for formatting.`,
		Example: `  git contextfs fmt
  git contextfs fmt --check
  git contextfs fmt .contextfs/memories/use-pgx-k3x9m2abcd.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return a.runFmt(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.check, "check", false, "write nothing; list the files that would change and exit 1 if any")
	cmd.Flags().BoolVar(&o.json, "json", false, "print {files, changed, problems, check} as JSON")
	return cmd
}

// runFmt runs fmt with o.
func (a *app) runFmt(ctx context.Context, o *fmtOptions) error {
	// The repository's limits apply: a file over limits.max_file_bytes
	// is reported, not read. Relative paths are taken from --repo when it
	// is given, as if started there (app.userPath).
	targets := make([]workflow.FmtTarget, len(o.paths))
	for i, p := range o.paths {
		targets[i] = workflow.FmtTarget{Arg: p, Abs: a.userAbs(p)}
	}
	res, err := workflow.Fmt(ctx, workflow.FmtRequest{Dir: a.workDir(), Notices: a.io.ErrOut, Targets: targets, Check: o.check})
	if te := (*workflow.TargetError)(nil); errors.As(err, &te) && te.Usage {
		return &usageError{te}
	}
	if err != nil {
		return err
	}
	changed, problems := res.Changed, res.Problems
	if o.json {
		if err := a.printJSON(res); err != nil {
			return err
		}
	} else {
		for _, c := range changed {
			fmt.Fprintln(a.io.Out, printable.Path(c))
		}
		for _, p := range problems {
			fmt.Fprintln(a.io.ErrOut, p)
		}
		if o.check && len(changed) > 0 {
			fmt.Fprintf(a.io.ErrOut, "%d memory file(s) not in canonical form; run git contextfs fmt\n", len(changed))
		}
	}
	if len(problems) > 0 || o.check && len(changed) > 0 {
		return &exitError{exitFail}
	}
	return nil
}
