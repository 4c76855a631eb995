// Package search answers queries over the cache: it ranks memories, code
// chunks and commits by keyword (BM25) and by meaning (cosine of
// embeddings), fuses the two rankings (fuse.go) and picks a snippet per
// hit. It reads the cache and never syncs it; the front door does that.
package search

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

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/config"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/memory"
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
	// Attached keeps memories whose paths cover any of these files.
	Attached []string
	// Source keeps memories written by this tool; Session, in this session.
	Source, Session string
}

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

// Engine searches one repository's cache. The front door (contextfs.Store)
// holds one; benchmarks and tools may build their own over an open cache.
type Engine struct {
	Cache    *cache.Cache
	Embedder embed.Embedder
	// Defaults are the repository's search settings (config search:),
	// used where a Query leaves a field zero.
	Defaults config.SearchConfig
}

// settings are a query's mode, limit and fusion weight once the defaults
// are applied.
type settings struct {
	mode   string
	limit  int
	weight float64
}

// settings applies the defaults to q: the query's own value, else the
// config's, else the built-in one.
func (e *Engine) settings(q Query) (settings, error) {
	st := settings{mode: cmp.Or(q.Mode, e.Defaults.Mode, ModeHybrid), limit: 10, weight: DefaultSemanticWeight}
	if st.mode != ModeHybrid && st.mode != ModeKeyword && st.mode != ModeSemantic {
		return st, fmt.Errorf("unknown search mode %q (want hybrid, keyword or semantic)", st.mode)
	}
	switch {
	case q.Limit > 0:
		st.limit = q.Limit
	case e.Defaults.Limit > 0:
		st.limit = e.Defaults.Limit
	}
	if e.Defaults.SemanticWeight != nil {
		st.weight = *e.Defaults.SemanticWeight
	}
	if q.SemanticWeight != nil {
		st.weight = *q.SemanticWeight
	}
	return st, nil
}

// Search finds the memories, code chunks and commits matching q, best
// first. It reads the cache as it is: the caller syncs it first.
func (e *Engine) Search(ctx context.Context, q Query) ([]Result, error) {
	st, err := e.settings(q)
	if err != nil {
		return nil, err
	}
	kinds, memTypes := splitKinds(q.Types)
	f, err := Filter(memTypes, q.Tags, q.Since, q.All)
	if err != nil {
		return nil, err
	}
	if err := Narrow(ctx, e.Cache, &f, q.Attached, q.Source, q.Session); err != nil {
		return nil, err
	}
	var qvec []float32
	if st.mode != ModeKeyword {
		vs, err := e.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		qvec = vs[0]
	}
	depth := max(st.limit*3, 30)
	var all []scoredKind
	for _, k := range kinds {
		kf := f
		if k != cache.KindMemory {
			kf.Types = nil
		}
		fused, err := e.rankKind(ctx, k, q.Text, qvec, kf, depth, st)
		if err != nil {
			return nil, err
		}
		for _, sc := range fused {
			if len(kinds) > 1 {
				sc.Score *= kindWeight(k)
			}
			all = append(all, scoredKind{sc, k})
		}
	}
	return e.results(ctx, all, st.limit, queryTerms(q.Text))
}

// rankKind ranks the documents of one kind by keyword, by meaning or both
// (fused), as st.mode asks, keeping the best depth of each ranking.
func (e *Engine) rankKind(ctx context.Context, k cache.Kind, text string, qvec []float32, f cache.Filter, depth int, st settings) ([]Scored, error) {
	// The two rankers are independent: in hybrid mode they run at once,
	// one per core.
	var kw, sem []cache.Hit
	var kwErr, semErr error
	var wg sync.WaitGroup
	if st.mode != ModeSemantic {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kw, kwErr = e.Cache.Keyword(ctx, k, text, f, depth)
		}()
	}
	if st.mode != ModeKeyword {
		sem, semErr = e.Cache.Semantic(ctx, k, qvec, f, depth)
	}
	wg.Wait()
	if err := cmp.Or(kwErr, semErr); err != nil {
		return nil, err
	}
	switch st.mode {
	case ModeKeyword:
		return Keyword(hits(kw)), nil
	case ModeSemantic:
		return Semantic(hits(sem)), nil
	}
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
	extra, err := e.Cache.Cosine(ctx, k, qvec, missing)
	if err != nil {
		return nil, err
	}
	return Fuse(hits(kw), hits(sem), extra, st.weight), nil
}

