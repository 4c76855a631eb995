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
// (positions in the set) and the weighted frequency f of the word in each
// (the sum of its occurrences' column weights), as cfs_postings
// (fts5rank.c) reads them from the index, with the word's idf. cfs_topk
// reads every posting of every word through FTS5 each time, 74 ns a
// posting of which FTS5's decoding is 43 (66K postings a query at 100K
// memories, ten times that at a million).
//
// A kept list is compact, about two bytes a posting: blocks of postBlock
// postings, each a varint of the gap from the previous position and a
// varint of f, with per block its first position, its offset and the best
// term-frequency part of its postings. The part is recomputed from f and
// the document's length normalisation (termCache.norm) by the expression
// fts5rank.c uses, operation for operation, so the scores are cfs_topk's
// to the bit: the same parts and idf, added in the same order. Twelve
// bytes a posting (a position and a float64 part) held a dozen common
// words at a million documents in 64 MB, and a query set read the same
// words through FTS5 again and again.
//
// The ranking (maxScore) stops early: it does not score every posting.
//
// The lists belong to one docSet (one generation: the lengths in the
// parts and the idf are its statistics) and die with it; a long-lived
// process (the watcher, the MCP server) keeps its docSet across queries
// until a change. They are bounded (termCacheBound), the least recently
// used dropped first; a word with more postings than a quarter of the
// bound is ranked by cfs_topk every time.
type termList struct {
	idf     float64
	n       int     // postings
	maxPart float64 // the best part of any posting
	data    []byte  // the postings, block after block
	blocks  []termBlock
	used    uint64 // the cache's clock when last used
}

// termBlock is the head of postBlock postings of a kept list.
type termBlock struct {
	first int32   // the position of its first posting
	off   uint32  // where it starts in data
	max   float64 // the best part of its postings
}

// postBlock is the postings in a block of a kept list: what a probe for
// one document decodes.
const postBlock = 128

func (l *termList) bytes() int { return len(l.data) + 16*len(l.blocks) + 96 }

// decode reads block b of l into pos and f and returns its length.
func (l *termList) decode(b int, pos *[postBlock]int32, f *[postBlock]uint32) int {
	n := min(postBlock, l.n-b*postBlock)
	d := l.data[l.blocks[b].off:]
	p := l.blocks[b].first
	for i := range n {
		g, k := uvarint(d)
		d = d[k:]
		v, k := uvarint(d)
		d = d[k:]
		p += int32(g)
		pos[i], f[i] = p, uint32(v)
	}
	return n
}

