package cache

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/kelindar/search"
)

// Semantic ranks kind's current documents that pass f by cosine
// similarity to vec and returns the best k. The search is exact.
func (c *Cache) Semantic(ctx context.Context, kind Kind, vec []float32, f Filter, k int) ([]Hit, error) {
	if k <= 0 || len(vec) == 0 {
		return nil, nil
	}
	ds, err := c.docs(ctx, kind)
	if err != nil {
		return nil, err
	}
	if len(ds.rows) == 0 || len(vec) != ds.dim {
		return nil, nil
	}
	q := append([]float32(nil), vec...)
	if !normalize(q) {
		return nil, nil
	}
	if f.restrictive() {
		cand, err := c.candidates(ctx, kind, f)
		if err != nil {
			return nil, err
		}
		return ds.score(q, cand, k), nil
	}
	// Unfiltered but for retired memories, which are few: ask for enough
	// extra results to drop them.
	var excluded map[int64]bool
	if kind == KindMemory && !f.All {
		if excluded, err = c.retired(ctx); err != nil {
			return nil, err
		}
	}
	hits := c.nearest(ds, q, k+len(excluded))
	out := hits[:0]
	for _, h := range hits {
		if !excluded[h.Row] && len(out) < k {
			out = append(out, h)
		}
	}
	return out, nil
}

// Cosine returns the cosine similarity of vec with each of rows that is
// current and has a vector: the fusion fills in the semantic score of
// keyword hits that were not in the semantic top k.
func (c *Cache) Cosine(ctx context.Context, kind Kind, vec []float32, rows []int64) (map[int64]float64, error) {
	ds, err := c.docs(ctx, kind)
	if err != nil {
		return nil, err
	}
	q := append([]float32(nil), vec...)
	if len(q) != ds.dim || !normalize(q) {
		return nil, nil
	}
	out := make(map[int64]float64, len(rows))
	for _, h := range ds.score(q, rows, len(rows)) {
		out[h.Row] = h.Score
	}
	return out, nil
}

// score ranks the given rows (those current) by cosine with unit q.
func (ds *docSet) score(q []float32, rows []int64, k int) []Hit {
	hits := make([]Hit, 0, len(rows))
	for _, r := range rows {
		if v := ds.vector(r); v != nil {
			hits = append(hits, Hit{Row: r, Score: float64(dot(q, v))})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Row < hits[j].Row
	})
	return hits[:min(k, len(hits))]
}

// simdIndex is kelindar/search's SIMD index over a base file's vectors.
// Building it copies and normalises every vector, which costs a one-shot
// process more than scanning the mapped file once, so it is built on a
// base's second search; it then serves every generation until the base is
// compacted.
type simdIndex struct {
	baseID   [16]byte
	searches int
	index    *search.Index[int32] // values: positions in the base segment
}

// nearest returns the k current documents of ds closest to unit q, best
// first, ties broken by row.
func (c *Cache) nearest(ds *docSet, q []float32, k int) []Hit {
	c.docsMu.Lock()
	si := c.simd[ds.kind]
	if si == nil || si.baseID != ds.baseID {
		si = &simdIndex{baseID: ds.baseID}
		c.simd[ds.kind] = si
	}
	si.searches++
	if si.index == nil && si.searches >= 2 {
		si.index = search.NewIndex[int32]()
		for i := range ds.base.rows {
			v := ds.base.vecs[i*ds.dim : (i+1)*ds.dim]
			if slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
				si.index.Add(slices.Clone(v), int32(i))
			}
		}
	}
	index := si.index
	c.docsMu.Unlock()

	var hits []Hit
	if index != nil {
		for _, r := range index.Search(slices.Clone(q), k+ds.dead) {
			if ds.base.dead == nil || !ds.base.dead[r.Value] {
				hits = append(hits, Hit{Row: ds.base.rows[r.Value], Score: r.Relevance})
			}
		}
	} else {
		hits = scan(&ds.base, ds.dim, q, k)
	}
	hits = append(hits, scan(&ds.added, ds.dim, q, k)...)
	sortHits(hits)
	return hits[:min(k, len(hits))]
}

func sortHits(hits []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Row, b.Row)
	})
}

// scanParallelAt is the segment size from which a scan is split across
// the CPUs: below it, starting goroutines costs more than it saves.
const scanParallelAt = 16384

// scan returns the k rows of seg (skipping dead ones) closest to unit q.
func scan(seg *segment, dim int, q []float32, k int) []Hit {
	n := len(seg.rows)
	parts := min(runtime.GOMAXPROCS(0), 1+n/scanParallelAt)
	if parts <= 1 {
		return scanRange(seg, dim, q, k, 0, n)
	}
	res := make([][]Hit, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[p] = scanRange(seg, dim, q, k, p*n/parts, (p+1)*n/parts)
		}()
	}
	wg.Wait()
	return slices.Concat(res...)
}

func scanRange(seg *segment, dim int, q []float32, k int, from, to int) []Hit {
	h := make(hitHeap, 0, k)
	for i := from; i < to; i++ {
		if seg.dead != nil && seg.dead[i] {
			continue
		}
		sc := float64(dot(q, seg.vecs[i*dim:(i+1)*dim]))
		switch {
		case len(h) < k:
			heap.Push(&h, Hit{Row: seg.rows[i], Score: sc})
		case sc > h[0].Score:
			h[0] = Hit{Row: seg.rows[i], Score: sc}
			heap.Fix(&h, 0)
		}
	}
	return h
}

// hitHeap is a min-heap of hits by score.
type hitHeap []Hit

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dot is the inner product; eight accumulators keep the loop free of a
// serial dependency on one sum.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// normalize scales v to unit length in place; false for a zero or
// non-finite vector.
func normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return true
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
