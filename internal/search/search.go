// Package search answers queries over the cache: it ranks memories, code
// chunks and commits by keyword (BM25) and by meaning (cosine of
// embeddings), fuses the two rankings (fuse.go) and picks a snippet per
// hit. It reads the cache and never syncs it; the front door does that.
package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/query"
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
	// Kinds keeps results of these kinds: memory, code, doc (documentation
	// files), commit; none means all. Types narrow within them.
	Kinds []string
	Tags  []string
	Since time.Time
	All   bool   // include superseded memories
	Mode  string // hybrid (default), keyword or semantic
	Limit int    // default 10, at most MaxLimit
	// SemanticWeight overrides the configured fusion weight when non-nil.
	SemanticWeight *float64
	// Attached keeps memories whose paths cover any of these files.
	Attached []string
	// Source keeps memories written by this tool; Session, in this session.
	Source, Session string
	// Tests says what to do with test code: TestsInclude (the default:
	// ranked below other code of equal relevance), TestsExclude or
	// TestsOnly.
	Tests string
	// Group is "" (one result per chunk) or GroupFile: one result per file,
	// its best chunks under it, for "where is X handled" questions.
	Group string
	// Shared, when not nil, is the keyword statistics of several stores
	// searched together (Share): this store ranks by their frequencies and
	// divides BM25 by their scale, so that its keyword scores compare with
	// the other stores' (docs/SCOPES.md). Code searched alone keeps its own.
	Shared *Shared `json:"-"`
	// Literal takes Text as plain words: quotes, a leading "-", OR and a
	// trailing "*" are not operators (package query). For text that is
	// not a query a person wrote, such as a memory's own body compared
	// with the others before it is saved.
	Literal bool
}

// GroupFile is Query.Group for one result per file.
const GroupFile = "file"

// What Query.Tests accepts.
const (
	TestsInclude = "include"
	TestsExclude = "exclude"
	TestsOnly    = "only"
)

// resultMargin is how many candidates beyond the limit results keeps to
// break ties in, and so how far past the limit cover must score exactly.
const resultMargin = 20

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
	// FileScore is the part of Score a code chunk owes to other matching
	// chunks of its file (file evidence, docs/DESIGN.md).
	FileScore float64 `json:"file_score,omitempty"`
	// Chunks are a grouped file's further matching chunks, best first.
	Chunks []ChunkResult `json:"chunks,omitempty"`
	// Relaxed says the query's operators (a quoted phrase, OR, -word)
	// matched nothing, and this result matches its words instead.
	Relaxed bool `json:"relaxed,omitempty"`
	// Summary is a memory's summary as the index holds it (derived from
	// the body when the file has none), for callers in Go that show it (the
	// context block's task section) without reading the file again. It is
	// left out of JSON, where the snippet serves and every byte is read.
	Summary string `json:"-"`
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

// Engine searches one repository's cache. The front door (contextfs.Store)
// holds one; benchmarks and tools may build their own over an open cache.
type Engine struct {
	Cache    *cache.Cache
	Embedder embed.Embedder
	// Defaults are the repository's search settings (config search:),
	// used where a Query leaves a field zero.
	Defaults config.SearchConfig
	// KeywordOnly is told why when a hybrid search falls back to
	// keywords alone (the embedder is unavailable); nil ignores it.
	KeywordOnly func(err error)

	// coverAll makes cover read every candidate, and coverRead counts
	// the candidates cover read: a test compares the answers with and
	// without the candidates cover leaves out.
	coverAll  bool
	coverRead int
}

// settings are a query's mode, limit and fusion weight once the defaults
// are applied.
type settings struct {
	mode   string
	limit  int
	weight float64
	// codeWeight is the fusion weight of code chunks, whose cosines are
	// on the query's scale (calibrate.go): the configured weight when one
	// is set, else codeSemanticWeight.
	codeWeight float64
	// codeRules says code is searched alone, where the ranking rules of
	// code (calibrate.go) apply; mixed with memories and commits, code
	// keeps the fusion their balance (kindWeight) was measured with.
	codeRules bool
}

// MaxLimit is the most results one search returns. Each ranker keeps a
// few times the limit in memory, so an unbounded limit from a script or an
// agent could exhaust it; a thousand is more than anyone reads.
const MaxLimit = 1000

