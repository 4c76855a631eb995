package hooks

import (
	"context"
	"slices"
)

// ExportNeedsHookAdvice is what to do when ExportOnCommitKey is set and the
// post-commit hook, which does the exporting, will not run.
const ExportNeedsHookAdvice = "exports on commit need the post-commit hook: git contextfs hooks install"

// ExportUnhooked returns the targets ExportOnCommitKey lists in the clone
// holding workTree when the post-commit hook among states (Status's) will
// not run them — not installed, outdated or not executable — so that
// nothing is exported though the person asked for it; nil when the key is
// unset or the hook runs.
func ExportUnhooked(ctx context.Context, workTree string, states []State) ([]string, error) {
	targets, err := ExportOnCommit(ctx, workTree)
	if err != nil || len(targets) == 0 {
		return nil, err
	}
	if slices.ContainsFunc(states, func(s State) bool { return s.Name == "post-commit" && s.Runs() }) {
		return nil, nil
	}
	return targets, nil
}
