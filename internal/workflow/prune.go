package workflow

import (
	"context"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/aging"
)

// PruneStep is one change prune makes or proposes.
type PruneStep = aging.Step

// Prune applies the aging rules of st's config to st, as of now: the
// latest progress supersedes older current ones, expired memories are
// removed, session summaries beyond the cap are proposed for condensing,
// and files validate rejects are reported and left alone. With dryRun it
// only returns the steps. It returns the steps planned, never nil.
func Prune(ctx context.Context, st *contextfs.Store, dryRun bool, now time.Time) ([]PruneStep, error) {
	steps, err := aging.Plan(ctx, st, aging.RulesOf(st.Config.Hygiene), now)
	if err != nil {
		return nil, err
	}
	if !dryRun {
		if err := aging.Apply(ctx, st, steps); err != nil {
			return nil, err
		}
	}
	if steps == nil {
		steps = []PruneStep{}
	}
	return steps, nil
}
