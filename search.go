package contextfs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/contextfs/contextfs/autoindex"
	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/query"
	"github.com/contextfs/contextfs/rank"
)

// Search modes.
const (
	ModeHybrid   = "hybrid"
	ModeKeyword  = "keyword"
	ModeSemantic = "semantic"
)

// Query is a search.
type Query struct {
	Text  string
	Types []string // memory types, or "code" / "commit" for the auto-index
	Tags  []string
	Since time.Time
	All   bool   // include superseded memories
	Mode  string // hybrid (default), keyword or semantic
	Limit int    // default 10
	// SemanticWeight overrides the configured fusion weight when non-nil.
	SemanticWeight *float64
	// Tests says what to do with test code: TestsInclude (the default:
	// ranked below other code of equal relevance), TestsExclude or
	// TestsOnly.
	Tests string
	// Group is "" (one result per chunk) or GroupFile: one result per file,
	// its best chunks under it, for "where is X handled" questions.
	Group string
}

// GroupFile is Query.Group for one result per file.
const GroupFile = "file"

// What Query.Tests accepts.
const (
	TestsInclude = "include"
	TestsExclude = "exclude"
	TestsOnly    = "only"
)

// minRelevance is the share of the best fused score below which a hybrid
// result is dropped rather than shown: chosen on `make bench-quality` as
// the largest floor that changes no hybrid MRR@10 there (docs/DESIGN.md).
const minRelevance = 0.1

// testWeight scales the score of a test chunk when tests are included: a
// test that echoes the words of the code it tests ranks below that code.
// Chosen on the code-search sets of `make bench-quality` (docs/DESIGN.md).
const testWeight = 0.5

// Result is one search hit.
type Result struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Type      string    `json:"type"`
	Title     string    `json:"title"`
	Path      string    `json:"path"`
	Score     float64   `json:"score"`
	Snippet   string    `json:"snippet"`
	Tags      []string  `json:"tags,omitempty"`
	Updated   time.Time `json:"updated,omitzero"`
	Keyword   float64   `json:"keyword_score"`
	Semantic  float64   `json:"semantic_score"`
	Symbol    string    `json:"symbol,omitempty"`
	Language  string    `json:"language,omitempty"`
	StartLine int       `json:"start_line,omitempty"`
	EndLine   int       `json:"end_line,omitempty"`
	Test      bool      `json:"test,omitempty"`
	// Chunks are a grouped file's further matching chunks, best first.
	Chunks []ChunkResult `json:"chunks,omitempty"`
}