// settings applies the defaults to q: the query's own value, else the
// config's, else the built-in one.
func (e *Engine) settings(q Query) (settings, error) {
	st := settings{mode: cmp.Or(q.Mode, e.Defaults.Mode, ModeHybrid), limit: 10, weight: DefaultSemanticWeight, codeWeight: codeSemanticWeight}
	if st.mode != ModeHybrid && st.mode != ModeKeyword && st.mode != ModeSemantic {
		return st, fmt.Errorf("unknown search mode %q (want hybrid, keyword or semantic)", st.mode)
	}
	switch {
	case q.Limit > MaxLimit:
		return st, fmt.Errorf("limit %d is more than a search returns: at most %d", q.Limit, MaxLimit)
	case q.Limit > 0:
		st.limit = q.Limit
	case e.Defaults.Limit > 0:
		st.limit = min(e.Defaults.Limit, MaxLimit)
	}
	if w := cmp.Or(q.SemanticWeight, e.Defaults.SemanticWeight); w != nil {
		st.weight, st.codeWeight = *w, *w
	}
	return st, nil
}

// Search finds the memories, code chunks and commits matching q, best
// first. It reads the cache as it is: the caller syncs it first.
//
// A question is not a puzzle: contractions and possessives are spelled
// out first (query.Normalize), and when the query's operators (a quoted
// phrase, OR, -word) leave nothing, its words are searched instead, with
// every result marked Relaxed, since a question quoting a log line that
// no longer exists still has an answer.
func (e *Engine) Search(ctx context.Context, q Query) ([]Result, error) {
	if q.Literal {
		return e.search(ctx, q)
	}
	q.Text = query.Normalize(q.Text)
	res, err := e.search(ctx, q)
	if err != nil || len(res) > 0 {
		return res, err
	}
	pq := query.Parse(q.Text)
	if !pq.Syntax() || strings.TrimSpace(pq.Plain) == "" {
		return res, nil
	}
	words := q
	// The shared scale was the operators' query's, not this one's.
	words.Text, words.Literal, words.Shared = pq.Plain, true, nil
	res, err = e.search(ctx, words)
	for i := range res {
		res[i].Relaxed = true
	}
	return res, err
}

// plan is a query taken apart for the rankers: its settings, the kinds
// it searches, the code types it keeps, its filter, and the words and
// phrases it ranks by (q.Text is left its plain words).
type plan struct {
	st        settings
	kinds     []cache.Kind
	codeTypes []string
	f         cache.Filter
	text      string
	phrases   []string
}

func (e *Engine) plan(ctx context.Context, q *Query) (plan, error) {
	var p plan
	var err error
	if p.st, err = e.settings(*q); err != nil {
		return p, err
	}
	if q.Tests != "" && q.Tests != TestsInclude && q.Tests != TestsExclude && q.Tests != TestsOnly {
		return p, fmt.Errorf("unknown tests option %q (want include, exclude or only)", q.Tests)
	}
	if q.Group != "" && q.Group != GroupFile {
		return p, fmt.Errorf("unknown grouping %q (want file)", q.Group)
	}
	kinds, memTypes, codeTypes := splitKinds(q.Types, q.Tests)
	if p.kinds, p.codeTypes, err = keepKinds(q.Kinds, kinds, codeTypes, q.Tests); err != nil {
		return p, err
	}
	if p.f, err = Filter(memTypes, q.Tags, q.Since, q.All); err != nil {
		return p, err
	}
	if err := Narrow(ctx, e.Cache, &p.f, q.Attached, q.Source, q.Session); err != nil {
		return p, err
	}
	// The query syntax, unless the text is to be taken literally.
	p.text = q.Text
	if !q.Literal {
		p.text, p.phrases = applySyntax(q, &p.f)
	}
	p.st.codeRules = len(p.kinds) == 1 && p.kinds[0] == cache.KindCode
	return p, nil
}

