package contextfs

import (
	"context"
	"fmt"

	"github.com/contextfs/contextfs/cache"
)

// Refresh brings the cache up to date after git changed the work tree or
// the history: a checkout, merge, rebase or commit. Memories are synced;
// the code and commit index is updated only when auto_index is on and a
// first index was already built. A first index of a large repository can
// take minutes, and a hook that adds them to a checkout is a hook people
// uninstall; the next search or `index` builds it, with progress shown.
func (s *Store) Refresh(ctx context.Context) (RefreshResult, error) {
	var r RefreshResult
	if s.cache.ReadOnly() {
		return r, nil // answers come from the cache as it is (Open said so)
	}
	// Not Sync: a refresh that could not be done is said so (a hook warns),
	// where a command that reads would answer from the cache as it was.
	st, err := s.syncOrRebuild(ctx)
	if err != nil && !cache.IsUnwritable(err) {
		return r, fmt.Errorf("sync memories: %w", err)
	}
	r.Memories, r.Changed, r.Removed = st.Files, st.Stale, st.Removed
	if !s.Config.Index.AutoIndexOn() || s.cache.Meta(ctx, "code:last") == "" {
		return r, nil
	}
	if _, err := s.AutoIndex(ctx, nil); err != nil {
		return r, fmt.Errorf("update code index: %w", err)
	}
	r.Code = true
	return r, nil
}

// RefreshResult says what Refresh did, for hook debugging output.
type RefreshResult struct {
	Memories int  // memory files in the work tree
	Changed  int  // memory files new or changed since the last sync
	Removed  int  // memory files gone since the last sync
	Code     bool // the code and commit index was updated too
}
