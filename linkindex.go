package contextfs

import (
	"context"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/search"
)

// The narrow questions the capabilities above the root (links, lineage,
// scope, the pages server) ask of the memory index: each is one indexed
// look-up, read as the last sync left the cache (the caller syncs, as
// Resolve does), so that none of them reaches into the cache itself.

// LinksFrom returns, for each of the memories ids (superseded ones too)
// that has edges, its edges in the order they were stored, each "TO REL":
// its links and supersedes: entries (search.AttrLink).
func (s *Store) LinksFrom(ctx context.Context, ids []string) (map[string][]string, error) {
	return s.cache.AttrValues(ctx, cache.KindMemory, search.AttrLink, cache.Filter{MIDs: ids, All: true})
}

// LinksTo returns, for each memory with an edge to the memory id, those
// edges ("ID REL"), keyed by the memory they come from.
func (s *Store) LinksTo(ctx context.Context, id string) (map[string][]string, error) {
	// "ID " up to "ID!": the values that name id as their target.
	return s.cache.AttrValuesIn(ctx, cache.KindMemory, search.AttrLink, id+" ", id+"!")
}

// Entries returns the index entries of the memories ids (superseded ones
// too), by ID; an ID the index does not hold is left out.
func (s *Store) Entries(ctx context.Context, ids []string) (map[string]Entry, error) {
	rows, err := s.cache.List(ctx, cache.KindMemory, cache.Filter{MIDs: ids, All: true}, 0)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Entry, len(rows))
	for _, r := range rows {
		if _, ok := out[r.MID]; !ok {
			out[r.MID] = entryOf(r)
		}
	}
	return out, nil
}

// Superseders returns, for each memory that memories supersede (by a
// supersedes: entry or a link of rel supersedes), the IDs of those
// memories, sorted: what list --all marks, in one look-up.
func (s *Store) Superseders(ctx context.Context) (map[string][]string, error) {
	edges, err := s.cache.AttrValues(ctx, cache.KindMemory, search.AttrLink, cache.Filter{All: true})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for by, es := range edges {
		for _, e := range es {
			if id, ok := strings.CutSuffix(e, " supersedes"); ok {
				out[id] = append(out[id], by)
			}
		}
	}
	for id := range out {
		slices.Sort(out[id])
		out[id] = slices.Compact(out[id])
	}
	return out, nil
}

// CountByType returns the number of current memories of each type.
func (s *Store) CountByType(ctx context.Context) (map[string]int, error) {
	by, _, err := s.cache.Counts(ctx, cache.KindMemory)
	return by, err
}

// PrepareSearch brings the memory search state up to date with the
// index now, so that the next search does not load a change first (the
// warm-answer server does it while idle); PrepareSearchLater does it in
// the background.
func (s *Store) PrepareSearch(ctx context.Context) error {
	return s.cache.Prepare(ctx, cache.KindMemory)
}

// SearchReady reports whether the memory search state matches the index:
// the next search loads nothing first.
func (s *Store) SearchReady(ctx context.Context) bool {
	return s.cache.SearchReady(ctx, cache.KindMemory)
}
