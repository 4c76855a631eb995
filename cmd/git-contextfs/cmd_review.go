package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// Values of review --fail-on.
var failOnValues = []string{"invalid", "secrets"}

// reviewOptions are the flags and arguments of review.
type reviewOptions struct {
	format string
	failOn []string
	json   bool
	args   []string
}

// reviewCmd is review: its help and flags; runReview does the work.
func (a *app) reviewCmd() *cobra.Command {
	o := &reviewOptions{}
	cmd := &cobra.Command{
		Use:   "review [BASE..HEAD | BASE...HEAD | BASE]",
		Short: "Report what a branch does to the memories, for people and for CI",
		Long: `Compares the memory files of two commits and reports what the change does
to the team's knowledge: memories added, changed (field by field, with a
diff of the body), superseded and deleted, grouped by type. Memories are
matched by ID, so a moved file is a change, not a deletion and an addition.
The files the change adds or edits are validated and scanned for secrets.

The range:
  (none)          the merge base of HEAD with the default branch (origin/HEAD,
                  else main, master, origin/main, origin/master, the
                  upstream) to HEAD: what a pull request shows
  BASE            the merge base of BASE and HEAD to HEAD
  BASE...HEAD     the merge base of BASE and HEAD to HEAD (like git diff A...B)
  BASE..HEAD      the same: what HEAD changed, not what BASE gained since;
                  only when the two share no history are their trees compared
                  as they are
When BASE has moved on since HEAD left it, the report names the merge base
it compared with ("merge_base": true in JSON).

review reads only commits, so it also runs in a bare repository (a server's
pre-receive hook: git contextfs review OLD..NEW --fail-on secrets); the
settings are then those of .contextfs/config.yaml in HEAD's commit.

The Markdown report is written to be posted as a pull-request comment;
--format json gives the same report for programs. With --fail-on, the exit
status is 1 when the report holds the named findings, so CI can gate on it:
  invalid   a memory the change adds or edits is invalid
  secrets   a memory the change adds or edits holds a suspected secret
Exit status: 0 reported, 1 a --fail-on finding (or an error), 2 bad usage
or an unknown revision.`,
		Example: `  git contextfs review
  git contextfs review main
  git contextfs review origin/main..HEAD --format json
  git contextfs review origin/main..HEAD --fail-on invalid,secrets > report.md`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return a.runReview(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "markdown", "report `FORMAT`: markdown or json")
	f.BoolVar(&o.json, "json", false, "same as --format json")
	f.StringSliceVar(&o.failOn, "fail-on", nil, "exit 1 when the report has these `FINDINGS`: invalid, secrets (repeatable or comma-separated)")
	return cmd
}

// runReview runs review with o.
func (a *app) runReview(ctx context.Context, o *reviewOptions) error {
	if o.json {
		o.format = "json"
	}
	if o.format != "markdown" && o.format != "json" {
		return &usageError{fmt.Errorf("--format must be markdown or json, not %q", o.format)}
	}
	for _, f := range o.failOn {
		if !slices.Contains(failOnValues, f) {
			return &usageError{fmt.Errorf("--fail-on takes %s, not %q", strings.Join(failOnValues, " or "), f)}
		}
	}
	spec := ""
	if len(o.args) == 1 {
		spec = o.args[0]
	}
	// The report is read from commits: the cache only adds the memories
	// attached to the changed code (reviewRelevant), so a bare repository
	// (a server's, in a pre-receive hook) can be reviewed too.
	res, err := workflow.Review(ctx, workflow.ReviewRequest{Dir: a.workDir(), Range: spec, Notices: a.io.ErrOut})
	if re := (*workflow.RangeError)(nil); errors.As(err, &re) {
		return &usageError{re}
	}
	if err != nil {
		return err
	}
	rep := res.Report
	if res.Unrelated {
		fmt.Fprintf(a.io.ErrOut, "git-contextfs review: note: %s and %s have no common history: comparing their trees as they are\n", rep.Base, rep.Head)
	}
	if !res.Bare {
		if rep.Relevant, err = a.reviewRelevant(ctx, rep.BaseCommit, rep.HeadCommit); err != nil {
			return err
		}
	}
	if o.format == "json" {
		err = a.printJSON(rep)
	} else {
		_, err = fmt.Fprint(a.io.Out, paintHeadings(a.io.ColorScheme(), rep.Markdown()))
	}
	if err != nil {
		return err
	}
	var failed []string
	if slices.Contains(o.failOn, "invalid") && len(rep.Problems) > 0 {
		failed = append(failed, fmt.Sprintf("%d invalid memory problem(s)", len(rep.Problems)))
	}
	if slices.Contains(o.failOn, "secrets") && len(rep.Secrets) > 0 {
		failed = append(failed, fmt.Sprintf("%d suspected secret(s)", len(rep.Secrets)))
	}
	if len(failed) > 0 {
		fmt.Fprintf(a.io.ErrOut, "git-contextfs review: failing: %s\n", strings.Join(failed, " and "))
		return &exitError{exitFail}
	}
	return nil
}

// reviewRelevant lists the memories attached to the code that base..head
// changed, which only the cache knows. Without a store (the cache cannot
// be opened) the report leaves them out and says so on stderr, rather than
// fail: the rest of it is read from commits.
func (a *app) reviewRelevant(ctx context.Context, base, head string) ([]workflow.ReviewRelevant, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		fmt.Fprintf(a.io.ErrOut, "git-contextfs review: warning: the memories attached to the changed code are left out: %v\n", err)
		return nil, nil
	}
	defer s.Close()
	return workflow.RelevantToRange(ctx, s, base, head)
}
