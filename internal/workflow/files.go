package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/internal/check"
)

// The workflows that read memory files and settings, not a store: they
// leave the cache alone, so that a cache that cannot be opened (a git
// directory not writable) stops none of them, as it does not stop the
// pre-commit hook.

// openFiles finds the repository around dir and reads its settings,
// saying the config's notices to notices (nil: none) as opening a store
// says them.
func openFiles(dir string, notices io.Writer) (*gitstore.Repo, contextfs.Config, error) {
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return nil, contextfs.Config{}, err
	}
	cfg, err := contextfs.LoadConfig(repo)
	if err != nil {
		return nil, contextfs.Config{}, err
	}
	repo.MaxFileBytes = cfg.Limits.WithDefaults().MaxFileBytes // as contextfs.Open sets it
	if notices != nil {
		for _, n := range cfg.Notices() {
			fmt.Fprintln(notices, n)
		}
	}
	return repo, cfg, nil
}

// ValidateRequest validates memory files.
type ValidateRequest struct {
	// Dir is where the repository is looked for; Notices receives the
	// config's notices.
	Dir     string
	Notices io.Writer
	// Paths are files or folders (absolute, or relative to the current
	// directory); none is every memory file.
	Paths []string
	// NoSecrets leaves the secret scan out.
	NoSecrets bool
}

// Validation is what Validate found: the files read and their problems
// (never nil).
type Validation struct {
	Files    int
	Problems []contextfs.Problem
}

// Validate checks memory files against the format and their types'
// schemas, and scans them for secrets unless NoSecrets.
func Validate(_ context.Context, req ValidateRequest) (*Validation, error) {
	repo, cfg, err := openFiles(req.Dir, req.Notices)
	if err != nil {
		return nil, err
	}
	var probs []contextfs.Problem
	var n int
	if req.NoSecrets {
		probs, n, err = check.Validate(repo, req.Paths)
	} else {
		sc, serr := check.Scanner(cfg.Secrets)
		if serr != nil {
			return nil, serr
		}
		probs, n, err = check.ValidateWithSecrets(repo, req.Paths, sc)
	}
	if err != nil {
		return nil, err
	}
	if probs == nil {
		probs = []contextfs.Problem{}
	}
	return &Validation{Files: n, Problems: probs}, nil
}

// FmtTarget is a file or folder a person named for fmt: Arg as given (for
// messages), Abs where it is.
type FmtTarget struct{ Arg, Abs string }

// FmtRequest puts memory files in canonical form.
type FmtRequest struct {
	Dir     string
	Notices io.Writer
	// Targets are the files and folders named (folders: the memory files
	// under them); none is every memory file.
	Targets []FmtTarget
	// Check writes nothing and says which files would change.
	Check bool
}

// FmtResult is what Fmt did: the files checked, those changed (or, with
// Check, that would change) and those that do not parse.
type FmtResult = contextfs.FormatResult

// TargetError is a file or folder named for fmt that cannot be
// formatted: Usage when it is the caller's mistake (outside the
// repository, not a memory file), else it could not be read.
type TargetError struct {
	Arg   string
	Err   error
	Usage bool
}

// Error names the target and what is wrong with it.
func (e *TargetError) Error() string { return fmt.Sprintf("fmt %s: %v", e.Arg, e.Err) }

// Unwrap returns the reason.
func (e *TargetError) Unwrap() error { return e.Err }

// Fmt rewrites memory files in canonical form: the known frontmatter keys
// in order, the body never changed; a file is written only when its bytes
// change. The repository's limits apply: a file over the size limit is
// reported, not read.
func Fmt(_ context.Context, req FmtRequest) (FmtResult, error) {
	repo, _, err := openFiles(req.Dir, req.Notices)
	if err != nil {
		return FmtResult{}, err
	}
	paths, err := fmtTargets(repo, req.Targets)
	if err != nil {
		return FmtResult{}, err
	}
	return check.Format(repo, paths, !req.Check), nil
}