func (e *Engine) search(ctx context.Context, q Query) ([]Result, error) {
	p, err := e.plan(ctx, &q)
	if err != nil {
		return nil, err
	}
	st, kinds, codeTypes, f, text, phrases := p.st, p.kinds, p.codeTypes, p.f, p.text, p.phrases
	var qvec []float32
	symmetric := q.Literal || len(kinds) == 1 && kinds[0] == cache.KindCode
	if st.mode != ModeKeyword {
		// A query a person or agent wrote is embedded as a query; a
		// literal one (a text looking for its own copies) as a text, and
		// a search of code alone as a code query: there the exact words
		// of identifiers find the file (embed.EmbedCodeQuery, measured on
		// the code sets of make bench-quality).
		embedQ := embed.EmbedQuery
		switch {
		case q.Literal:
			embedQ = func(ctx context.Context, e embed.Embedder, t []string) ([][]float32, error) { return e.Embed(ctx, t) }
		case symmetric:
			embedQ = embed.EmbedCodeQuery
		}
		vs, err := embedQ(ctx, e.Embedder, []string{q.Text})
		switch {
		case err != nil && st.mode == ModeHybrid && errors.Is(err, embed.ErrUnavailable):
			// The keyword half needs no embedder: half an answer beats
			// none while the server is down. A semantic search has no
			// such half, and fails.
			if e.KeywordOnly != nil {
				e.KeywordOnly(err)
			}
			st.mode = ModeKeyword
		case err != nil:
			return nil, fmt.Errorf("embed query: %w", err)
		default:
			qvec = vs[0]
		}
	}
	// Cosines of an asymmetric embedder's queries are brought to the
	// scale of a symmetric one's (embed.QueryScale).
	invScale := 1.0
	switch {
	case qvec == nil || q.Literal:
	case symmetric:
		invScale = 1 / embed.CodeQueryScale(e.Embedder)
	default:
		invScale = 1 / embed.QueryScale(e.Embedder)
	}
	depth := max(st.limit*3, 30)
	if q.Group == GroupFile {
		depth *= 4 // several chunks per file
	}
	byKind := make([]rankings, len(kinds))
	for i, k := range kinds {
		kf := f
		if k != cache.KindMemory {
			kf.Types = nil // chunk types are filtered on the hits (ofTypes)
		}
		if q.Shared != nil && !st.codeRules {
			kf.IDF = q.Shared.IDF[k]
		}
		r, err := e.rank(ctx, k, text, phrases, qvec, kf, depth, st.mode)
		if err != nil {
			return nil, err
		}
		for i := range r.sem {
			r.sem[i].Score *= invScale
		}
		if k == cache.KindCode && codeTypes != nil {
			if r.kw, r.sem, err = e.ofTypes(ctx, codeTypes, r.kw, r.sem); err != nil {
				return nil, err
			}
		}
		byKind[i] = r
	}
	// One BM25 scale for every kind: the best match of the query, whatever
	// its kind, scores 1 on the keyword side. In a hybrid search it is the
	// query's attainable score instead, where that is larger: a document
	// that matches one word of a four-word question ("new" of "What
	// database should I use for this new feature?") then carries about a
	// quarter of the keyword evidence, not all of it, and meaning decides
	// among such documents. Measured on make bench-quality (hybrid
	// MRR@10): world 0.183 -> 0.186, held-out world 0.108 -> 0.109,
	// proposal 0.826 -> 0.834 and 0.802 -> 0.804, SICK 0.588 -> 0.589.
	// Code searched alone keeps the best match's scale, on which its
	// ranking rules were chosen (calibrate.go).
	var kwMax float64
	for _, r := range byKind {
		for _, h := range r.kw {
			kwMax = max(kwMax, h.Score)
		}
		if st.mode == ModeHybrid && !st.codeRules {
			kwMax = max(kwMax, r.attainable)
		}
	}
	// Searched with other stores, on the scale they share (Share).
	if q.Shared != nil && !st.codeRules {
		kwMax = max(kwMax, q.Shared.Scale)
	}
	semMax := bestCosine(byKind)
	var all []scoredKind
	// The documents read so far, by row: the coverage factor reads the
	// memories' texts, and the results then need the same rows.
	read := map[int64]cache.Row{}
	for i, k := range kinds {
		fused, err := e.fuse(ctx, k, byKind[i], qvec, invScale, st, kwMax, semMax)
		if err != nil {
			return nil, err
		}
		if k == cache.KindMemory && st.mode == ModeHybrid && qvec != nil && !q.Literal {
			if fused, err = e.cover(ctx, text, fused, st.limit+resultMargin, read); err != nil {
				return nil, err
			}
		}
		for _, sc := range fused {
			if len(kinds) > 1 {
				sc.Score *= kindWeight(k)
			}
			all = append(all, scoredKind{Scored: sc, kind: k})
		}
	}
	return e.results(ctx, all, st, q, queryTerms(q.Text), read)
}

