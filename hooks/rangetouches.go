package hooks

import (
	"context"
	"fmt"
	"strings"
)

// RangeTouches reports whether the tree of to differs from the tree of
// from under dir (a slash-separated path relative to the top of the work
// tree): what a merge or a rebase brought in, from ORIG_HEAD, which both
// set to where HEAD was before, to HEAD. ok is false when from names no
// commit (no merge or rebase has set ORIG_HEAD yet). One `git diff-tree`.
func RangeTouches(ctx context.Context, workTree, from, to, dir string) (touched, ok bool, err error) {
	if _, err := git(ctx, workTree, "rev-parse", "--verify", "--quiet", from+"^{commit}"); err != nil {
		if exitCode(err) == 1 {
			return false, false, nil
		}
		return false, false, fmt.Errorf("resolve %s: %w", from, err)
	}
	out, err := git(ctx, workTree, "diff-tree", "-r", "--name-only", "-z", from, to, "--", dir)
	if err != nil {
		return false, true, fmt.Errorf("list the files %s..%s changed: %w", from, to, err)
	}
	return strings.Trim(out, "\x00\n") != "", true, nil
}
