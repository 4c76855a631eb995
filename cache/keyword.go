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
	if len(queryWords(query))+len(phrases) == 0 || k <= 0 {
		return nil, 0, nil
	}
	ds, err := c.docs(ctx, kind)
	if err != nil {
		return nil, 0, err
	}
	if len(ds.rows) == 0 {
		return nil, 0, nil
	}
	words := ds.rankedWords(query)
	match := joinWords(words)
	// rank is topk for this query: from the kept term lists when the query
	// is plain words (terms.go).
	rank := func(window int) ([]Hit, float64, error) {
		if len(phrases) == 0 {
			return c.topkWords(ctx, ds, words, window)
		}
		return c.topk(ctx, ds, match, window, nil)
	}
	if len(phrases) > 0 {
		match = strings.Join(append(phrases[:len(phrases):len(phrases)], match), " OR ")
		match = strings.TrimSuffix(match, " OR ")
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
			return nil, 0, err
		}
		return c.topk(ctx, ds, match, k, pass)
	}
	// No filter but the hidden memories, as a plain search asks: those are
	// few and known per generation (Cache.retired), so the ranker's best
	// k plus that many hold the answer, without asking SQL about a window
	// of candidates (3.6 of 8.6 ms CPU a query at 100K memories).
	if !f.restrictive() {
		var hidden map[int64]bool
		if kind == KindMemory && !f.All {
			if hidden, err = c.retired(ctx); err != nil {
				return nil, 0, err
			}
		}
		cand, attainable, err := rank(k + len(hidden))
		if err != nil {
			return nil, 0, err
		}
		out := cand[:0]
		for _, h := range cand {
			if !hidden[h.Row] && len(out) < k {
				out = append(out, h)
			}
		}
		return out, attainable, nil
	}
	cond, cargs := f.where(kind, false)
	for window := max(4*k, 64); ; window *= 8 {
		cand, attainable, err := rank(window)
		if err != nil || cand == nil {
			return nil, 0, err
		}
		out, err := c.passing(ctx, cand, cond, cargs, k)
		if err != nil {
			return nil, 0, fmt.Errorf("keyword search: %w", err)
		}
		if len(out) >= k || len(cand) < window {
			return out, attainable, nil
		}
	}
}

// topk runs cfs_topk over ds's full-text table: the best window documents
// matching match, of those in keep (sorted rowids) when keep is not nil,
// and the query's attainable score (KeywordAttainable). No match at all
// is nil, 0, nil.
func (c *Cache) topk(ctx context.Context, ds *docSet, match string, window int, keep []int64) ([]Hit, float64, error) {
	fts := FTSTable(ds.kind)
	args := []any{ds.rank.id, window, bm25Weights[0], bm25Weights[1], bm25Weights[2]}
	params := "?, ?, ?, ?, ?"
	if keep != nil {
		args, params = append(args, bytesOf(keep)), params+", ?"
	}
	var blob []byte
	err := c.db.QueryRowContext(ctx, `SELECT cfs_topk(`+fts+`, `+params+`) FROM `+fts+` WHERE `+fts+` MATCH ? LIMIT 1`,
		append(args, match)...).Scan(&blob)
	runtime.KeepAlive(ds)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	if len(blob)%16 != 8 {
		return nil, 0, fmt.Errorf("keyword search: the ranker answered %d bytes, not (rowid, score) pairs and a scale", len(blob))
	}
	n := len(blob) - 8
	return decodeHits(blob[:n]), math.Float64frombits(binary.NativeEndian.Uint64(blob[n:])), nil
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
