package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/contextfs/contextfs/internal/porter"
)

// bm25Weights are the column weights of title, tags and body: a word in a
// title says more about what a memory is than the same word in its body.
var bm25Weights = [3]float64{10, 5, 1}

// BM25Weights is bm25Weights as the argument list of FTS5's bm25(), for
// tools that run the same ranking outside contextfs (the benchmark's
// sqlite3 baseline).
const BM25Weights = "10.0, 5.0, 1.0"

// maxQueryWords caps the words of a keyword query: a pasted paragraph is
// still ranked by its first words.
const maxQueryWords = 32

// Keyword ranks kind's current documents that pass f by BM25 over title,
// tags and body, best first, and returns the best k. Scores are what
// FTS5's bm25() gives (negated, so higher is better) with the statistics
// (document count, lengths, document frequencies) taken over the current
// documents only: old versions of files still in the index change
// neither which documents match nor how they score, so a rebuilt cache
// ranks exactly as the one it replaces.
//
// The ranking runs in cfs_topk (fts5rank.c), term at a time over each
// word's matches, called once per query. A filter by memory type alone is
// applied by the ranker; other filters (tag, date, hidden memories) are
// applied to the best candidates only, and if too few pass, the window
// widens until it holds every match.
func (c *Cache) Keyword(ctx context.Context, kind Kind, query string, f Filter, k int) ([]Hit, error) {
	return c.KeywordPhrases(ctx, kind, query, nil, f, k)
}

// KeywordPhrases is Keyword with FTS5 phrases ranked beside the words of
// query: `"exact phrase"` and prefixes (`"conn" *`) of the query syntax.
func (c *Cache) KeywordPhrases(ctx context.Context, kind Kind, query string, phrases []string, f Filter, k int) ([]Hit, error) {
	hits, _, err := c.KeywordAttainable(ctx, kind, query, phrases, f, k)
	return hits, err
}

// KeywordAttainable is KeywordPhrases that also returns the query's
// attainable score: the sum over its words and phrases of the best score
// one document gets from each (among the documents of f's types when f
// filters by type alone, else among all), the score of a document that
// matched all of them as well as any does. A search divides BM25 by it rather than by
// the best match's score, so that a document matching one word of a
// four-word question does not count as a perfect keyword match
// (docs/EMBEDDER.md).
func (c *Cache) KeywordAttainable(ctx context.Context, kind Kind, query string, phrases []string, f Filter, k int) ([]Hit, float64, error) {
	hits, terms, err := c.KeywordTerms(ctx, kind, query, phrases, f, k)
	return hits, terms.Sum(), err
}

// TermBest is what one word or phrase of a query attains in a document
// set (KeywordTerms): the best score one document gets from it, as the
// inverse document frequency it was ranked with times the rest of BM25,
// and the statistics a search across stores shares (SharedIDF).
type TermBest struct {
	Term string  // the word, or the FTS5 phrase as given
	IDF  float64 // the inverse document frequency it was scored with
	Part float64 // the best document's score from it, before IDF
	// Matches is how many documents match it, of Docs in the set.
	Matches, Docs int64
}

// Best is the best score one document gets from the term.
func (t TermBest) Best() float64 { return t.IDF * t.Part }

// Terms are a query's words and phrases with what each attains, in the
// order the ranker read them.
type Terms []TermBest

// Sum is the query's attainable score: the sum of the best scores.
//
// A word that matches no document counts too, as if one document matched
// it as well as the matched words' best parts do on average: in a small
// store where the question's subject ("database") matches nothing, a
// document matching only its incidental word ("feature") would otherwise
// score a full keyword match.
func (t Terms) Sum() float64 {
	var s, parts float64
	var matched int
	for _, b := range t {
		s += b.Best()
		if b.Matches > 0 {
			parts += b.Part
			matched++
		}
	}
	if matched == 0 {
		return s
	}
	for _, b := range t {
		if b.Matches == 0 {
			idf := b.IDF // the one it was ranked with
			if idf == 0 {
				idf = IDF(0, b.Docs)
			}
			s += idf * parts / float64(matched)
		}
	}
	return s
}

