// Package branchdiff finds the files a branch changes: what differs
// between the work tree (index included) and the merge-base of HEAD with
// the repository's default branch (or, failing that, the upstream), plus
// untracked files. The context block and review use it to find the
// memories attached to the code at hand.
package branchdiff

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"

	gitcli "github.com/contextfs/contextfs/internal/git"
)

// Changes is what a branch changes.
type Changes struct {
	// Base is the ref the branch is compared with ("" when there is none,
	// for example in a repository without commits).
	Base string `json:"base,omitempty"`
	// MergeBase is the commit the diff starts from.
	MergeBase string `json:"merge_base,omitempty"`
	// Files are the changed files, relative to the root, sorted.
	Files []string `json:"files"`
}

// Files returns what the branch checked out in the work tree at root
// changes. A repository without commits reports every file in it.
func Files(ctx context.Context, root string) (Changes, error) {
	return FilesUnder(ctx, root, nil)
}

// FilesUnder is Files limited to the files at or below the paths in
// within (relative to root; none means everywhere): what a caller that
// only matches the answer against known globs needs (pathglob.Roots), and
// all git has to look at, so a large work tree costs no more than the
// part of it that matters.
func FilesUnder(ctx context.Context, root string, within []string) (Changes, error) {
	var ch Changes
	if _, err := git(ctx, root, "rev-parse", "--verify", "-q", "HEAD"); err != nil {
		out, err := git(ctx, root, pathspecs(within, "ls-files", "-z", "--cached", "--others", "--exclude-standard")...)
		if err != nil {
			return ch, err
		}
		ch.Files = split(out)
		return ch, nil
	}
	ch.Base = base(ctx, root)
	ch.MergeBase = "HEAD"
	if ch.Base != "" {
		if mb, err := git(ctx, root, "merge-base", "HEAD", ch.Base); err == nil {
			ch.MergeBase = strings.TrimSpace(string(mb))
		}
	}
	return diffFrom(ctx, root, ch, within)
}

// pathspecs appends to a git command line the paths in within as literal
// pathspecs (no glob characters, each matching itself and what is below
// it), after "--".
func pathspecs(within []string, args ...string) []string {
	if len(within) == 0 {
		return args
	}
	args = append(args, "--")
	for _, p := range within {
		args = append(args, ":(literal)"+p)
	}
	return args
}

// diffFrom fills ch.Files: the work tree's differences from ch.MergeBase
// and the untracked files, at or below within.
func diffFrom(ctx context.Context, root string, ch Changes, within []string) (Changes, error) {
	args := []string{"diff", "--name-only", "-z", "--no-renames", ch.MergeBase}
	if len(within) == 0 {
		args = append(args, "--")
	}
	diff, err := git(ctx, root, pathspecs(within, args...)...)
	if err != nil {
		return ch, err
	}
	untracked, err := git(ctx, root, pathspecs(within, "ls-files", "-z", "--others", "--exclude-standard")...)
	if err != nil {
		return ch, err
	}
	files := append(split(diff), split(untracked)...)
	slices.Sort(files)
	ch.Files = slices.Compact(files)
	return ch, nil
}

// Between returns the files that differ between two commits, sorted:
// what a reviewed range changes.
func Between(ctx context.Context, root, base, head string) ([]string, error) {
	out, err := git(ctx, root, "diff", "--name-only", "-z", "--no-renames", base, head, "--")
	if err != nil {
		return nil, err
	}
	files := split(out)
	slices.Sort(files)
	return files, nil
}

// ErrNoDefaultBranch is DefaultBranch's answer in a repository with none
// of the refs it looks for.
var ErrNoDefaultBranch = errors.New("cannot tell the default branch (no origin/HEAD, main, master, origin/main, origin/master or upstream)")

// DefaultBranch names the branch a branch is compared with, by the one
// rule that the context block and review share: the remote's default
// branch (origin/HEAD), a local main or master, origin/main or
// origin/master (a CI checkout often has only these), then the upstream.
// The upstream comes last because a pushed feature branch's upstream is
// itself, which would hide everything already pushed. Without any of them
// it returns ErrNoDefaultBranch; a failure to run git is returned as is.
func DefaultBranch(ctx context.Context, root string) (string, error) {
	out, err := git(ctx, root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
	if err == nil {
		if b := strings.TrimSpace(string(out)); b != "" {
			return b, nil
		}
	} else if gitcli.ExitCode(err) < 0 {
		return "", err // git did not run, or ctx ended
	}
	for _, b := range []string{"refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"} {
		if _, err := git(ctx, root, "rev-parse", "--verify", "-q", b+"^{commit}"); err == nil {
			return strings.TrimPrefix(strings.TrimPrefix(b, "refs/heads/"), "refs/remotes/"), nil
		}
	}
	if out, err := git(ctx, root, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err == nil {
		if b := strings.TrimSpace(string(out)); b != "" {
			return b, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "", ErrNoDefaultBranch
}

// base is DefaultBranch, "" when there is none: the diff then starts at
// HEAD.
func base(ctx context.Context, root string) string {
	b, _ := DefaultBranch(ctx, root)
	return b
}

func split(out []byte) []string {
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return gitcli.Run(ctx, dir, args...)
}
