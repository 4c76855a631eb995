package cache

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Semantic ranks kind's current documents that pass f by cosine
// similarity to vec and returns the best k. The scores are exact; an
// unfiltered search of a large set reads only the vectors near vec (see
// ann.go), a filtered one every vector that passes.
func (c *Cache) Semantic(ctx context.Context, kind Kind, vec []float32, f Filter, k int) ([]Hit, error) {
	return c.semantic(ctx, kind, vec, f, k, false)
}

// semantic is Semantic, by the exact scan whatever the size when exact.
func (c *Cache) semantic(ctx context.Context, kind Kind, vec []float32, f Filter, k int, exact bool) ([]Hit, error) {
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
		cand, t, err := c.filteredBy(ctx, ds, f)
		if err != nil {
			return nil, err
		}
		if sl := c.slabFor(ds, t); sl != nil {
			return ds.scoreSlab(q, cand, sl, k), nil
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
	hits := c.nearest(ds, q, k+len(excluded), exact)
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

// score ranks the given rows (those current) by cosine with unit q and
// returns the best k, best first, ties broken by row. Sorted rows (what
// candidates returns) are found by one walk of each segment; their
// vectors are scored in one call (dots) and only the best k kept: a
// duplicate check scores the 10,000 memories of a type at 100K to keep 30.
func (ds *docSet) score(q []float32, rows []int64, k int) []Hit {
	if k <= 0 || len(rows) == 0 {
		return nil
	}
	if !slices.IsSorted(rows) {
		rows = slices.Sorted(slices.Values(rows))
	}
	h := make(hitHeap, 0, min(k, len(rows)))
	var sc []float32
	for _, seg := range []*segment{&ds.base, &ds.added} {
		found, pos := seg.positions(rows)
		if len(pos) == 0 {
			continue
		}
		sc = slices.Grow(sc[:0], len(pos))[:len(pos)]
		dots(q, seg.vecs, pos, sc)
		for i, r := range found {
			h.offer(Hit{Row: r, Score: float64(sc[i])}, k)
		}
	}
	sortHits(h)
	return h
}

// positions returns those of rows (sorted) that the segment holds as
// current documents, and where it holds them.
func (s *segment) positions(rows []int64) (found, pos []int64) {
	n := min(len(rows), len(s.rows))
	found, pos = make([]int64, 0, n), make([]int64, 0, n)
	at := 0
	for _, r := range rows {
		// Gallop from where the last row was found, then bisect: the
		// rows asked for are usually near each other.
		hi, step := at, 1
		for hi < len(s.rows) && s.rows[hi] < r {
			at = hi + 1
			hi += step
			step *= 2
		}
		i, ok := slices.BinarySearch(s.rows[at:min(hi+1, len(s.rows))], r)
		at += i
		if at == len(s.rows) {
			break
		}
		if ok && (s.dead == nil || !s.dead[at]) {
			found, pos = append(found, r), append(pos, int64(at))
		}
	}
	return found, pos
}

// nearest returns the k current documents of ds closest to unit q, best
// first, ties broken by row: a scan of both segments (dots), split across
// the CPUs when large, or from annAt base documents on (unless exact),
// the base's column scan with an exact re-rank (ann.go) and a scan of the added segment. It used
// kelindar/search's SIMD index from a process's second search on; the
// scan cost the same wall time at 100K without the index's copy of every
// vector (100 MB at 100K) or the time to build it, and is memory-bound
// either way: only reading fewer vectors goes faster.
func (c *Cache) nearest(ds *docSet, q []float32, k int, exact bool) []Hit {
	var ix *colIndex
	if !exact {
		ix = c.colsFor(ds)
	}
	var hits []Hit
	if ix != nil {
		hits = ix.search(&ds.base, q, k)
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
	// Scored a block at a time, so the scores stay in the CPU's cache.
	var sc [1024]float32
	for lo := from; lo < to; lo += len(sc) {
		n := min(len(sc), to-lo)
		dots(q, seg.vecs[lo*dim:], nil, sc[:n])
		for i, x := range sc[:n] {
			if seg.dead == nil || !seg.dead[lo+i] {
				h.offer(Hit{Row: seg.rows[lo+i], Score: float64(x)}, k)
			}
		}
	}
	return h
}

// hitHeap is a min-heap of hits by score.
type hitHeap []Hit

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	// The worst hit at the root: the lowest score, and of equal scores
	// the highest row (the ranking breaks ties by row).
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].Row > h[j].Row
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(Hit)) }

// offer keeps x if it is among the best k seen: a higher score, or an
// equal score and a lower row, than the worst kept.
func (h *hitHeap) offer(x Hit, k int) {
	switch {
	case k <= 0:
	case len(*h) < k:
		heap.Push(h, x)
	case x.Score > (*h)[0].Score || x.Score == (*h)[0].Score && x.Row < (*h)[0].Row:
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}

func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