// fmtTargets are the memory files to format, work-tree relative: every
// memory, or those named and those under the folders named.
func fmtTargets(repo *gitstore.Repo, targets []FmtTarget) ([]string, error) {
	if len(targets) == 0 {
		entries, err := repo.List()
		if err != nil {
			return nil, err
		}
		out := make([]string, len(entries))
		for i, e := range entries {
			out[i] = e.Path
		}
		return out, nil
	}
	var out []string
	for _, t := range targets {
		fi, err := os.Lstat(t.Abs)
		if err != nil {
			return nil, &TargetError{Arg: t.Arg, Err: errors.Unwrap(err)}
		}
		rel := repo.Rel(t.Abs)
		if strings.HasPrefix(rel, "../") || rel == ".." || filepath.IsAbs(rel) {
			return nil, &TargetError{Arg: t.Arg, Err: fmt.Errorf("outside the repository %s", repo.Root), Usage: true}
		}
		if !fi.IsDir() {
			// A symbolic link is never a memory, and rewriting one would
			// replace the link with a file.
			if !fi.Mode().IsRegular() || !gitstore.IsMemoryPath(rel) {
				return nil, &TargetError{Arg: t.Arg, Err: fmt.Errorf("not a memory file (memories are .md files under %s/)", gitstore.Dir), Usage: true}
			}
			out = append(out, rel)
			continue
		}
		err = filepath.WalkDir(t.Abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != t.Abs && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if r := repo.Rel(p); d.Type().IsRegular() && gitstore.IsMemoryPath(r) {
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			return nil, &TargetError{Arg: t.Arg, Err: err}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// PreCommitRequest is the pre-commit check.
type PreCommitRequest struct {
	Dir string
	// Files, when set, are the work-tree files to check (as the
	// pre-commit framework names them: the staged ones, or every one for
	// --all-files); else the staged memory files are.
	Files    []string
	WorkTree bool
}

// PreCommitResult is the check's findings; Skipped, when set, says why
// nothing was checked.
type PreCommitResult struct {
	Check   *contextfs.StagedCheck
	Skipped string
}

// PreCommit validates and scans the staged memory files (or, with
// WorkTree, the files named), for the pre-commit hook: a commit is
// refused for invalid memories and secrets, never for formatting. As
// git's hook it leaves the check to the pre-commit framework when the
// framework is about to run contextfs' own hook, so that a commit with
// both installed is checked once.
func PreCommit(ctx context.Context, req PreCommitRequest) (*PreCommitResult, error) {
	repo, err := gitstore.Discover(req.Dir)
	if err != nil {
		return nil, err
	}
	var res *contextfs.StagedCheck
	if req.WorkTree {
		res, err = check.CheckWorkTreeFiles(repo, req.Files)
	} else {
		framework, ferr := hooks.FrameworkRunsContextfs(ctx, repo.Root, "pre-commit")
		if ferr == nil && framework {
			return &PreCommitResult{Skipped: "the pre-commit framework runs contextfs' hook next (.pre-commit-config.yaml)"}, nil
		}
		res, err = contextfs.CheckStaged(ctx, repo)
	}
	if err != nil {
		return nil, err
	}
	return &PreCommitResult{Check: res}, nil
}

// MergeDriver is how the merge driver stands in a work tree: registered
// in git's config, routed to by .gitattributes, and those in a few words.
type MergeDriver struct {
	State hooks.MergeDriverState
	// Err is why it could not be read; Text says it all in words.
	Err  error
	Text string
}

// MergeDriverStatus reads the merge driver's registration in the work
// tree at top, as hooks status and doctor report it.
func MergeDriverStatus(ctx context.Context, top string) MergeDriver {
	md, err := hooks.CheckMergeDriver(ctx, top)
	return MergeDriver{State: md, Err: err, Text: check.DescribeMergeDriver(md, err)}
}

// AfterGitRequest is a git hook run after git changed files or history:
// post-checkout, post-merge, post-commit or post-rewrite, with git's
// arguments to it.
type AfterGitRequest struct {
	Dir  string
	Hook string
	Args []string
}

// AfterGit is what a refresh after git did: Skipped says why nothing was
// done; else Refreshed is the cache's refresh.
type AfterGit struct {
	Skipped   string
	Refreshed contextfs.RefreshResult
	// Exported are the lines for stderr and ExportNote the debug note of
	// the post-commit hook's export (ExportOnCommit).
	Exported   []string
	ExportNote string
}

// RefreshAfterGit brings the cache up to date after git changed the
// files, so that the next search is fast. A checkout of files (HEAD did
// not move) is skipped, and so is every hook of a rebase in progress but
// post-rewrite, which refreshes once at its end.
func RefreshAfterGit(ctx context.Context, req AfterGitRequest) (*AfterGit, error) {
	if req.Hook == "post-checkout" && hooks.FileCheckout(req.Args) {
		return &AfterGit{Skipped: "a checkout of files, HEAD did not move"}, nil
	}
	repo, err := gitstore.Discover(req.Dir)
	if err != nil {
		return nil, err
	}
	if req.Hook != "post-rewrite" && hooks.RebaseInProgress(repo.GitDir) {
		return &AfterGit{Skipped: "rebase in progress"}, nil
	}
	st, err := contextfs.Open(ctx, contextfs.Options{Dir: repo.Root})
	if err != nil {
		return nil, fmt.Errorf("cache not refreshed: %w", err)
	}
	defer st.Close()
	r, err := st.Refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("cache not refreshed: %w", err)
	}
	res := &AfterGit{Refreshed: r}
	switch req.Hook {
	case "post-commit":
		res.Exported, res.ExportNote = ExportOnCommit(ctx, st, req.Hook)
	case "post-merge", "post-rewrite":
		res.Exported, res.ExportNote = ExportAfterGit(ctx, st, req.Hook, req.Args)
	}
	return res, nil
}
