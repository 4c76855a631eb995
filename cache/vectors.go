package cache

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"unsafe"

	"github.com/kelindar/search"

	"github.com/contextfs/contextfs/gitstore"
)

// vectorSet holds the vectors of one kind's current documents, ready for
// exact cosine search.
type vectorSet struct {
	gen   string
	model string
	dim   int
	rows  []int64
	flat  []float32 // len(rows)*dim, unit length
	// index is the SIMD index, built on a set's second search: building it
	// normalises every vector again, which costs a one-shot CLI process
	// more than scanning the (already unit-length) snapshot once.
	index    *search.Index[int32]
	searches int
}

// position returns the index of row in the set: rows are sorted (loaded
// ORDER BY rowid, and snapshots keep that order), so no map is built per
// process.
func (vs *vectorSet) position(row int64) (int, bool) {
	return slices.BinarySearch(vs.rows, row)
}

// topK returns the k best rows by cosine with unit-length q, skipping
// excluded rows.
func (vs *vectorSet) topK(q []float32, k int, excluded map[int64]bool) []Hit {
	vs.searches++
	if vs.index == nil && vs.searches >= 2 {
		vs.index = search.NewIndex[int32]()
		for i := range vs.rows {
			vs.index.Add(append([]float32(nil), vs.flat[i*vs.dim:(i+1)*vs.dim]...), int32(i))
		}
	}
	out := make([]Hit, 0, k)
	if vs.index != nil {
		res := vs.index.Search(append([]float32(nil), q...), k+len(excluded))
		for _, r := range res {
			row := vs.rows[r.Value]
			if excluded[row] {
				continue
			}
			out = append(out, Hit{Row: row, Score: r.Relevance})
			if len(out) == k {
				break
			}
		}
		return out
	}
	h := &hitHeap{}
	for i, row := range vs.rows {
		if excluded[row] {
			continue
		}
		sc := float64(dot(q, vs.flat[i*vs.dim:(i+1)*vs.dim]))
		if len(*h) < k {
			heap.Push(h, Hit{Row: row, Score: sc})
		} else if sc > (*h)[0].Score {
			(*h)[0] = Hit{Row: row, Score: sc}
			heap.Fix(h, 0)
		}
	}
	for h.Len() > 0 {
		out = append(out, heap.Pop(h).(Hit))
	}
	slices.Reverse(out)
	return out
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

// snapshotMagic starts a vector snapshot file. The snapshot exists so a
// short-lived CLI process loads every vector with one read instead of one
// SQLite row per document.
const snapshotMagic = "CFSVEC2\n"

func (c *Cache) snapshotPath(kind Kind) string {
	return filepath.Join(c.dir, "vectors-"+kind.String()+".bin")
}

// vectors returns the vector set of kind, loading it from the snapshot
// file when that matches the cache's generation and model, and otherwise
// from SQLite (writing a new snapshot).
func (c *Cache) vectors(ctx context.Context, kind Kind) (*vectorSet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.meta(ctx, c.db, "gen:"+strconv.Itoa(int(kind)))
	model := c.emb.Model()
	if vs := c.vecs[kind]; vs != nil && vs.gen == gen && vs.model == model {
		return vs, nil
	}
	vs, err := readSnapshot(c.snapshotPath(kind), gen, model)
	if err != nil {
		vs, err = c.loadVectors(ctx, kind, gen, model)
		if err != nil {
			return nil, err
		}
		// A snapshot that cannot be written only costs speed.
		_ = writeSnapshot(c.snapshotPath(kind), vs)
	}
	c.vecs[kind] = vs
	return vs, nil
}

func (c *Cache) loadVectors(ctx context.Context, kind Kind, gen, model string) (*vectorSet, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT d.rowid, v.vec FROM docs d JOIN vectors v ON v.model=? AND v.hash=d.vhash
		WHERE d.kind=? AND EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind) ORDER BY d.rowid`, model, int(kind))
	if err != nil {
		return nil, fmt.Errorf("cache: load vectors: %w", err)
	}
	defer rows.Close()
	vs := &vectorSet{gen: gen, model: model}
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, fmt.Errorf("cache: load vectors: %w", err)
		}
		v := decodeVec(b)
		if vs.dim == 0 {
			vs.dim = len(v)
		}
		if len(v) != vs.dim || !normalize(v) {
			continue // a vector of another shape or all zeros cannot be compared
		}
		vs.rows = append(vs.rows, id)
		vs.flat = append(vs.flat, v...)
	}
	return vs, rows.Err()
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

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// Snapshot layout: magic, then little-endian uint32 header words
// (len(gen), len(model), dim, n), gen, model, padding to 8 bytes, n int64
// rows, n*dim float32.
func writeSnapshot(path string, vs *vectorSet) error {
	var buf bytes.Buffer
	buf.WriteString(snapshotMagic)
	for _, x := range []int{len(vs.gen), len(vs.model), vs.dim, len(vs.rows)} {
		binary.Write(&buf, binary.LittleEndian, uint32(x))
	}
	buf.WriteString(vs.gen)
	buf.WriteString(vs.model)
	for buf.Len()%8 != 0 {
		buf.WriteByte(0)
	}
	binary.Write(&buf, binary.LittleEndian, vs.rows)
	binary.Write(&buf, binary.LittleEndian, vs.flat)
	return gitstore.WriteFileAtomic(path, buf.Bytes(), 0o644)
}

var errStale = errors.New("stale snapshot")

func readSnapshot(path, gen, model string) (*vectorSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := len(snapshotMagic)
	if len(b) < h+16 || string(b[:h]) != snapshotMagic {
		return nil, errStale
	}
	lg := int(binary.LittleEndian.Uint32(b[h:]))
	lm := int(binary.LittleEndian.Uint32(b[h+4:]))
	dim := int(binary.LittleEndian.Uint32(b[h+8:]))
	n := int(binary.LittleEndian.Uint32(b[h+12:]))
	off := h + 16
	if len(b) < off+lg+lm || string(b[off:off+lg]) != gen || string(b[off+lg:off+lg+lm]) != model {
		return nil, errStale
	}
	off += lg + lm
	off = (off + 7) &^ 7
	if len(b) != off+8*n+4*n*dim {
		return nil, errStale
	}
	vs := &vectorSet{gen: gen, model: model, dim: dim}
	if n == 0 {
		return vs, nil
	}
	if littleEndian() {
		// Alias the file's bytes rather than copy them: ReadFile's buffer
		// is 8-byte aligned and off is too, and nothing else holds b.
		vs.rows = unsafe.Slice((*int64)(unsafe.Pointer(&b[off])), n)
		vs.flat = unsafe.Slice((*float32)(unsafe.Pointer(&b[off+8*n])), n*dim)
		return vs, nil
	}
	vs.rows = make([]int64, n)
	vs.flat = make([]float32, n*dim)
	if err := binary.Read(bytes.NewReader(b[off:]), binary.LittleEndian, vs.rows); err != nil {
		return nil, err
	}
	if err := binary.Read(bytes.NewReader(b[off+8*n:]), binary.LittleEndian, vs.flat); err != nil {
		return nil, err
	}
	return vs, nil
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