// results keeps the best limit of the scored documents, in a stable
// order, and reads what a result shows from the cache.
func (e *Engine) results(ctx context.Context, all []scoredKind, limit int, terms []string) ([]Result, error) {
	// A document that matches neither by keyword nor by meaning is not a
	// result, however few results there are.
	kept := all[:0]
	for _, a := range all {
		if a.Score > 0 {
			kept = append(kept, a)
		}
	}
	all = kept
	sortScored(all)
	// Rows are numbered in the order a cache happened to index documents;
	// ties must not depend on that, so fetch a margin and break ties by ID.
	if len(all) > limit+20 {
		all = all[:limit+20]
	}
	rowIDs := make([]int64, len(all))
	for i, a := range all {
		rowIDs[i] = a.Row
	}
	rows, err := e.Cache.Rows(ctx, rowIDs)
	if err != nil {
		return nil, err
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
	if len(all) > limit {
		all = all[:limit]
	}
	out := make([]Result, 0, len(all))
	for _, a := range all {
		r, ok := rows[a.Row]
		if !ok {
			continue
		}
		id := r.MID
		if r.Kind == cache.KindCode {
			id = fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
		}
		out = append(out, Result{
			ID: id, Kind: r.Kind.String(), Type: r.Type, Title: r.Title, Path: r.Path, Score: round(a.Score),
			Snippet: Snippet(r.Body, terms, 200), Tags: r.Tags, Updated: r.Updated, Keyword: round(a.Keyword),
			Semantic: round(a.Semantic), Symbol: r.Symbol, Language: r.Lang, StartLine: r.StartLine, EndLine: r.EndLine,
		})
	}
	return out, nil
}

// Filter is the cache filter for memory types (any spelling
// memory.CanonicalType accepts), tags, a start time and whether
// superseded memories count. Lists may hold comma-separated values.
func Filter(types, tags []string, since time.Time, all bool) (cache.Filter, error) {
	f := cache.Filter{Tags: cleanList(tags), Since: since, All: all}
	for _, t := range cleanList(types) {
		c, err := memory.CanonicalType(t)
		if err != nil {
			return f, err
		}
		f.Types = append(f.Types, c)
	}
	return f, nil
}

// cleanList splits comma-separated values, trims them and drops empty
// ones and repeats.
func cleanList(xs []string) []string {
	var out []string
	for _, x := range xs {
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

type scoredKind struct {
	Scored
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

func hits(hs []cache.Hit) []Hit {
	out := make([]Hit, len(hs))
	for i, h := range hs {
		out[i] = Hit{Row: h.Row, Score: h.Score}
	}
	return out
}

func round(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// splitKinds separates the pseudo-types code and commit (kinds of the
// auto-index) from memory types. No types means every kind.
func splitKinds(types []string) ([]cache.Kind, []string) {
	var kinds []cache.Kind
	var mem []string
	for _, t := range cleanList(types) {
		switch strings.ToLower(t) {
		case "code":
			kinds = append(kinds, cache.KindCode)
		case "commit":
			kinds = append(kinds, cache.KindCommit)
		default:
			mem = append(mem, t)
		}
	}
	if len(mem) > 0 {
		kinds = append(kinds, cache.KindMemory)
	}
	if len(kinds) == 0 {
		kinds = []cache.Kind{cache.KindMemory, cache.KindCode, cache.KindCommit}
	}
	return kinds, mem
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
