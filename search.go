package contextfs

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/search"
	"github.com/contextfs/contextfs/memory"
)

// Search modes; see package search.
const (
	ModeHybrid   = search.ModeHybrid
	ModeKeyword  = search.ModeKeyword
	ModeSemantic = search.ModeSemantic
)

type (
	// Query is a search; see search.Query.
	Query = search.Query
	// Result is one search hit; see search.Result.
	Result = search.Result
	// ChunkResult is a further chunk of a grouped file; see search.ChunkResult.
	ChunkResult = search.ChunkResult
	// Attainable is what a store's keyword ranking of a query can attain,
	// word by word; see search.Attainable.
	Attainable = search.Attainable
)

// ShareKeywordStats is the Query.Shared that ranks several stores with
// the keyword statistics of them all, from what each attains
// (Store.Attainable); see search.Share.
func ShareKeywordStats(stores ...Attainable) *search.Shared { return search.Share(stores...) }

// Attainable syncs the store's cache and returns what its keyword ranking
// of q attains, word by word: the first phase of a search across stores,
// which then searches each with SearchIndexed and the scale they share
// (ShareKeywordStats, docs/SCOPES.md).
func (s *Store) Attainable(ctx context.Context, q Query) (Attainable, error) {
	if _, err := s.Sync(ctx); err != nil {
		return nil, err
	}
	e := search.Engine{Cache: s.cache, Embedder: s.emb, Defaults: s.Config.Search}
	return e.Attainable(ctx, q)
}

// MaxSearchLimit is the largest Query.Limit; see search.MaxLimit.
const MaxSearchLimit = search.MaxLimit

// GroupFile is Query.Group for one result per file; see search.GroupFile.
const GroupFile = search.GroupFile

// What Query.Tests accepts; see search.Query.
const (
	TestsInclude = search.TestsInclude
	TestsExclude = search.TestsExclude
	TestsOnly    = search.TestsOnly
)

// Search finds memories (and, when indexed, code and commits) matching q.
func (s *Store) Search(ctx context.Context, q Query) ([]Result, error) {
	if _, err := s.Sync(ctx); err != nil {
		return nil, err
	}
	return s.SearchIndexed(ctx, q)
}

// SearchIndexed searches without syncing first: for callers that just
// synced (and benchmarks of the search itself).
func (s *Store) SearchIndexed(ctx context.Context, q Query) ([]Result, error) {
	e := search.Engine{Cache: s.cache, Embedder: s.emb, Defaults: s.Config.Search,
		KeywordOnly: func(err error) { s.noteUnavailable("keyword results only", err) }}
	res, err := e.Search(ctx, q)
	if err == nil {
		err = checkAnswers(res)
	}
	if again, err := s.rebuildIfCorrupt(ctx, err); !again {
		return res, err
	}
	e.Cache = s.cache // the rebuilt one
	if res, err = e.Search(ctx, q); err == nil {
		err = checkAnswers(res)
	}
	return res, err
}

// checkAnswers is the sanity check every search answer passes, at a cost
// of nanoseconds a result: no score is NaN or infinite, a memory's scores
// lie in [0, 1] (the fusion's range; code chunks may pass 1 by the
// evidence of their file's other chunks, and a cosine may be negative),
// and memory IDs are well formed. A value outside them can only come from
// a damaged cache that the checks of Guard did not see (a byte changed
// beneath the file system after it was checked); the error makes the
// caller rebuild and search again.
func checkAnswers(res []Result) error {
	const slack = 1e-9
	odd := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	unit := func(x float64) bool { return x >= -slack && x <= 1+slack }
	for _, r := range res {
		if odd(r.Score) || odd(r.Keyword) || odd(r.Semantic) || odd(r.FileScore) ||
			r.Semantic < -1-slack || r.Semantic > 1+slack ||
			r.Kind == "memory" && (!unit(r.Score) || !unit(r.Keyword)) {
			return fmt.Errorf("%w: search answered %s with score %v (keyword %v, semantic %v), out of range", cache.ErrDamaged, r.ID, r.Score, r.Keyword, r.Semantic)
		}
		if r.Kind == "memory" && !memory.ValidID(strings.ToLower(r.ID)) {
			return fmt.Errorf("%w: search answered a memory with the malformed ID %q", cache.ErrDamaged, r.ID)
		}
	}
	return nil
}

// Snippet picks the line of body that best matches the query terms, cut
// to n characters; see search.Snippet.
func Snippet(body string, terms []string, n int) string { return search.Snippet(body, terms, n) }
