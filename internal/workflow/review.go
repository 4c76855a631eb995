package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/branchdiff"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/review"
)

// ReviewReport is what a change does to the memories (package review).
type ReviewReport = review.Report

// ReviewRelevant is a memory attached to the code a reviewed change
// touches.
type ReviewRelevant = review.Relevant

// RangeError is a review range that names no commit, or a review
// without a range in a repository with no default branch: the caller's
// to mend (the CLI's exit 2).
type RangeError struct{ Err error }

// Error says what is wrong with the range.
func (e *RangeError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *RangeError) Unwrap() error { return e.Err }

// ReviewRequest is a review of a change to the memories.
type ReviewRequest struct {
	// Dir is where the repository is looked for: a work tree, or a bare
	// repository (a server's, in a pre-receive hook).
	Dir string
	// Range is BASE..HEAD, BASE...HEAD, or BASE (with HEAD); "" is the
	// default branch (DefaultBranch) against HEAD.
	Range string
	// Notices receives the config's notices, as opening a store says
	// them; nil discards them.
	Notices io.Writer
}

// Reviewed is a review's report and how it was read.
type Reviewed struct {
	Report ReviewReport
	// Bare says the repository has no work tree: the settings are those
	// of the head commit, and the memories relevant to the changed code
	// (which only a store's cache knows, RelevantToRange) are left out.
	Bare bool
	// Unrelated says an A..B range whose sides share no history: their
	// trees were compared as they are.
	Unrelated bool
}

// Review compares the memory files of the two commits of req's range:
// every form compares the head with the merge base of the two, as a pull
// request and git diff A...B do, so that what the base gained after the
// branch left it is not reported as undone. Only an A..B whose sides share
// no history compares the two trees as they are. The files the change
// adds or edits are validated and scanned for secrets. Report.Relevant is
// left to RelevantToRange.
func Review(ctx context.Context, req ReviewRequest) (*Reviewed, error) {
	repo, cfg, bare, err := openReviewRepo(ctx, req.Dir, req.Notices)
	if err != nil {
		return nil, err
	}
	rng, err := resolveRange(ctx, repo.Root, req.Range)
	if err != nil {
		return nil, err
	}
	if bare {
		// No work tree: the settings are those of the commit reviewed.
		if cfg, err = configAt(ctx, repo, rng.headSHA); err != nil {
			return nil, err
		}
		repo.MaxFileBytes = cfg.Limits.WithDefaults().MaxFileBytes
	}
	sc, err := check.Scanner(cfg.Secrets)
	if err != nil {
		return nil, err
	}
	base, err := repo.ReadRef(rng.baseSHA)
	if err != nil {
		return nil, fmt.Errorf("read memories at %s: %w", rng.baseRev, err)
	}
	head, err := repo.ReadRef(rng.headSHA)
	if err != nil {
		return nil, fmt.Errorf("read memories at %s: %w", rng.headRev, err)
	}
	rep := review.Compare(base, head, sc)
	rep.Base, rep.Head, rep.BaseCommit, rep.HeadCommit = rng.baseRev, rng.headRev, rng.baseSHA, rng.headSHA
	rep.MergeBase = rng.mergeBase
	return &Reviewed{Report: rep, Bare: bare, Unrelated: rng.unrelated}, nil
}

// RelevantToRange lists the memories of st attached to the code (not the
// memory files) that base..head changes; MayBeStale marks those whose own
// file the range left alone: the code moved on and the memory did not.
func RelevantToRange(ctx context.Context, st *contextfs.Store, base, head string) ([]ReviewRelevant, error) {
	files, err := branchdiff.Between(ctx, st.Repo.Root, base, head)
	if err != nil {
		return nil, err
	}
	memFiles := map[string]bool{}
	for _, f := range files {
		if gitstore.IsMemoryPath(f) {
			memFiles[f] = true
		}
	}
	files = slices.DeleteFunc(files, gitstore.IsMemoryPath)
	if len(files) == 0 {
		return nil, nil
	}
	es, err := st.List(ctx, contextfs.ListOptions{Attached: files})
	if err != nil {
		return nil, err
	}
	var out []ReviewRelevant
	for _, e := range es {
		out = append(out, ReviewRelevant{ID: e.ID, Type: e.Type, Title: e.Title, Path: e.Path, MayBeStale: !memFiles[e.Path]})
	}
	return out, nil
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

// ErrNoCommonHistory is the error of a review whose two sides share no
// history (A...B, or the default branch and HEAD).
var ErrNoCommonHistory = errors.New("no merge base")

// resolveRange resolves a review range in the repository at root (see
// Review for what each form compares). A...B whose sides share no
// history fails, as git diff A...B does.
func resolveRange(ctx context.Context, root, spec string) (reviewRange, error) {
	r := reviewRange{baseRev: spec, headRev: "HEAD"}
	twoDot := false
	switch {
	case spec == "":
		b, err := DefaultBranch(ctx, root)
		if errors.Is(err, ErrNoDefaultBranch) {
			return r, &RangeError{fmt.Errorf("%w; name the base, as in: git contextfs review origin/develop", err)}
		}
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
	mb, err := git.Output(ctx, root, "merge-base", r.baseSHA, r.headSHA)
	switch {
	case err != nil && twoDot && git.ExitCode(err) == 1:
		r.unrelated = true // no merge base: git merge-base exits 1 saying nothing
	case err != nil && git.ExitCode(err) == 1:
		return r, fmt.Errorf("%s and %s have no common history (compare the trees directly with %s..%s): %w",
			r.baseRev, r.headRev, r.baseRev, r.headRev, ErrNoCommonHistory)
	case err != nil: // git failed (a broken repository, a cancelled call): not a missing merge base
		return r, fmt.Errorf("review: merge base of %s and %s: %w", r.baseRev, r.headRev, err)
	case mb != r.baseSHA:
		r.baseSHA, r.mergeBase = mb, true
	}
	return r, nil
}

// resolveCommit returns the commit rev names; an unknown revision is a
// *RangeError that says so plainly, rather than git's own words.
func resolveCommit(ctx context.Context, root, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", &RangeError{fmt.Errorf("unknown revision %q", rev)}
	}
	sha, err := git.Output(ctx, root, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil || sha == "" {
		return "", &RangeError{fmt.Errorf("unknown revision %q: no commit of that name in %s", rev, root)}
	}
	return sha, nil
}

// openReviewRepo opens the repository around dir for a review: a work
// tree's, with its settings (their notices go to notices, as opening a
// store says them), or a bare repository (bare reports it), which a
// review can read since it needs only commits. git runs a bare
// repository's hooks with GIT_DIR set, where discovery takes the folder
// for a work tree. Unlike opening a store it leaves the cache alone, so
// a cache that cannot be opened does not stop a review.
func openReviewRepo(ctx context.Context, dir string, notices io.Writer) (*gitstore.Repo, contextfs.Config, bool, error) {
	repo, cfg, err := openFiles(dir, notices)
	if b, ok := errors.AsType[*gitstore.BareError](err); ok {
		return &gitstore.Repo{Root: b.Dir, GitDir: b.Dir, CommonDir: b.Dir}, contextfs.Config{}, true, nil
	}
	if err != nil {
		return nil, cfg, false, err
	}
	if os.Getenv("GIT_DIR") != "" {
		if out, err := git.Output(ctx, repo.Root, "rev-parse", "--is-bare-repository"); err == nil && out == "true" {
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
	content, err := git.Output(ctx, repo.Root, "cat-file", "blob", commit+":"+rel)
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
