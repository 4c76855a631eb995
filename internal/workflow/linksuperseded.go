package workflow

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
)

// supersededTarget returns the memories that supersede the link target
// (a full ID; nil for a current memory), leaving out from, the linking
// memory, whose own supersedes link is not news. A link to an old version
// is kept — it may name history on purpose, and unlink undoes it — but
// Link says so, naming what replaced it, because a link made from a
// stale ID usually meant the current version.
func supersededTarget(ctx context.Context, st *contextfs.Store, from, target string) ([]string, error) {
	by, err := st.SupersededBy(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("link target %s: %w", target, err)
	}
	return slices.DeleteFunc(by, func(id string) bool { return id == from }), nil
}

// Notice says, when the link's target is superseded, which memories
// supersede it; "" when it is current (or a URL).
func (l *Linked) Notice() string {
	if len(l.TargetSupersededBy) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is superseded by %s: the link names an old version; to link the current one, unlink it and link %s",
		l.Target, strings.Join(l.TargetSupersededBy, ", "), l.TargetSupersededBy[0])
}
