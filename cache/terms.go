package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// A keyword query of plain words is ranked from each word's matches,
// kept per docSet after the first query that reads them: the documents
// (positions in the set) and the term-frequency part of their BM25
// score, with the word's idf, as cfs_postings (fts5rank.c) reads them
// from the index. cfs_topk reads every posting of every word through
// FTS5 each time, 74 ns a posting of which FTS5's decoding is 43 (66K
// postings a query at 100K memories, ten times that at a million); from a
// kept list a posting costs a load and an add. The scores are cfs_topk's
// to the bit: the same parts and idf, added in the same order.
//
// The lists belong to one docSet (one generation: the lengths in the
// parts and the idf are its statistics) and die with it; a long-lived
// process (the watcher, the MCP server) keeps its docSet across queries
// until a change. They are bounded (termCacheBytes), the least recently
// used dropped first; a word with more postings than a quarter of the
// bound is ranked by cfs_topk every time.
type termList struct {
	idf  float64
	pos  []int32
	part []float64
	used uint64 // the cache's clock when last used
}

func (l *termList) bytes() int { return 12 * len(l.pos) }

// termCache is a docSet's kept term lists.
type termCache struct {
	mu    sync.Mutex
	lists map[string]*termList
	size  int
	clock uint64
	// acc is scratch for the sums, one array of len(rows) per concurrent
	// query, handed back cleared.
	acc sync.Pool
}

// termCacheBytes bounds the postings a docSet keeps: 64 MB, the lists of
// a few hundred common words at 100K memories, a dozen at a million.
const termCacheBytes = 64 << 20

// errTooCommon says a word has too many postings to keep.
var errTooCommon = errors.New("cache: word too common to keep its postings")

// termPostings returns word's list in ds, reading it on first use.
func (c *Cache) termPostings(ctx context.Context, ds *docSet, word string) (*termList, error) {
	tc := &ds.terms
	tc.mu.Lock()
	if l := tc.lists[word]; l != nil {
		tc.clock++
		l.used = tc.clock
		tc.mu.Unlock()
		return l, nil
	}
	tc.mu.Unlock()
	fts := FTSTable(ds.kind)
	var blob []byte
	err := c.db.QueryRowContext(ctx, `SELECT cfs_postings(`+fts+`, ?, ?, ?, ?) FROM `+fts+` WHERE `+fts+` MATCH ? LIMIT 1`,
		ds.rank.id, bm25Weights[0], bm25Weights[1], bm25Weights[2], joinWords([]string{word})).Scan(&blob)
	runtime.KeepAlive(ds)
	l := &termList{}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// No match at all: an empty list.
	case err != nil:
		return nil, fmt.Errorf("keyword search: %w", err)
	case len(blob) < 16 || len(blob)%16 != 0:
		return nil, fmt.Errorf("keyword search: postings of %q: %d bytes", word, len(blob))
	default:
		l.idf = math.Float64frombits(binary.NativeEndian.Uint64(blob[8:]))
		n := len(blob)/16 - 1
		l.pos, l.part = make([]int32, n), make([]float64, n)
		for i := range n {
			b := blob[16*(i+1):]
			p := int64(binary.NativeEndian.Uint64(b))
			if p < 0 || p >= int64(len(ds.rows)) {
				return nil, fmt.Errorf("keyword search: postings of %q: position %d out of range", word, p)
			}
			l.pos[i] = int32(p)
			l.part[i] = math.Float64frombits(binary.NativeEndian.Uint64(b[8:]))
		}
	}
	if l.bytes() > termCacheBytes/4 {
		return l, errTooCommon
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.lists == nil {
		tc.lists = map[string]*termList{}
	}
	if old := tc.lists[word]; old != nil {
		return old, nil // read meanwhile by another query
	}
	for tc.size+l.bytes() > termCacheBytes && len(tc.lists) > 0 {
		var lru string
		var at uint64 = math.MaxUint64
		for w, o := range tc.lists {
			if o.used < at {
				lru, at = w, o.used
			}
		}
		tc.size -= tc.lists[lru].bytes()
		delete(tc.lists, lru)
	}
	tc.clock++
	l.used = tc.clock
	tc.lists[word] = l
	tc.size += l.bytes()
	return l, nil
}

// topkWords is topk for a query of plain words (no phrases, no row
// filter), ranked from the kept term lists; nil, nil for no match.
func (c *Cache) topkWords(ctx context.Context, ds *docSet, words []string, window int) ([]Hit, []float64, error) {
	lists := make([]*termList, 0, len(words))
	for _, w := range words {
		l, err := c.termPostings(ctx, ds, w)
		if errors.Is(err, errTooCommon) {
			return c.topk(ctx, ds, joinWords(words), window, nil, nil)
		}
		if err != nil {
			return nil, nil, err
		}
		lists = append(lists, l)
	}
	tc := &ds.terms
	accp, _ := tc.acc.Get().(*[]float64)
	if accp == nil || len(*accp) != len(ds.rows) {
		a := make([]float64, len(ds.rows))
		accp = &a
	}
	acc := *accp
	var touched []int32
	// As cfs_topk: word by word, in query order, each adding idf × part;
	// and for each word its (idf, best part, matches), as cfs_topk
	// reports them (KeywordTerms).
	bests := make([]float64, 0, 3*len(lists))
	for _, l := range lists {
		best := 0.0
		for j, p := range l.pos {
			if acc[p] == 0 {
				touched = append(touched, p)
			}
			acc[p] += float64(l.idf * l.part[j]) // the conversion forbids a fused multiply-add
			best = max(best, l.part[j])
		}
		idf := l.idf
		if len(l.pos) == 0 {
			idf = IDF(0, int64(len(ds.rows))) // as cfs_topk reports a word nothing matches
		}
		bests = append(bests, idf, best, float64(len(l.pos)))
	}
	h := make(hitHeap, 0, min(window, len(touched)))
	for _, p := range touched {
		h.offer(Hit{Row: ds.rows[p], Score: acc[p]}, window)
		acc[p] = 0
	}
	tc.acc.Put(accp)
	if len(h) == 0 {
		return nil, nil, nil
	}
	sortHits(h)
	return slices.Clip(h), bests, nil
}