// cover multiplies the fused scores of memories by how much of the query's
// content words each covers (embed.Coverage), the coordination factor of
// classic Lucene counted on meaning, and sorts them again: among memories
// that share one word with a question, the one that also answers its
// other words ranks first ("What database should I use for this new
// feature?" finds "We use PostgreSQL ..." above "Feature flags are
// managed in LaunchDarkly"). Measured in docs/EMBEDDER.md.
//
// Only the first keep memories can be results (results keeps the best
// st.limit+resultMargin before it breaks ties, and memories rank ahead of other
// kinds), and the factor is at most 1: fused comes best first, so once
// the keep-th best covered score is above the next candidate's fused
// score, neither that candidate nor any after it can be among the first
// keep whatever it covers. cover reads the candidates' texts in batches
// and leaves those out unread: at 10,000 memories that was most of the
// work of a get_context with a task (docs/EMBEDDER.md). The rows it reads
// are added to read, for the results.
func (e *Engine) cover(ctx context.Context, text string, fused []Scored, keep int, read map[int64]cache.Row) ([]Scored, error) {
	if len(fused) == 0 {
		return fused, nil
	}
	cv, ok, err := embed.NewCoverer(e.Embedder, text)
	if err != nil || !ok {
		return fused, err
	}
	var covered []float64 // the covered scores of the rows found
	n := 0
	for n < len(fused) {
		if len(covered) >= keep && !e.coverAll {
			slices.SortFunc(covered, func(a, b float64) int { return cmp.Compare(b, a) })
			if fused[n].Score < covered[keep-1] {
				break
			}
		}
		batch := fused[n:min(len(fused), n+max(keep-len(covered), coverBatch))]
		ids := make([]int64, len(batch))
		for i, s := range batch {
			ids[i] = s.Row
		}
		rows, err := e.Cache.Rows(ctx, ids)
		if err != nil {
			return nil, err
		}
		maps.Copy(read, rows)
		texts := make([]string, len(batch))
		for i, s := range batch {
			r := rows[s.Row]
			texts[i] = r.Title + "\n" + r.Body
		}
		cover, err := cv.Cover(ctx, texts)
		if err != nil {
			return nil, err
		}
		for i := range batch {
			batch[i].Score *= cover[i]
			// A row gone since it was ranked is no result (results
			// leaves it out): it holds no place among the first keep.
			if _, ok := rows[batch[i].Row]; ok {
				covered = append(covered, batch[i].Score)
			}
		}
		n += len(batch)
		e.coverRead += len(batch)
	}
	fused = fused[:n]
	Sort(fused)
	return fused, nil
}

// coverBatch is how many more candidates cover reads at a time once it
// has read keep of them.
const coverBatch = 8

// applySyntax takes q.Text apart by the query syntax (package query):
// phrases and prefixes rank beside the words, phrases and OR groups are
// required of a result and "-" parts excluded (both set on f). It returns
// the plain words and the FTS5 phrases to rank by, and leaves q.Text the
// query's plain words, for the embedder and the snippets.
func applySyntax(q *Query, f *cache.Filter) (text string, phrases []string) {
	pq := query.Parse(q.Text)
	if !pq.Syntax() {
		return q.Text, nil
	}
	f.Match, f.NotMatch = pq.Match()
	var plain []string
	for _, p := range pq.Rank {
		if len(p.Words) == 1 && !p.Prefix {
			plain = append(plain, p.Words[0])
		} else {
			phrases = append(phrases, p.FTS())
		}
	}
	q.Text = pq.Plain
	return strings.Join(plain, " "), phrases
}

// rankings are one kind's keyword and semantic hits, and the keyword
// ranking's attainable score (cache.KeywordAttainable).
type rankings struct {
	kw, sem    []cache.Hit
	attainable float64
}

// rank ranks the documents of one kind by keyword (the plain words and
// the query's phrases), by meaning or both, as mode asks, keeping the best
// depth of each ranking.
func (e *Engine) rank(ctx context.Context, k cache.Kind, text string, phrases []string, qvec []float32, f cache.Filter, depth int, mode string) (rankings, error) {
	// The two rankers are independent: in hybrid mode they run at once,
	// one per core.
	var r rankings
	var kwErr, semErr error
	var wg sync.WaitGroup
	if mode != ModeSemantic {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.kw, r.attainable, kwErr = e.Cache.KeywordAttainable(ctx, k, text, phrases, f, depth)
		}()
	}
	if mode != ModeKeyword {
		r.sem, semErr = e.Cache.Semantic(ctx, k, qvec, f, depth)
	}
	wg.Wait()
	return r, cmp.Or(kwErr, semErr)
}

