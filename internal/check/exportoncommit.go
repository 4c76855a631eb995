package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextfs/contextfs/hooks"
)

// ExportOnCommit reports on the export this clone's git config asks the
// post-commit hook for (hooks.ExportOnCommitKey); shown is false when the
// key is unset, as it is for most clones. A set key whose hook will not
// run is a warning: the person asked for an export that never happens.
func ExportOnCommit(ctx context.Context, root string, states []hooks.State) (c Diagnosis, shown bool) {
	c = Diagnosis{Name: "export-on-commit", OK: true}
	targets, err := hooks.ExportOnCommit(ctx, root)
	if err != nil {
		c.Warning, c.Message = true, err.Error()
		return c, true
	}
	if len(targets) == 0 {
		return c, false
	}
	unhooked, err := hooks.ExportUnhooked(ctx, root, states)
	switch {
	case err != nil:
		c.Warning, c.Message = true, err.Error()
	case len(unhooked) > 0:
		c.Warning = true
		c.Message = fmt.Sprintf("git config %s is %s, but the post-commit hook will not run: %s",
			hooks.ExportOnCommitKey, strings.Join(unhooked, ","), hooks.ExportNeedsHookAdvice)
	default:
		c.Message = fmt.Sprintf("the hooks export %s after commits, merges and rebases that change memories", strings.Join(targets, ", "))
	}
	return c, true
}
