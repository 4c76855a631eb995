package cache

import (
	"slices"
)

// A slab is the vectors of the base file's current documents of some
// memory types (one typeRows), copied out of the mapping and packed in
// base order.
//
// A filtered scan (a duplicate check, search --type) reads one vector in
// ten of the base at 100K memories: 10,000 vectors of 1 KB scattered over
// a 100 MB mapping, each a fresh fetch from memory that the hardware
// prefetchers cannot foresee. Packed, the same vectors stream. Only a
// process that scans the same types again gains from the copy, so a slab
// is cut on the second filtered scan of its types over one base file
// (one-shot commands scan once), and only a long-lived process (the
// watcher, the MCP server) scans twice.
//
// A slab stays valid for as long as its base file backs the docSet: rows
// are inserted and deleted, never changed, so a base row of these types
// current at any later generation was current when the slab was cut;
// rows that died since are skipped by the docSet's dead marks, and rows
// added since live in the docSet's added segment, scanned as before.
type slab struct {
	base [16]byte // the base file's ID
	rows []int64  // sorted
	pos  []int32  // each row's position in the base
	vecs []float32
}

// maxSlabs bounds the slabs a Cache keeps (the least recently cut is
// dropped): each holds a copy of its types' vectors, 10 MB for one type
// at 100K memories.
const maxSlabs = 4

// slabFor returns t's slab for ds's base, cutting it on the second scan
// of t over that base; nil when the scan should read the base in place:
// no typeRows, too early, or types too common for a copy to pay.
func (c *Cache) slabFor(ds *docSet, t *typeRows) *slab {
	if t == nil || len(ds.base.rows) == 0 {
		return nil
	}
	if sl := t.slab.Load(); sl != nil && sl.base == ds.baseID {
		return sl
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if sl := t.slab.Load(); sl != nil && sl.base == ds.baseID {
		return sl
	}
	if t.slabBase != ds.baseID {
		t.slabBase, t.uses = ds.baseID, 0
	}
	t.uses++
	// t.rows must be of ds's generation: rows of a later one may lack a
	// base row that ds still holds current.
	if t.uses != 2 || !t.known || t.gen != ds.gen {
		return nil
	}
	found, pos := ds.base.positions(t.rows)
	if 2*len(found) > len(ds.base.rows) {
		return nil // half the base or more: the scan streams anyway
	}
	sl := &slab{base: ds.baseID, rows: found, pos: make([]int32, len(pos)), vecs: make([]float32, len(pos)*ds.dim)}
	for i, p := range pos {
		sl.pos[i] = int32(p)
		copy(sl.vecs[i*ds.dim:(i+1)*ds.dim], ds.base.vecs[int(p)*ds.dim:(int(p)+1)*ds.dim])
	}
	t.slab.Store(sl)
	c.mu.Lock()
	c.slabbed = append(slices.DeleteFunc(c.slabbed, func(o *typeRows) bool { return o == t }), t)
	if len(c.slabbed) > maxSlabs {
		c.slabbed[0].slab.Store(nil)
		c.slabbed = c.slabbed[1:]
	}
	c.mu.Unlock()
	return sl
}

// scoreSlab is score for rows (sorted) of sl's types: the base's share
// from the slab, the added segment's as score reads it.
func (ds *docSet) scoreSlab(q []float32, rows []int64, sl *slab, k int) []Hit {
	if k <= 0 || len(rows) == 0 {
		return nil
	}
	h := make(hitHeap, 0, min(k, len(rows)))
	sc := make([]float32, len(sl.rows))
	dots(q, sl.vecs, nil, sc)
	j := 0
	for i, r := range sl.rows {
		for j < len(rows) && rows[j] < r {
			j++
		}
		if j == len(rows) {
			break
		}
		// Not passed by the filter (a hidden memory), or no longer current.
		if rows[j] != r || ds.base.dead != nil && ds.base.dead[sl.pos[i]] {
			continue
		}
		h.offer(Hit{Row: r, Score: float64(sc[i])}, k)
	}
	if found, pos := ds.added.positions(rows); len(pos) > 0 {
		sc = slices.Grow(sc[:0], len(pos))[:len(pos)]
		dots(q, ds.added.vecs, pos, sc)
		for i, r := range found {
			h.offer(Hit{Row: r, Score: float64(sc[i])}, k)
		}
	}
	sortHits(h)
	return h
}