// fuse turns one kind's rankings into scores as st.mode asks, BM25 on the
// scale kwMax shared by every kind, cosines the cache computes multiplied
// by invScale like the ranking's.
func (e *Engine) fuse(ctx context.Context, k cache.Kind, r rankings, qvec []float32, invScale float64, st settings, kwMax, semMax float64) ([]Scored, error) {
	switch st.mode {
	case ModeKeyword:
		return FuseScaled(hits(r.kw), nil, nil, 0, kwMax), nil
	case ModeSemantic:
		return Semantic(hits(r.sem)), nil
	}
	var missing []int64
	inSem := map[int64]bool{}
	for _, h := range r.sem {
		inSem[h.Row] = true
	}
	for _, h := range r.kw {
		if !inSem[h.Row] {
			missing = append(missing, h.Row)
		}
	}
	extra, err := e.Cache.Cosine(ctx, k, qvec, missing)
	if err != nil {
		return nil, err
	}
	for row, c := range extra {
		extra[row] = c * invScale
	}
	if k == cache.KindCode && st.codeRules {
		return FuseCode(hits(r.kw), hits(r.sem), extra, st.codeWeight, kwMax, semMax), nil
	}
	return FuseScaled(hits(r.kw), hits(r.sem), extra, st.weight, kwMax), nil
}