// ChunkResult is one more matching chunk of a file under its grouped
// Result (a type of its own: a recursive Result has no JSON Schema).
type ChunkResult struct {
	ID        string  `json:"id"`
	Score     float64 `json:"score"`
	Keyword   float64 `json:"keyword_score"`
	Semantic  float64 `json:"semantic_score"`
	Symbol    string  `json:"symbol,omitempty"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Snippet   string  `json:"snippet"`
}

// kindWeight scales fused scores when memories, code and commits are
// ranked together, so a team's memories are not drowned by the many code
// chunks that mention the same words.
func kindWeight(k cache.Kind) float64 {
	switch k {
	case cache.KindCode:
		return 0.8
	case cache.KindCommit:
		return 0.7
	}
	return 1.0
}

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
	mode := q.Mode
	if mode == "" {
		mode = s.Config.Search.Mode
	}
	if mode == "" {
		mode = ModeHybrid
	}
	if mode != ModeHybrid && mode != ModeKeyword && mode != ModeSemantic {
		return nil, fmt.Errorf("unknown search mode %q (want hybrid, keyword or semantic)", mode)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = s.Config.Search.Limit
	}
	if limit <= 0 {
		limit = 10
	}
	w := rank.DefaultSemanticWeight
	if s.Config.Search.SemanticWeight != nil {
		w = *s.Config.Search.SemanticWeight
	}
	if q.SemanticWeight != nil {
		w = *q.SemanticWeight
	}
	if q.Tests != "" && q.Tests != TestsInclude && q.Tests != TestsExclude && q.Tests != TestsOnly {
		return nil, fmt.Errorf("unknown tests option %q (want include, exclude or only)", q.Tests)
	}
	if q.Group != "" && q.Group != GroupFile {
		return nil, fmt.Errorf("unknown grouping %q (want file)", q.Group)
	}
	kinds, memTypes, codeTypes := splitKinds(q.Types, q.Tests)
	f, err := s.filter(memTypes, q.Tags, q.Since, q.All)
	if err != nil {
		return nil, err
	}
	// The query syntax: phrases and prefixes rank beside the words,
	// phrases and OR groups are required, "-" parts excluded.
	text, phrases := q.Text, []string(nil)
	if pq := query.Parse(q.Text); pq.Syntax() {
		f.Match, f.NotMatch = pq.Match()
		var plain []string
		for _, p := range pq.Rank {
			if len(p.Words) == 1 && !p.Prefix {
				plain = append(plain, p.Words[0])
			} else {
				phrases = append(phrases, p.FTS())
			}
		}
		text = strings.Join(plain, " ")
		q.Text = pq.Plain
	}
	var qvec []float32
	if mode != ModeKeyword {
		vs, err := s.emb.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		qvec = vs[0]
	}
	depth := max(limit*3, 30)
	if q.Group == GroupFile {
		depth *= 4 // several chunks per file
	}
	var all []scoredKind
	type ranked struct{ kw, sem []cache.Hit }
	byKind := make([]ranked, len(kinds))
	for i, k := range kinds {
		kf := f
		switch k {
		case cache.KindCode:
			kf.Types = nil // filtered on the hits below (ofTypes)
		case cache.KindCommit:
			kf.Types = nil
		}
		// The two rankers are independent: in hybrid mode they run at once,
		// one per core.
		var kw, sem []cache.Hit
		var kwErr, semErr error
		var wg sync.WaitGroup
		if mode != ModeSemantic {
			wg.Add(1)
			go func() {
				defer wg.Done()
				kw, kwErr = s.cache.KeywordPhrases(ctx, k, text, phrases, kf, depth)
			}()
		}
		if mode != ModeKeyword {
			sem, semErr = s.cache.Semantic(ctx, k, qvec, kf, depth)
		}
		wg.Wait()
		if err := cmp.Or(kwErr, semErr); err != nil {
			return nil, err
		}
		if k == cache.KindCode && codeTypes != nil {
			if kw, sem, err = s.ofTypes(ctx, codeTypes, kw, sem); err != nil {
				return nil, err
			}
		}
		byKind[i] = ranked{kw, sem}
	}
	// One BM25 scale for every kind: the best match of the query, whatever
	// its kind, scores 1 on the keyword side.
	var kwMax float64
	for _, r := range byKind {
		for _, h := range r.kw {
			kwMax = max(kwMax, h.Score)
		}
	}
	for i, k := range kinds {
		kw, sem := byKind[i].kw, byKind[i].sem
		var fused []rank.Scored
		switch mode {
		case ModeKeyword:
			fused = rank.FuseScaled(hits(kw), nil, nil, 0, kwMax)
		case ModeSemantic:
			fused = rank.Semantic(hits(sem))
		default:
			var missing []int64
			inSem := map[int64]bool{}
			for _, h := range sem {
				inSem[h.Row] = true
			}
			for _, h := range kw {
				if !inSem[h.Row] {
					missing = append(missing, h.Row)
				}
			}
			extra, err := s.cache.Cosine(ctx, k, qvec, missing)
			if err != nil {
				return nil, err
			}
			fused = rank.FuseScaled(hits(kw), hits(sem), extra, w, kwMax)
		}
		for _, sc := range fused {
			if len(kinds) > 1 {
				sc.Score *= kindWeight(k)
			}
			all = append(all, scoredKind{sc, k})
		}
	}
	// Test chunks are known by their rows' type.
	cand := make([]int64, len(all))
	for i, a := range all {
		cand[i] = a.Row
	}
	rows, err := s.cache.Rows(ctx, cand)
	if err != nil {
		return nil, err
	}
	typed := all[:0]
	for _, a := range all {
		r, ok := rows[a.Row]
		if !ok {
			continue
		}
		// Test chunks rank below other code of equal relevance.
		if a.kind == cache.KindCode && r.Type == autoindex.TypeTest && q.Tests != TestsOnly {
			a.Score *= testWeight
		}
		typed = append(typed, a)
	}
	all = typed
	// A document that matches neither by keyword nor by meaning is not a
	// result, however few results there are; nor is one far below the best
	// result (minRelevance), which would only pad the list.
	var best float64
	for _, a := range all {
		best = max(best, a.Score)
	}
	kept := all[:0]
	for _, a := range all {
		if a.Score > 0 && (mode != ModeHybrid || a.Score >= minRelevance*best) {
			kept = append(kept, a)
		}
	}
	all = kept
	sortScored(all)
	// Rows are numbered in the order a cache happened to index documents;
	// ties must not depend on that, so fetch a margin and break ties by ID.
	if len(all) > limit+20 && q.Group == "" {
		all = all[:limit+20]
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Score != all[j].Score {
			return all[i].Score > all[j].Score
		}
		if all[i].kind != all[j].kind {
			return all[i].kind < all[j].kind
		}
		return rows[all[i].Row].MID+rows[all[i].Row].Path < rows[all[j].Row].MID+rows[all[j].Row].Path
	})
	terms := queryTerms(q.Text)
	if q.Group == GroupFile {
		return groupByFile(all, rows, terms, limit), nil
	}
	if len(all) > limit {
		all = all[:limit]
	}
	out := make([]Result, 0, len(all))
	for _, a := range all {
		if r, ok := rows[a.Row]; ok {
			out = append(out, result(a, r, terms))
		}
	}
	return out, nil
}

// groupByFile folds the ranked hits into one result per file, the best
// chunk first with up to maxGroupChunks more of the same file under it
// (Result.Chunks); memories and commits stand alone. limit counts files.
func groupByFile(all []scoredKind, rows map[int64]cache.Row, terms []string, limit int) []Result {
	var out []Result
	at := map[string]int{}
	for _, a := range all {
		r, ok := rows[a.Row]
		if !ok {
			continue
		}
		if r.Kind != cache.KindCode {
			if len(out) < limit {
				out = append(out, result(a, r, terms))
			}
			continue
		}
		if i, ok := at[r.Path]; ok {
			if len(out[i].Chunks) < maxGroupChunks {
				c := result(a, r, terms)
				out[i].Chunks = append(out[i].Chunks, ChunkResult{ID: c.ID, Score: c.Score, Keyword: c.Keyword, Semantic: c.Semantic,
					Symbol: c.Symbol, StartLine: c.StartLine, EndLine: c.EndLine, Snippet: c.Snippet})
			}
			continue
		}
		if len(out) < limit {
			at[r.Path] = len(out)
			out = append(out, result(a, r, terms))
		}
	}
	return out
}

// maxGroupChunks is how many more chunks of a file a grouped result lists.
const maxGroupChunks = 3

// result is the Result of one ranked row.
func result(a scoredKind, r cache.Row, terms []string) Result {
	id, kind := r.MID, r.Kind.String()
	if r.Kind == cache.KindCode {
		id = fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
		if r.Type == autoindex.TypeDoc {
			kind = autoindex.TypeDoc
		}
	}
	return Result{
		ID: id, Kind: kind, Test: r.Kind == cache.KindCode && r.Type == autoindex.TypeTest, Type: r.Type, Title: r.Title, Path: r.Path, Score: round(a.Score),
		Snippet: Snippet(r.Body, terms, 200), Tags: r.Tags, Updated: r.Updated, Keyword: round(a.Keyword),
		Semantic: round(a.Semantic), Symbol: r.Symbol, Language: r.Lang, StartLine: r.StartLine, EndLine: r.EndLine,
	}
}

// ofTypes keeps the code hits whose chunk type is one of types. Chunk
// types are filtered on the hits rather than in the cache: a type filter
// there takes the rankers off their fast paths (a code search took twice
// as long; ranking twice as deep to make up for the dropped hits cost 30%
// of CLI p50 and changed no MRR@10 on bench-quality).
func (s *Store) ofTypes(ctx context.Context, types []string, kw, sem []cache.Hit) ([]cache.Hit, []cache.Hit, error) {
	ids := make([]int64, 0, len(kw)+len(sem))
	for _, h := range kw {
		ids = append(ids, h.Row)
	}
	for _, h := range sem {
		ids = append(ids, h.Row)
	}
	rows, err := s.cache.Rows(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	keep := func(hs []cache.Hit) []cache.Hit {
		out := hs[:0]
		for _, h := range hs {
			if r, ok := rows[h.Row]; ok && slices.Contains(types, r.Type) {
				out = append(out, h)
			}
		}
		return out
	}
	return keep(kw), keep(sem), nil
}

type scoredKind struct {
	rank.Scored
	kind cache.Kind
}

func sortScored(s []scoredKind) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func less(a, b scoredKind) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.Row < b.Row
}

func hits(hs []cache.Hit) []rank.Hit {
	out := make([]rank.Hit, len(hs))
	for i, h := range hs {
		out[i] = rank.Hit{Row: h.Row, Score: h.Score}
	}
	return out
}

func round(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// splitKinds separates the pseudo-types of the auto-index from memory
// types: "code" is source code (and tests, as tests says), "doc" is
// documentation files as well as doc memories, "commit" is history. It
// returns the kinds to search, the memory types, and the chunk types of
// the code kind. No types means every kind; tests "only" means test code
// alone.
func splitKinds(types []string, tests string) ([]cache.Kind, []string, []string) {
	var kinds []cache.Kind
	var mem, code []string
	addKind := func(k cache.Kind) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	source := []string{autoindex.TypeCode, autoindex.TypeTest}
	switch tests {
	case TestsExclude:
		source = source[:1]
	case TestsOnly:
		return []cache.Kind{cache.KindCode}, nil, []string{autoindex.TypeTest}
	}
	for _, t := range cleanList(types) {
		switch strings.ToLower(t) {
		case "code":
			addKind(cache.KindCode)
			code = append(code, source...)
		case "doc":
			addKind(cache.KindCode)
			code = append(code, autoindex.TypeDoc)
			mem = append(mem, t)
		case "commit":
			addKind(cache.KindCommit)
		default:
			mem = append(mem, t)
		}
	}
	if len(mem) > 0 {
		addKind(cache.KindMemory)
	}
	if len(kinds) == 0 {
		kinds = []cache.Kind{cache.KindMemory, cache.KindCode, cache.KindCommit}
		if tests == TestsExclude {
			code = []string{autoindex.TypeCode, autoindex.TypeDoc}
		}
	}
	return kinds, mem, code
}

func queryTerms(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 {
			out = append(out, w)
		}
	}
	return out
}

// Snippet picks the line of body that shares the most words (or word
// stems) with the query, cut to n characters; the first non-empty line
// when none does.
func Snippet(body string, terms []string, n int) string {
	best, bestScore := "", -1
	for _, line := range strings.Split(body, "\n") {
		l := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#>-*"))
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		low := strings.ToLower(l)
		score := 0
		for _, t := range terms {
			stem := t
			if len(stem) > 5 {
				stem = stem[:len(stem)-2]
			}
			if strings.Contains(low, stem) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = l, score
		}
	}
	return cutRunes(best, n)
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