// uvarint is binary.Uvarint with the one-byte case first: most gaps and
// frequencies are below 128.
func uvarint(b []byte) (uint64, int) {
	if b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// termCache is a docSet's kept term lists.
type termCache struct {
	mu    sync.Mutex
	lists map[string]*termList
	size  int
	clock uint64

	normOnce sync.Once
	// norm is, per position, the length normalisation of BM25's
	// term-frequency part: k1 × (1 − b + b × length / average length).
	norm []float64
	k1p1 float64 // k1 + 1
}

// norms returns ds's length normalisations, made on first use.
func (tc *termCache) norms(ds *docSet) []float64 {
	tc.normOnce.Do(func() {
		// Variables, not constants, so that Go computes what C computes
		// in float64 arithmetic (constant expressions are exact).
		k1, b := 1.2, 0.75
		tc.k1p1 = k1 + 1.0
		tc.norm = make([]float64, len(ds.lens))
		for i, l := range ds.lens {
			tc.norm[i] = k1 * (1 - b + b*float64(l)/ds.avgdl)
		}
	})
	return tc.norm
}

// termPart is BM25's term-frequency part of a posting of weighted
// frequency f in a document of length normalisation norm: on_match's
// expression in fts5rank.c.
func termPart(f, norm, k1p1 float64) float64 {
	return float64(f*k1p1) / (f + norm)
}

// termCacheBytes is the least bound on the postings a docSet keeps.
const termCacheBytes = 64 << 20

// termCacheBound bounds the postings a docSet of n documents keeps:
// 64 MB, or 128 bytes a document where that is more (128 MB at a
// million), some sixty postings a document. At a million documents the
// 154 distinct words of make bench-scale's 200 queries have 46.5 million
// postings, 93 MB kept.
func termCacheBound(n int) int { return max(termCacheBytes, 128*n) }

// errTooCommon says a word has too many postings to keep.
var errTooCommon = errors.New("cache: word too common to keep its postings")

// errNotKept says a word's postings cannot be kept compact: a weighted
// frequency that is not a whole number (a column weight that is not).
var errNotKept = errors.New("cache: postings with fractional frequencies")

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
		if err := l.fill(ds, word, blob[16:]); err != nil {
			return nil, err
		}
	}
	if l.bytes() > termCacheBound(len(ds.rows))/4 {
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
	for tc.size+l.bytes() > termCacheBound(len(ds.rows)) && len(tc.lists) > 0 {
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

// fill encodes cfs_postings's (position, f) pairs into l.
func (l *termList) fill(ds *docSet, word string, b []byte) error {
	norm := ds.terms.norms(ds)
	k1p1 := ds.terms.k1p1
	l.n = len(b) / 16
	l.data = make([]byte, 0, 2*l.n+8)
	l.blocks = make([]termBlock, 0, (l.n+postBlock-1)/postBlock)
	prev := int64(-1)
	for i := range l.n {
		p := int64(binary.NativeEndian.Uint64(b[16*i:]))
		f := math.Float64frombits(binary.NativeEndian.Uint64(b[16*i+8:]))
		if p <= prev || p >= int64(len(ds.rows)) {
			return fmt.Errorf("keyword search: postings of %q: position %d out of order or range", word, p)
		}
		if !(f >= 1 && f <= math.MaxUint32 && f == math.Trunc(f)) {
			return errNotKept
		}
		if i%postBlock == 0 {
			if len(l.data) > math.MaxUint32 {
				return errTooCommon
			}
			l.blocks = append(l.blocks, termBlock{first: int32(p), off: uint32(len(l.data))})
			prev = p
		}
		l.data = binary.AppendUvarint(l.data, uint64(p-prev))
		l.data = binary.AppendUvarint(l.data, uint64(f))
		prev = p
		part := termPart(f, norm[p], k1p1)
		bl := &l.blocks[len(l.blocks)-1]
		bl.max = max(bl.max, part)
		l.maxPart = max(l.maxPart, part)
	}
	l.data = slices.Clip(l.data)
	return nil
}

// topkWords is topk for a query of plain words (no phrases, no row
// filter), ranked from the kept term lists; nil, nil for no match.
func (c *Cache) topkWords(ctx context.Context, ds *docSet, words []string, window int) ([]Hit, []float64, error) {
	lists := make([]*termList, 0, len(words))
	for _, w := range words {
		l, err := c.termPostings(ctx, ds, w)
		if errors.Is(err, errTooCommon) || errors.Is(err, errNotKept) {
			return c.topk(ctx, ds, joinWords(words), window, nil, nil)
		}
		if err != nil {
			return nil, nil, err
		}
		lists = append(lists, l)
	}
	// For each word its (idf, best part, matches), as cfs_topk reports
	// them (KeywordTerms).
	bests := make([]float64, 0, 3*len(lists))
	matched := 0
	for _, l := range lists {
		idf := l.idf
		if l.n == 0 {
			idf = IDF(0, int64(len(ds.rows))) // as cfs_topk reports a word nothing matches
		}
		matched += l.n
		bests = append(bests, idf, l.maxPart, float64(l.n))
	}
	if matched == 0 {
		return nil, nil, nil
	}
	h := maxScore(ds.rows, ds.terms.norms(ds), ds.terms.k1p1, lists, window)
	return h, bests, nil
}

// A cursor walks one query word's kept list for maxScore.
type cursor struct {
	l  *termList
	q  int     // the word's place in the query: scores add in its order
	ub float64 // idf × best part: the most the word adds to a score
	b  int     // the block decoded into pos and f; len(l.blocks): past the end
	n  int     // postings in it
	i  int     // the posting at hand
	// heads is a block at or before any posting still to come (maxIn).
	heads int
	seen  float64 // the theta the block at hand was weighed against (skip)
	// The block decoded.
	pos [postBlock]int32
	f   [postBlock]uint32
}

const endOfList = math.MaxInt32

func (c *cursor) load(b int) {
	c.b, c.i, c.seen = b, 0, -1
	if b < len(c.l.blocks) {
		c.n = c.l.decode(b, &c.pos, &c.f)
	}
}

// doc is the position of the posting at hand, endOfList past the end.
func (c *cursor) doc() int32 {
	if c.b >= len(c.l.blocks) {
		return endOfList
	}
	return c.pos[c.i]
}

func (c *cursor) next() {
	if c.i++; c.i == c.n {
		c.load(c.b + 1)
	}
}

// seek moves to the first posting at d or after (d never goes back) and
// says whether it is at d. It reads the block heads to find d's block and
// decodes only that block.
func (c *cursor) seek(d int32) bool {
	if x := c.doc(); x >= d {
		return x == d
	}
	bl := c.l.blocks
	b := c.b
	for b+1 < len(bl) && bl[b+1].first <= d {
		b++
	}
	if b != c.b {
		c.load(b)
	}
	for c.i < c.n && c.pos[c.i] < d {
		c.i++
	}
	if c.i == c.n {
		c.load(b + 1)
	}
	return c.doc() == d
}

// skip passes the blocks whose postings cannot lift a document to theta:
// those where the block's best part, with the most each other word adds
// to a document in the block's span (the best of its own blocks there),
// stays below it. A document there that another word's list reaches then
// scores below theta even with this word's part, so leaving the part out
// changes no document that enters. floor is a position no document to
// come precedes.
func (c *cursor) skip(theta float64, floor int32, cur []*cursor) {
	if c.seen == theta {
		return // this block was weighed against this theta
	}
	c.seen = theta
	bl := c.l.blocks
	b, lo := c.b, c.doc()
	for b < len(bl) {
		hi := int32(endOfList)
		if b+1 < len(bl) {
			hi = bl[b+1].first - 1
		}
		bound := c.l.idf * bl[b].max
		for _, o := range cur {
			if o != c {
				bound += o.l.idf * o.maxIn(lo, hi, floor)
			}
		}
		if bound*slack >= theta {
			break
		}
		if b++; b < len(bl) {
			lo = bl[b].first
		}
	}
	if b != c.b {
		c.load(b)
		c.seen = theta
	}
}

// maxIn bounds the part of c's postings at positions lo to hi: the best
// part of the blocks that span them, or of the list where that is more
// than a few blocks. floor (no greater than lo) moves c.heads on.
func (c *cursor) maxIn(lo, hi, floor int32) float64 {
	bl := c.l.blocks
	for c.heads+1 < len(bl) && bl[c.heads+1].first <= floor {
		c.heads++
	}
	b := c.heads
	for b+1 < len(bl) && bl[b+1].first <= lo {
		b++
	}
	m := 0.0
	for n := 0; b < len(bl) && bl[b].first <= hi; b, n = b+1, n+1 {
		if n == 8 {
			return c.l.maxPart
		}
		m = max(m, bl[b].max)
	}
	return m
}

// slack widens a sum of upper bounds, added in another order than a
// score is, past any rounding: a bound must never fall below the score.
const slack = 1 + 1e-9

// maxScore returns the best window documents of the lists' union, by the
// sum over the words of the query, in its order, of idf × part, ties by
// row: what summing every posting and keeping the best window gives
// (cfs_topk), without scoring every posting (MaxScore, Turtle and Flood
// 1995). The words are ordered by their upper bound, idf × best part;
// once window documents are held, the weakest ones whose bounds together
// stay below the worst held score are non-essential: a document they
// alone match cannot enter, so only the essential words' postings are
// walked, and the others' lists are probed, block heads first, for those
// documents alone, stopping as soon as a document's bound falls below the
// worst held. Its score is then summed in query order, as cfs_topk sums.
// Each block's best part bounds its postings as well (block-max): an
// essential word's block that cannot lift a document to the worst held,
// with what the other words' blocks over its span add at most, is passed
// without decoding it.
func maxScore(rows []int64, norm []float64, k1p1 float64, lists []*termList, window int) []Hit {
	cur := make([]*cursor, 0, len(lists))
	for q, l := range lists {
		if l.n == 0 {
			continue
		}
		c := &cursor{l: l, q: q, ub: l.idf * l.maxPart}
		c.load(0)
		cur = append(cur, c)
	}
	slices.SortStableFunc(cur, func(a, b *cursor) int {
		switch {
		case a.ub < b.ub:
			return -1
		case a.ub > b.ub:
			return 1
		}
		return 0
	})
	// below[i] bounds what cur[:i] add together.
	below := make([]float64, len(cur)+1)
	for i, c := range cur {
		below[i+1] = (below[i] + c.ub) * slack
	}
	contrib := make([]float64, len(lists)) // by place in the query
	most := 0
	for _, c := range cur {
		most += c.l.n
	}
	h := make(hitHeap, 0, min(window, most))
	theta, full := 0.0, false
	ne := 0           // cur[:ne] are non-essential
	floor := int32(0) // the document last considered
	for {
		d := int32(endOfList)
		for _, c := range cur[ne:] {
			if full {
				c.skip(theta, floor, cur)
			}
			d = min(d, c.doc())
		}
		floor = d
		if d == endOfList {
			break
		}
		clear(contrib)
		nrm := norm[d]
		ess := 0.0
		for _, c := range cur[ne:] {
			if c.doc() == d {
				x := float64(c.l.idf * termPart(float64(c.f[c.i]), nrm, k1p1))
				contrib[c.q] = x
				ess += x
				c.next()
			}
		}
		pruned := false
		for j := ne - 1; j >= 0; j-- {
			if full && (ess+below[j+1])*slack < theta {
				pruned = true
				break
			}
			c := cur[j]
			if c.seek(d) {
				x := float64(c.l.idf * termPart(float64(c.f[c.i]), nrm, k1p1))
				contrib[c.q] = x
				ess += x
			}
		}
		if pruned || full && ess*slack < theta {
			continue
		}
		s := 0.0
		for _, x := range contrib {
			if x != 0 {
				s += x
			}
		}
		h.offer(Hit{Row: rows[d], Score: s}, window)
		if len(h) == window {
			full, theta = true, h[0].Score
			for ne < len(cur) && below[ne+1] < theta {
				ne++
			}
		}
	}
	if len(h) == 0 {
		return nil
	}
	sortHits(h)
	return slices.Clip(h)
}
