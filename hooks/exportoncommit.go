package hooks

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ExportOnCommitKey is the git config key that lists the export targets
// (agents-md, claude-md, cursor-rules; comma-separated, or one value each)
// that the post-commit hook keeps current. It is read from this clone's
// own git config only (`git config --local`, with its includes): what
// runs on a commit is the person's choice, never the repository's, so no
// file the repository carries (.contextfs/config.yaml, a tracked
// .gitconfig) can turn it on. See docs/AGENTS.md.
const ExportOnCommitKey = "contextfs.exportOnCommit"

// ExportOnCommit returns the targets ExportOnCommitKey lists in the local
// git config of the repository holding workTree, in the order first
// named, without repeats or empty items; none when the key is unset. The
// names are returned as written: the caller knows which targets exist.
func ExportOnCommit(ctx context.Context, workTree string) ([]string, error) {
	out, err := git(ctx, workTree, "config", "--local", "--includes", "--get-all", ExportOnCommitKey)
	if exitCode(err) == 1 {
		return nil, nil // unset
	}
	if err != nil {
		return nil, fmt.Errorf("read git config %s: %w", ExportOnCommitKey, err)
	}
	var targets []string
	for _, line := range strings.Split(out, "\n") {
		for _, t := range strings.Split(line, ",") {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
	}
	return targets, nil
}

// SetExportOnCommit adds target to ExportOnCommitKey in the local git
// config of the repository holding workTree (on), or takes it out (!on),
// keeping the other targets, and returns the targets listed afterwards.
// The key is written as one comma-separated value, or unset when nothing
// is left.
func SetExportOnCommit(ctx context.Context, workTree, target string, on bool) ([]string, error) {
	cur, err := ExportOnCommit(ctx, workTree)
	if err != nil {
		return nil, err
	}
	next := slices.DeleteFunc(slices.Clone(cur), func(t string) bool { return t == target })
	if on {
		next = append(next, target)
	}
	if slices.Equal(next, cur) {
		return cur, nil
	}
	if len(next) == 0 {
		if _, err := git(ctx, workTree, "config", "--local", "--unset-all", ExportOnCommitKey); err != nil && exitCode(err) != 5 {
			return nil, fmt.Errorf("unset git config %s: %w", ExportOnCommitKey, err)
		}
		return nil, nil
	}
	if _, err := git(ctx, workTree, "config", "--local", "--replace-all", ExportOnCommitKey, strings.Join(next, ",")); err != nil {
		return nil, fmt.Errorf("set git config %s: %w", ExportOnCommitKey, err)
	}
	return next, nil
}

// CommitTouches reports whether the commit rev changed anything under dir
// (a slash-separated path relative to the top of the work tree): against
// its first parent, so that a merge concluded with `git commit` counts
// what it brought in, or everything for a root commit. It costs one
// `git diff-tree`, cheap enough for every commit.
func CommitTouches(ctx context.Context, workTree, rev, dir string) (bool, error) {
	out, err := git(ctx, workTree, "diff-tree", "-r", "--root", "-m", "--first-parent",
		"--no-commit-id", "--name-only", "-z", rev, "--", dir)
	if err != nil {
		return false, fmt.Errorf("list the files commit %s changed: %w", rev, err)
	}
	return strings.Trim(out, "\x00\n") != "", nil
}
