package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/branchdiff"
	"github.com/contextfs/contextfs/check"
	"github.com/contextfs/contextfs/git"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/review"
	"github.com/contextfs/contextfs/secrets"
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
  BASE...HEAD     the merge base of BASE and HEAD to HEAD
  BASE..HEAD      the two commits' trees as they are (like git diff A B)

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
	// attached to the changed code (reviewRelevant).
	repo, cfg, err := a.openFiles()
	if err != nil {
		return err
	}
	sc, err := check.Scanner(cfg.Secrets)
	if err != nil {
		return err
	}
	rep, err := buildReview(ctx, repo, sc, spec)
	if err != nil {
		return err
	}
	if rep.Relevant, err = a.reviewRelevant(ctx, rep.BaseCommit, rep.HeadCommit); err != nil {
		return err
	}
	if o.format == "json" {
		err = a.printJSON(rep)
	} else {
		_, err = fmt.Fprint(a.io.Out, rep.Markdown())
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
func (a *app) reviewRelevant(ctx context.Context, base, head string) ([]review.Relevant, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		fmt.Fprintf(a.io.ErrOut, "git-contextfs review: warning: the memories attached to the changed code are left out: %v\n", err)
		return nil, nil
	}
	defer s.Close()
	return relevantToRange(ctx, s, base, head)
}

// buildReview resolves a review range in repo and compares its two sides,
// scanning them for secrets with sc. The memories relevant to the range
// are left to reviewRelevant.
func buildReview(ctx context.Context, repo *gitstore.Repo, sc *secrets.Scanner, spec string) (review.Report, error) {
	root := repo.Root
	baseRev, headRev, mergeBase := spec, "HEAD", true
	switch {
	case spec == "":
		b, err := defaultBranch(ctx, root)
		if err != nil {
			return review.Report{}, err
		}
		baseRev = b
	case strings.Contains(spec, "..."):
		baseRev, headRev, _ = strings.Cut(spec, "...")
	case strings.Contains(spec, ".."):
		baseRev, headRev, _ = strings.Cut(spec, "..")
		mergeBase = false
	}
	// As in git, an empty side of a range is HEAD.
	if baseRev == "" {
		baseRev = "HEAD"
	}
	if headRev == "" {
		headRev = "HEAD"
	}
	baseSHA, err := resolveCommit(ctx, root, baseRev)
	if err != nil {
		return review.Report{}, err
	}
	headSHA, err := resolveCommit(ctx, root, headRev)
	if err != nil {
		return review.Report{}, err
	}
	if mergeBase {
		mb, err := reviewGit(ctx, root, "merge-base", baseSHA, headSHA)
		if err != nil {
			return review.Report{}, fmt.Errorf("%s and %s have no common history (compare the trees directly with %s..%s): %w",
				baseRev, headRev, baseRev, headRev, err)
		}
		baseSHA = mb
	}
	base, err := repo.ReadRef(baseSHA)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", baseRev, err)
	}
	head, err := repo.ReadRef(headSHA)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", headRev, err)
	}
	rep := review.Compare(base, head, sc)
	rep.Base, rep.Head, rep.BaseCommit, rep.HeadCommit = baseRev, headRev, baseSHA, headSHA
	return rep, nil
}

// defaultBranch names the branch pull requests usually target, by the
// rule the context block uses too (branchdiff.DefaultBranch): origin/HEAD,
// main, master, origin/main, origin/master, then the upstream.
func defaultBranch(ctx context.Context, root string) (string, error) {
	b, err := branchdiff.DefaultBranch(ctx, root)
	if errors.Is(err, branchdiff.ErrNoDefaultBranch) {
		return "", &usageError{fmt.Errorf("%w; name the base, as in: git contextfs review origin/develop", err)}
	}
	return b, err
}

// resolveCommit returns the commit rev names; an unknown revision is a
// usage error that says so plainly, rather than go-git's or git's own.
func resolveCommit(ctx context.Context, root, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", &usageError{fmt.Errorf("unknown revision %q", rev)}
	}
	sha, err := reviewGit(ctx, root, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil || sha == "" {
		return "", &usageError{fmt.Errorf("unknown revision %q: no commit of that name in %s", rev, root)}
	}
	return sha, nil
}

// reviewGit runs git in root and returns its trimmed standard output; the
// error is a *git.Error carrying git's standard error.
func reviewGit(ctx context.Context, root string, args ...string) (string, error) {
	return git.Output(ctx, root, args...)
}
