package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
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
	repo, cfg, bare, err := a.openReviewRepo(ctx)
	if err != nil {
		return err
	}
	rng, err := resolveRange(ctx, repo.Root, spec)
	if err != nil {
		return err
	}
	if rng.unrelated {
		fmt.Fprintf(a.io.ErrOut, "git-contextfs review: note: %s and %s have no common history: comparing their trees as they are\n", rng.baseRev, rng.headRev)
	}
	if bare {
		// No work tree: the settings are those of the commit reviewed.
		if cfg, err = configAt(ctx, repo, rng.headSHA); err != nil {
			return err
		}
		repo.MaxFileBytes = cfg.Limits.WithDefaults().MaxFileBytes
	}
	sc, err := check.Scanner(cfg.Secrets)
	if err != nil {
		return err
	}
	rep, err := compareRange(repo, sc, rng)
	if err != nil {
		return err
	}
	if !bare {
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
func (a *app) reviewRelevant(ctx context.Context, base, head string) ([]review.Relevant, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		fmt.Fprintf(a.io.ErrOut, "git-contextfs review: warning: the memories attached to the changed code are left out: %v\n", err)
		return nil, nil
	}
	defer s.Close()
	return relevantToRange(ctx, s, base, head)
}

// reviewRange is a resolved review range: the revisions as given and the
// commits compared.
type reviewRange struct {
	baseRev, headRev string
	baseSHA, headSHA string
	// mergeBase: baseSHA is the merge base of the two, not baseRev's own
	// commit, which has moved on since headRev left it.
	mergeBase bool
	// unrelated: an A..B range whose sides share no history, whose
	// trees are compared as they are.
	unrelated bool
}

// resolveRange resolves a review range in the repository at root. Every
// form compares headRev with the merge base of baseRev and headRev, as a
// pull request and git diff A...B do, so that what baseRev gained after
// the branch left it is not reported as undone: A..B too, since the
// report is about what B changed. Only an A..B whose sides share no
// history compares the two trees as they are; A...B then fails, as git
// diff A...B does.
func resolveRange(ctx context.Context, root, spec string) (reviewRange, error) {
	r := reviewRange{baseRev: spec, headRev: "HEAD"}
	twoDot := false
	switch {
	case spec == "":
		b, err := defaultBranch(ctx, root)
		if err != nil {
			return r, err
		}
		r.baseRev = b
	case strings.Contains(spec, "..."):
		r.baseRev, r.headRev, _ = strings.Cut(spec, "...")
	case strings.Contains(spec, ".."):
		r.baseRev, r.headRev, _ = strings.Cut(spec, "..")
		twoDot = true
	}
	// As in git, an empty side of a range is HEAD.
	if r.baseRev == "" {
		r.baseRev = "HEAD"
	}
	if r.headRev == "" {
		r.headRev = "HEAD"
	}
	var err error
	if r.baseSHA, err = resolveCommit(ctx, root, r.baseRev); err != nil {
		return r, err
	}
	if r.headSHA, err = resolveCommit(ctx, root, r.headRev); err != nil {
		return r, err
	}
	mb, err := reviewGit(ctx, root, "merge-base", r.baseSHA, r.headSHA)
	switch {
	case err != nil && twoDot && git.ExitCode(err) == 1:
		r.unrelated = true // no merge base: git merge-base exits 1 saying nothing
	case err != nil:
		return r, fmt.Errorf("%s and %s have no common history (compare the trees directly with %s..%s): %w",
			r.baseRev, r.headRev, r.baseRev, r.headRev, err)
	case mb != r.baseSHA:
		r.baseSHA, r.mergeBase = mb, true
	}
	return r, nil
}

// compareRange reads the memories at both commits of r and compares them,
// scanning the head side for secrets with sc. The memories relevant to
// the range are left to reviewRelevant.
func compareRange(repo *gitstore.Repo, sc *secrets.Scanner, r reviewRange) (review.Report, error) {
	base, err := repo.ReadRef(r.baseSHA)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", r.baseRev, err)
	}
	head, err := repo.ReadRef(r.headSHA)
	if err != nil {
		return review.Report{}, fmt.Errorf("read memories at %s: %w", r.headRev, err)
	}
	rep := review.Compare(base, head, sc)
	rep.Base, rep.Head, rep.BaseCommit, rep.HeadCommit = r.baseRev, r.headRev, r.baseSHA, r.headSHA
	rep.MergeBase = r.mergeBase
	return rep, nil
}

// openReviewRepo opens the repository for review: the work tree's, as
// every command does, or a bare repository (bare reports it), which review
// can read since it needs only commits. git runs a bare repository's
// hooks with GIT_DIR set, where discovery takes the folder for a work tree.
func (a *app) openReviewRepo(ctx context.Context) (*gitstore.Repo, contextfs.Config, bool, error) {
	repo, cfg, err := a.openFiles()
	if b, ok := errors.AsType[*gitstore.BareError](err); ok {
		return &gitstore.Repo{Root: b.Dir, GitDir: b.Dir, CommonDir: b.Dir}, contextfs.Config{}, true, nil
	}
	if err != nil {
		return nil, cfg, false, err
	}
	if os.Getenv("GIT_DIR") != "" {
		if out, err := reviewGit(ctx, repo.Root, "rev-parse", "--is-bare-repository"); err == nil && out == "true" {
			return repo, contextfs.Config{}, true, nil
		}
	}
	return repo, cfg, false, nil
}

// configAt reads .contextfs/config.yaml as commit holds it, for a bare
// repository, which has no work tree to read it from. None there is the
// defaults, as in a work tree.
func configAt(ctx context.Context, repo *gitstore.Repo, commit string) (contextfs.Config, error) {
	rel := gitstore.Dir + "/" + gitstore.ConfigFile
	content, err := reviewGit(ctx, repo.Root, "cat-file", "blob", commit+":"+rel)
	if err != nil {
		return contextfs.Config{}, nil // no config in that commit
	}
	tmp, err := os.MkdirTemp("", "contextfs-review-")
	if err != nil {
		return contextfs.Config{}, fmt.Errorf("read %s at %s: %w", rel, commit, err)
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(tmp, gitstore.Dir), 0o700); err != nil {
		return contextfs.Config{}, fmt.Errorf("read %s at %s: %w", rel, commit, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(rel)), []byte(content+"\n"), 0o600); err != nil {
		return contextfs.Config{}, fmt.Errorf("read %s at %s: %w", rel, commit, err)
	}
	cfg, err := contextfs.LoadConfig(&gitstore.Repo{Root: tmp, GitDir: tmp, CommonDir: tmp})
	if err != nil {
		return cfg, fmt.Errorf("at %s: %w", commit, err)
	}
	return cfg, nil
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