// IDF is BM25's inverse document frequency of a term that matches n of
// docs documents, floored as FTS5's bm25() floors it (fts5rank.c).
func IDF(n, docs int64) float64 {
	idf := math.Log((float64(docs) - float64(n) + 0.5) / (float64(n) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// KeywordTerms is KeywordAttainable with the attainable score given per
// word and phrase ranked: what a search across several stores needs to
// put their keyword scores on one scale (each store's best per word,
// then the most any store attains per word; docs/SCOPES.md). A word
// this store does not rank by (one most of its documents contain) is
// absent; one it ranks by but no document matches is there with 0.
// f.IDF, when set, gives the frequencies to rank by in place of the set's.
func (c *Cache) KeywordTerms(ctx context.Context, kind Kind, query string, phrases []string, f Filter, k int) ([]Hit, Terms, error) {
	if len(queryWords(query))+len(phrases) == 0 || k <= 0 {
		return nil, nil, nil
	}
	ds, err := c.docs(ctx, kind)
	if err != nil {
		return nil, nil, err
	}
	if len(ds.rows) == 0 {
		return nil, nil, nil
	}
	words := ds.rankedWords(query)
	match := joinWords(words)
	if len(phrases) > 0 {
		match = strings.Join(append(phrases[:len(phrases):len(phrases)], match), " OR ")
		match = strings.TrimSuffix(match, " OR ")
	}
	// The phrases of match in its order, as FTS5 numbers them.
	keys := append(phrases[:len(phrases):len(phrases)], words...)
	var idfs []float64
	if f.IDF != nil {
		idfs = make([]float64, len(keys))
		for i, k := range keys {
			idfs[i] = f.IDF[k] // 0: the set's own
		}
	}
	docs := int64(len(ds.rows))
	// rank is topk for this query: from the kept term lists when the query
	// is plain words ranked by this set's own frequencies (terms.go).
	rank := func(window int, keep []int64) ([]Hit, []float64, error) {
		if len(phrases) == 0 && idfs == nil && keep == nil {
			return c.topkWords(ctx, ds, words, window)
		}
		return c.topk(ctx, ds, match, window, keep, idfs)
	}
	// A filter by memory type alone (a duplicate check, search --type) is
	// answered from the type index once (Cache.filtered), and the ranker
	// itself keeps only those rows: the best k of them in one pass.
	// Testing each candidate instead reads its row from the table, where
	// it sits beside its body (hundreds of scattered pages in a fresh
	// process), and ranks again with a wider window when too few pass.
	if kind == KindMemory && f.typesOnly() {
		pass, err := c.filtered(ctx, ds, f)
		if err != nil || len(pass) == 0 {
			return nil, nil, err
		}
		hits, bests, err := rank(k, pass)
		if err != nil {
			return nil, nil, err
		}
		terms, err := termsOf(keys, bests, docs)
		return hits, terms, err
	}
	// No filter but the hidden memories, as a plain search asks: those are
	// few and known per generation (Cache.retired), so the ranker's best
	// k plus that many hold the answer, without asking SQL about a window
	// of candidates (3.6 of 8.6 ms CPU a query at 100K memories).
	if !f.restrictive() {
		var hidden map[int64]bool
		if kind == KindMemory && !f.All {
			if hidden, err = c.retired(ctx); err != nil {
				return nil, nil, err
			}
		}
		cand, bests, err := rank(k+len(hidden), nil)
		if err != nil {
			return nil, nil, err
		}
		out := cand[:0]
		for _, h := range cand {
			if !hidden[h.Row] && len(out) < k {
				out = append(out, h)
			}
		}
		terms, err := termsOf(keys, bests, docs)
		return out, terms, err
	}
	cond, cargs := f.where(kind, false)
	for window := max(4*k, 64); ; window *= 8 {
		cand, bests, err := rank(window, nil)
		if err != nil {
			return nil, nil, err
		}
		if cand == nil {
			terms, err := termsOf(keys, nil, docs)
			return nil, terms, err
		}
		out, err := c.passing(ctx, cand, cond, cargs, k)
		if err != nil {
			return nil, nil, fmt.Errorf("keyword search: %w", err)
		}
		if len(out) >= k || len(cand) < window {
			terms, err := termsOf(keys, bests, docs)
			return out, terms, err
		}
	}
}

// termsOf pairs the ranked words and phrases with what the ranker read
// of each: (idf, best part, matches) triples, none when nothing matched.
func termsOf(keys []string, bests []float64, docs int64) (Terms, error) {
	out := make(Terms, len(keys))
	for i, k := range keys {
		out[i] = TermBest{Term: k, Docs: docs}
	}
	if len(bests) == 0 {
		return out, nil // no match at all
	}
	if 3*len(keys) != len(bests) {
		return nil, fmt.Errorf("keyword search: the ranker scored %d phrases of a query of %d", len(bests)/3, len(keys))
	}
	for i := range out {
		out[i].IDF, out[i].Part, out[i].Matches = bests[3*i], bests[3*i+1], int64(bests[3*i+2])
	}
	return out, nil
}

// topk runs cfs_topk over ds's full-text table: the best window documents
// matching match, of those in keep (sorted rowids) when keep is not nil,
// and for each phrase of match, in order, its (idf, best part, matches)
// (KeywordTerms); idfs, when not nil, are the frequencies to rank each
// phrase by (0: the set's own). No match at all is nil, nil, nil.
func (c *Cache) topk(ctx context.Context, ds *docSet, match string, window int, keep []int64, idfs []float64) ([]Hit, []float64, error) {
	fts := FTSTable(ds.kind)
	args := []any{ds.rank.id, window, bm25Weights[0], bm25Weights[1], bm25Weights[2]}
	params := "?, ?, ?, ?, ?"
	switch {
	case idfs != nil:
		var k any // NULL: every document
		if keep != nil {
			k = bytesOf(keep)
		}
		b := make([]byte, 8*len(idfs))
		for i, x := range idfs {
			binary.NativeEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		args, params = append(args, k, b), params+", ?, ?"
	case keep != nil:
		args, params = append(args, bytesOf(keep)), params+", ?"
	}
	var blob []byte
	err := c.db.QueryRowContext(ctx, `SELECT cfs_topk(`+fts+`, `+params+`) FROM `+fts+` WHERE `+fts+` MATCH ? LIMIT 1`,
		append(args, match)...).Scan(&blob)
	runtime.KeepAlive(ds)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("keyword search: %w", err)
	}
	// (rowid, score) pairs, three float64s per phrase, the phrase count.
	bad := fmt.Errorf("keyword search: the ranker answered %d bytes, not (rowid, score) pairs, per-phrase scales and their count", len(blob))
	if len(blob) < 8 || len(blob)%8 != 0 {
		return nil, nil, bad
	}
	n := len(blob) - 8
	np := int64(binary.NativeEndian.Uint64(blob[n:]))
	if np < 0 || np > int64(n/24) || (n-24*int(np))%16 != 0 {
		return nil, nil, bad
	}
	pairs := n - 24*int(np)
	bests := make([]float64, 3*np)
	for i := range bests {
		bests[i] = math.Float64frombits(binary.NativeEndian.Uint64(blob[pairs+8*i:]))
	}
	return decodeHits(blob[:pairs]), bests, nil
}

// rankedWords are the words of query that a keyword search of ds ranks
// by: at most maxQueryWords, without stop words (unless nothing else is
// left) and without the words whose stems more than 57% of the documents
// contain (see commonTerms): BM25 gives those no weight, and they are most
// of the postings a query reads.
//
// When every word left is that common, BM25's inverse document frequency
// tells none of them apart, and dropping the stop words would rank by the
// words a fixed list happens to leave: the query is then every word of the
// text, stop words included, as FTS5's bm25() ranks it. Measured on the
// long documents of make bench-quality, "Go should have generics" (every
// word in 83 to 92 of 92 documents) found its document second on "go"
// and "generics", first on all four words, as the FTS5 baseline does.
func (ds *docSet) rankedWords(query string) []string {
	words := matchWords(query)
	words = words[:min(len(words), maxQueryWords)]
	if len(ds.common) == 0 {
		return words
	}
	var keep []string
	for _, w := range words {
		if !ds.common[string(porter.Stem([]byte(w)))] {
			keep = append(keep, w)
		}
	}
	if len(keep) > 0 {
		return keep
	}
	all := queryWords(query)
	return all[:min(len(all), maxQueryWords)]
}

// decodeHits reads cfs_topk's (rowid, score) pairs.
func decodeHits(b []byte) []Hit {
	out := make([]Hit, len(b)/16)
	for i := range out {
		out[i] = Hit{
			Row:   int64(binary.NativeEndian.Uint64(b[16*i:])),
			Score: math.Float64frombits(binary.NativeEndian.Uint64(b[16*i+8:])),
		}
	}
	return out
}

// passing returns, in order, the first k of cand whose documents pass
// cond (over docs d).
func (c *Cache) passing(ctx context.Context, cand []Hit, cond string, args []any, k int) ([]Hit, error) {
	if len(cand) == 0 {
		return nil, nil
	}
	ids := make([]string, len(cand))
	for i, h := range cand {
		ids[i] = "(" + strconv.FormatInt(h.Row, 10) + ")"
	}
	// CROSS JOIN keeps the candidates driving: left to itself the planner
	// reads the kind's whole index for "d.kind=?" instead.
	rs, err := c.db.QueryContext(ctx, `SELECT d.rowid FROM (VALUES `+strings.Join(ids, ",")+`) v CROSS JOIN docs d ON d.rowid=v.column1 WHERE `+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	ok := map[int64]bool{}
	for rs.Next() {
		var r int64
		if err := rs.Scan(&r); err != nil {
			return nil, err
		}
		ok[r] = true
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	var out []Hit
	for _, h := range cand {
		if ok[h.Row] && len(out) < k {
			out = append(out, h)
		}
	}
	return out, nil
}
