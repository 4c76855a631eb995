package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/review"
	"github.com/contextfs/contextfs/secrets"
)

// Values of review --fail-on.
var failOnValues = []string{"invalid", "secrets"}

func (a *app) reviewCmd() *cobra.Command {
	var (
		format string
		failOn []string
		asJSON bool
	)
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
                  else main, else master) to HEAD: what a pull request shows
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
			if asJSON {
				format = "json"
			}
			if format != "markdown" && format != "json" {
				return &usageError{fmt.Errorf("--format must be markdown or json, not %q", format)}
			}
			for _, f := range failOn {
				if !slices.Contains(failOnValues, f) {
					return &usageError{fmt.Errorf("--fail-on takes %s, not %q", strings.Join(failOnValues, " or "), f)}
				}
			}
			spec := ""
			if len(args) == 1 {
				spec = args[0]
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			rep, err := buildReview(cmd.Context(), s, spec)
			if err != nil {
				return err
			}
			if format == "json" {
				err = a.printJSON(rep)
			} else {
				_, err = fmt.Fprint(a.stdout, rep.Markdown())
			}
			if err != nil {
				return err
			}
			var failed []string
			if slices.Contains(failOn, "invalid") && len(rep.Problems) > 0 {
				failed = append(failed, fmt.Sprintf("%d invalid memory problem(s)", len(rep.Problems)))
			}
			if slices.Contains(failOn, "secrets") && len(rep.Secrets) > 0 {
				failed = append(failed, fmt.Sprintf("%d suspected secret(s)", len(rep.Secrets)))
			}
			if len(failed) > 0 {
				fmt.Fprintf(a.stderr, "git-contextfs review: failing: %s\n", strings.Join(failed, " and "))
				return &exitError{exitFail}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "markdown", "report `FORMAT`: markdown or json")
	f.BoolVar(&asJSON, "json", false, "same as --format json")
	f.StringSliceVar(&failOn, "fail-on", nil, "exit 1 when the report has these `FINDINGS`: invalid, secrets (repeatable or comma-separated)")
	return cmd
}

// buildReview resolves a review range and compares its two sides.
func buildReview(ctx context.Context, s *contextfs.Store, spec string) (review.Report, error) {
	root := s.Repo.Root
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
	base, err := s.Repo.ReadRef(baseSHA)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", baseRev, err)
	}
	head, err := s.Repo.ReadRef(headSHA)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", headRev, err)
	}
	sc, err := s.SecretScanner()
	if err != nil {
		return review.Report{}, err
	}
	rep := review.Compare(base, head, sc)
	rep.Base, rep.Head, rep.BaseCommit, rep.HeadCommit = baseRev, headRev, baseSHA, headSHA
	rep.Relevant, err = relevantToRange(ctx, s, baseSHA, headSHA)
	return rep, err
}

// defaultBranch names the branch pull requests usually target: the
// remote's default (origin/HEAD), else a local main, else master.
func defaultBranch(ctx context.Context, root string) (string, error) {
	if ref, err := reviewGit(ctx, root, "symbolic-ref", "-q", "refs/remotes/origin/HEAD"); err == nil && ref != "" {
		return strings.TrimPrefix(ref, "refs/remotes/"), nil
	}
	for _, b := range []string{"main", "master"} {
		if _, err := reviewGit(ctx, root, "rev-parse", "-q", "--verify", "refs/heads/"+b+"^{commit}"); err == nil {
			return b, nil
		}
	}
	return "", &usageError{errors.New("cannot tell the default branch (no origin/HEAD, main or master); name the base, as in: git contextfs review origin/develop")}
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
// error carries git's standard error.
func reviewGit(ctx context.Context, root string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %w: %s", args[0], err, msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}

func (a *app) commitCmd() *cobra.Command {
	var (
		message                  string
		dryRun, noVerify, asJSON bool
	)
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
suspected secrets are refused, unless --no-verify.

Exit status: 0 committed, or nothing to commit; 1 refused or failed.`,
		Example: `  git contextfs commit
  git contextfs commit -m "Record the connection-pool decision"
  git contextfs commit --dry-run
  git contextfs commit --json`,
		Args: argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			res, err := s.CommitMemories(cmd.Context(), contextfs.CommitOptions{Message: message, DryRun: dryRun, NoVerify: noVerify})
			var ve *contextfs.VerifyError
			if errors.As(err, &ve) {
				return a.refuseCommit(ve, asJSON)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(res)
			}
			switch {
			case len(res.Files) == 0:
				fmt.Fprintln(a.stderr, "nothing to commit: the memory files match HEAD")
			case dryRun:
				fmt.Fprintln(a.stdout, res.Message)
				fmt.Fprintln(a.stdout, "\nwould commit:")
				for _, f := range res.Files {
					fmt.Fprintf(a.stdout, "  %-9s %s\n", f.Status, f.Path)
				}
			default:
				subject, _, _ := strings.Cut(res.Message, "\n")
				fmt.Fprintln(a.stdout, res.SHA)
				fmt.Fprintf(a.stderr, "[%.12s] %s (%d file(s))\n", res.SHA, subject, len(res.Files))
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&message, "message", "m", "", "commit `MESSAGE` (default: generated from the changes)")
	f.BoolVar(&dryRun, "dry-run", false, "show the message and files that would be committed; commit nothing")
	f.BoolVarP(&noVerify, "no-verify", "n", false, "commit invalid memories and suspected secrets anyway")
	f.BoolVar(&asJSON, "json", false, "print {sha, message, files} as JSON")
	return cmd
}

// refuseCommit reports why a memory commit was refused, as the pre-commit
// hook would, and exits 1.
func (a *app) refuseCommit(ve *contextfs.VerifyError, asJSON bool) error {
	if asJSON {
		probs, secs := ve.Problems, ve.Secrets
		if probs == nil {
			probs = []contextfs.Problem{}
		}
		if secs == nil {
			secs = []secrets.Finding{}
		}
		if err := a.printJSON(map[string]any{"sha": "", "problems": probs, "secrets": secs}); err != nil {
			return err
		}
	}
	for _, p := range ve.Problems {
		fmt.Fprintln(a.stderr, p)
	}
	for _, f := range ve.Secrets {
		fmt.Fprintf(a.stderr, "%s\n", f)
	}
	fmt.Fprintf(a.stderr, "git-contextfs commit: %v; nothing was committed.\n"+
		"Fix the files (git contextfs validate), or commit anyway with --no-verify.\n", ve)
	return &exitError{exitFail}
}