// ofTypes keeps the code hits whose chunk type is one of types. Chunk
// types are filtered on the hits rather than in the cache: a type filter
// there takes the rankers off their fast paths (a code search took twice
// as long; ranking twice as deep to make up for the dropped hits cost 30%
// of CLI p50 and changed no MRR@10 on bench-quality).
func (e *Engine) ofTypes(ctx context.Context, types []string, kw, sem []cache.Hit) ([]cache.Hit, []cache.Hit, error) {
	ids := make([]int64, 0, len(kw)+len(sem))
	for _, h := range kw {
		ids = append(ids, h.Row)
	}
	for _, h := range sem {
		ids = append(ids, h.Row)
	}
	rows, err := e.Cache.Rows(ctx, ids)
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

// results ranks test chunks below other code, drops what matches too
// little, keeps the best st.limit (files, with q.Group) in a stable order,
// and reads what a result shows from the cache.
func (e *Engine) results(ctx context.Context, all []scoredKind, st settings, q Query, terms []string, read map[int64]cache.Row) ([]Result, error) {
	cand := make([]int64, 0, len(all))
	for _, a := range all {
		if _, ok := read[a.Row]; !ok {
			cand = append(cand, a.Row)
		}
	}
	rows, err := e.Cache.Rows(ctx, cand)
	if err != nil {
		return nil, err
	}
	maps.Copy(rows, read)
	typed := all[:0]
	for _, a := range all {
		r, ok := rows[a.Row]
		if !ok {
			continue
		}
		// Test chunks rank below other code of equal relevance.
		if a.kind == cache.KindCode && r.Type == cache.ChunkTest && q.Tests != TestsOnly {
			a.Score *= testWeight
		}
		typed = append(typed, a)
	}
	all = typed
	if st.codeRules {
		addFileEvidence(all, rows)
	}
	// A document that matches neither by keyword nor by meaning is not a
	// result, however few results there are; nor is one far below the best
	// result (minRelevance), which would only pad the list.
	var best float64
	for _, a := range all {
		best = max(best, a.Score)
	}
	kept := all[:0]
	for _, a := range all {
		if a.Score > 0 && (st.mode != ModeHybrid || a.Score >= minRelevance*best) {
			kept = append(kept, a)
		}
	}
	all = kept
	sortScored(all)
	memoriesFirst(all)
	sort.SliceStable(all, func(i, j int) bool { return all[i].first && !all[j].first })
	// Rows are numbered in the order a cache happened to index documents;
	// ties must not depend on that, so fetch a margin and break ties by ID.
	if len(all) > st.limit+resultMargin && q.Group == "" {
		all = all[:st.limit+resultMargin]
	}
	sort.SliceStable(all, func(i, j int) bool {
		if fi, fj := all[i].first, all[j].first; fi != fj {
			return fi
		}
		if all[i].Score != all[j].Score {
			return all[i].Score > all[j].Score
		}
		if all[i].kind != all[j].kind {
			return all[i].kind < all[j].kind
		}
		return rows[all[i].Row].MID+rows[all[i].Row].Path < rows[all[j].Row].MID+rows[all[j].Row].Path
	})
	if q.Group == GroupFile {
		return groupByFile(all, rows, terms, st.limit), nil
	}
	if len(all) > st.limit {
		all = all[:st.limit]
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
		if r.Type == cache.ChunkDoc {
			kind = cache.ChunkDoc
		}
	}
	return Result{
		ID: id, Kind: kind, Test: r.Kind == cache.KindCode && r.Type == cache.ChunkTest, Type: r.Type, Title: r.Title,
		Path: r.Path, Score: round(a.Score), Snippet: Snippet(r.Body, terms, 200), Tags: r.Tags, Updated: r.Updated,
		Keyword: round(a.Keyword), Semantic: round(a.Semantic), FileScore: round(a.File), Symbol: r.Symbol, Language: r.Lang,
		StartLine: r.StartLine, EndLine: r.EndLine, Summary: r.Summary,
	}
}

// Filter is the cache filter for memory types (any spelling
// memory.CanonicalType accepts), tags, a start time and whether
// superseded memories count. Lists may hold comma-separated values.
func Filter(types, tags []string, since time.Time, all bool) (cache.Filter, error) {
	f := cache.Filter{Tags: memory.CleanList(tags), Since: since, All: all}
	for _, t := range memory.CleanList(types) {
		c, err := memory.CanonicalType(t)
		if err != nil {
			return f, err
		}
		f.Types = append(f.Types, c)
	}
	return f, nil
}

type scoredKind struct {
	first bool // a memory shown before other kinds (memoriesFirst)
	Scored
	kind cache.Kind
	// File is what the chunk's other matching chunks added to its score
	// (addFileEvidence).
	File float64
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

// Result kinds, as Query.Kinds names them.
const (
	KindMemory = "memory"
	KindCode   = "code"
	KindDoc    = "doc"
	KindCommit = "commit"
)

// keepKinds narrows the cache kinds and code chunk types that the query's
// types chose to the result kinds asked for (none: all of them).
func keepKinds(want []string, kinds []cache.Kind, codeTypes []string, tests string) ([]cache.Kind, []string, error) {
	want = memory.CleanList(want)
	if len(want) == 0 {
		return kinds, codeTypes, nil
	}
	var keep []cache.Kind
	var chunks []string // code chunk types the kinds allow
	for _, w := range want {
		switch strings.ToLower(w) {
		case KindMemory:
			keep = append(keep, cache.KindMemory)
		case KindCode:
			keep = append(keep, cache.KindCode)
			switch tests {
			case TestsExclude:
				chunks = append(chunks, cache.ChunkCode)
			case TestsOnly:
				chunks = append(chunks, cache.ChunkTest)
			default:
				chunks = append(chunks, cache.ChunkCode, cache.ChunkTest)
			}
		case KindDoc:
			keep = append(keep, cache.KindCode)
			chunks = append(chunks, cache.ChunkDoc)
		case KindCommit:
			keep = append(keep, cache.KindCommit)
		default:
			return nil, nil, fmt.Errorf("unknown kind %q (want memory, code, doc or commit)", w)
		}
	}
	var out []cache.Kind
	for _, k := range kinds {
		if slices.Contains(keep, k) {
			out = append(out, k)
		}
	}
	if slices.Contains(out, cache.KindCode) {
		if codeTypes == nil {
			codeTypes = chunks
		} else {
			codeTypes = slices.DeleteFunc(slices.Clone(codeTypes), func(t string) bool { return !slices.Contains(chunks, t) })
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("the types asked for have no results of kind %s", strings.Join(want, ", "))
	}
	return out, codeTypes, nil
}

// memoriesFirst marks the memories that rank ahead of other kinds: every
// memory that is a result at all. What the team wrote down comes before
// the code, docs and history that mention the same words (a release
// procedure ranked 27th of 30 behind code and commits in a real
// repository); --kind (Query.Kinds) asks for other kinds alone.
func memoriesFirst(all []scoredKind) {
	for i := range all {
		all[i].first = all[i].kind == cache.KindMemory
	}
}

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
	source := []string{cache.ChunkCode, cache.ChunkTest}
	switch tests {
	case TestsExclude:
		source = source[:1]
	case TestsOnly:
		return []cache.Kind{cache.KindCode}, nil, []string{cache.ChunkTest}
	}
	for _, t := range memory.CleanList(types) {
		switch strings.ToLower(t) {
		case "code":
			addKind(cache.KindCode)
			code = append(code, source...)
		case "doc":
			addKind(cache.KindCode)
			code = append(code, cache.ChunkDoc)
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
			code = []string{cache.ChunkCode, cache.ChunkDoc}
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
