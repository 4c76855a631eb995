package cache

// Approximate nearest neighbours for the semantic half, with an exact
// re-rank: the column scan.
//
// The exact scan reads every vector, 1.25 KB a document with the built-in
// embedder (320 floats), 1.25 GB at a million code chunks: 96-106 ms a
// query on two cores however it is written, as the scan is memory-bound.
// Only reading fewer bytes goes faster.
//
// From annMinRows base documents on, an unfiltered search reads a second
// copy of the base's vectors instead, quantised to one signed byte a
// component and stored by column (docs-KIND.cols): it picks the columns
// that carry colEnergy of the query's squared norm, sums their products
// with the query for every document (cfs_colsum, in blocks that stay in
// the CPU's cache), and scores the best rerankDepth of those exactly from
// the float vectors (dots), keeping the best k. The scores returned are
// the exact search's; a document can only be missed if its partial,
// quantised sum fell out of the re-rank window.
//
// Why columns: a search query's vector is concentrated in few components.
// The built-in embedder weights a query 95% on the 64 components of its
// word-vector half (docs/EMBEDDER.md) and its hashing half is sparse (the
// few words of a query); 36 of 320 columns carry 95% of a typical query's
// norm. So a query reads 36 bytes a document instead of 1,280, and the
// ranking by those columns holds the exact top 10 within its first 100
// (recall@10 1.000 at 100K). A dense query (another embedder) takes more
// columns and still reads a quarter of the bytes. Clustering indexes (an
// IVF's lists, an HNSW graph) are built from the documents' geometry,
// which the queries of this asymmetric embedder do not share: docs/DESIGN.md
// ("Approximate vector search") has the measurements.
//
// The added segment (the delta, at most compactAt of the base) is still
// scanned whole, so a document saved a second ago is found at once; dead
// base rows are skipped. The column file is derived from the base alone,
// named by the base's ID, rebuilt whenever the base is (a compaction, a
// reindex, a model change), deleted with the rest of the cache, and built
// again by the first search that finds it missing, damaged or of another
// base.

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// annMinRows is the base segment size from which an unfiltered semantic
// search uses the column scan. Below it the exact scan takes a few
// milliseconds, and the column file is not worth its build.
const annMinRows = 32768

// colEnergy is the share of the query's squared norm that the columns a
// search reads must carry; minCols is the fewest it reads.
const (
	colEnergy = 0.95
	minCols   = 8
)

// rerankDepth is how many of the column scan's best documents are scored
// exactly for a search of the best k.
func rerankDepth(k int) int { return max(128, 8*k) }

// colBlock is the number of documents whose partial sums are added up
// at a time: 16 KB of floats, in the CPU's first-level cache.
const colBlock = 4096

// colIndex is a base's vectors quantised to int8 and stored by column.
type colIndex struct {
	base   [16]byte // the base file's ID
	dim, n int
	stride int       // bytes from one column to the next (n, rounded up)
	scale  []float32 // per column: code × scale ≈ component
	codes  []int8
}

// SemanticExact is Semantic by the exact scan whatever the corpus's
// size: the reference the approximate search is measured against.
func (c *Cache) SemanticExact(ctx context.Context, kind Kind, vec []float32, f Filter, k int) ([]Hit, error) {
	return c.semantic(ctx, kind, vec, f, k, true)
}

// VectorIndex names the approximate search kind's unfiltered semantic
// search uses now, or "" when it scans exactly.
func (c *Cache) VectorIndex(ctx context.Context, kind Kind) string {
	ds, err := c.docs(ctx, kind)
	if err != nil || c.colsFor(ds) == nil {
		return ""
	}
	return "int8 columns + exact re-rank"
}

// Recall is the share of want's rows that got holds too: recall@k of an
// approximate result got against the exact want of the same k.
func Recall(got, want []Hit) float64 {
	if len(want) == 0 {
		return 1
	}
	in := make(map[int64]bool, len(got))
	for _, h := range got {
		in[h.Row] = true
	}
	n := 0
	for _, h := range want {
		if in[h.Row] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// annAt is the base size from which c's searches use the column scan.
func (c *Cache) annAt() int {
	if n := c.annMin.Load(); n > 0 {
		return int(n)
	}
	return annMinRows
}

// SetVectorIndexFrom makes unfiltered semantic searches use the column
// scan from n base documents on (0: the default, annMinRows): for
// benchmarks and tests that put the approximate path to the test on
// small corpora.
func (c *Cache) SetVectorIndexFrom(n int) { c.annMin.Store(int64(n)) }

// colsFor returns the column index of ds's base, mapping or building its
// file; nil when the base is below annAt, has no vectors, or the file
// can be neither read nor written (the exact scan serves then).
func (c *Cache) colsFor(ds *docSet) *colIndex {
	n := len(ds.base.rows)
	if n < c.annAt() || ds.dim == 0 || len(ds.base.vecs) != n*ds.dim {
		return nil
	}
	c.colsMu.Lock()
	defer c.colsMu.Unlock()
	if c.cols == nil {
		c.cols = map[Kind]*colIndex{}
	}
	if ix := c.cols[ds.kind]; ix != nil && ix.base == ds.baseID && ix.n == n && ix.dim == ds.dim {
		return ix
	}
	path := c.docSetPath(ds.kind, "cols")
	ix, err := readCols(path, ds.baseID, n, ds.dim)
	if err != nil {
		if err := writeCols(path, ds, ds.file != nil); err != nil {
			return nil
		}
		if ix, err = readCols(path, ds.baseID, n, ds.dim); err != nil {
			return nil
		}
	}
	c.cols[ds.kind] = ix
	return ix
}

// search returns the best k of seg (the base the index was built from;
// dead rows skipped) for unit q: the column scan's best rerankDepth(k),
// scored exactly. Hits come unsorted.
func (ix *colIndex) search(seg *segment, q []float32, k int) []Hit {
	return ix.searchWith(seg, q, k, colEnergy, rerankDepth(k))
}

// searchWith is search with the columns' share of the query's norm and
// the re-rank depth given.
func (ix *colIndex) searchWith(seg *segment, q []float32, k int, energy float64, depth int) []Hit {
	cols, w := ix.columns(q, energy)
	parts := min(runtime.GOMAXPROCS(0), 1+ix.n/scanParallelAt)
	res := make([][]Hit, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[p] = ix.scanRange(seg, cols, w, depth, p*ix.n/parts, (p+1)*ix.n/parts)
		}()
	}
	wg.Wait()
	cand := slices.Concat(res...)
	sortHits(cand)
	cand = cand[:min(depth, len(cand))]
	pos := make([]int64, len(cand))
	for i, h := range cand {
		pos[i] = h.Row
	}
	slices.Sort(pos) // in base order: neighbouring vectors share pages
	return scorePositions(seg, q, pos, k)
}

// columns picks the columns of q that carry energy of its squared
// norm, in the order they are stored, with their weights (the query's
// component times the column's scale).
func (ix *colIndex) columns(q []float32, energy float64) ([]int32, []float32) {
	order := make([]int32, ix.dim)
	var total float64
	for j := range order {
		order[j] = int32(j)
		total += float64(q[j]) * float64(q[j])
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(q[b]*q[b], q[a]*q[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var sum float64
	m := 0
	for m < len(order) && (m < minCols || sum < energy*total) {
		sum += float64(q[order[m]]) * float64(q[order[m]])
		m++
	}
	cols := order[:m]
	slices.Sort(cols)
	w := make([]float32, m)
	for t, j := range cols {
		w[t] = q[j] * ix.scale[j]
	}
	return cols, w
}

// scanRange returns the best depth base positions in [from, to) by the
// columns' partial sums, as hits whose Row is the position.
func (ix *colIndex) scanRange(seg *segment, cols []int32, w []float32, depth, from, to int) []Hit {
	h := make(hitHeap, 0, depth)
	var acc [colBlock]float32
	for lo := from; lo < to; lo += colBlock {
		part := acc[:min(colBlock, to-lo)]
		colsum(ix.codes, ix.stride, cols, w, lo, part)
		for i, s := range part {
			// The heap's test inline: most documents fall short of the
			// worst kept.
			if len(h) == depth && float64(s) <= h[0].Score {
				continue
			}
			if seg.dead == nil || !seg.dead[lo+i] {
				h.offer(Hit{Row: int64(lo + i), Score: float64(s)}, depth)
			}
		}
	}
	return h
}

// scorePositions returns the best k of seg's vectors at positions pos,
// scored exactly, as hits of seg's rows.
func scorePositions(seg *segment, q []float32, pos []int64, k int) []Hit {
	h := make(hitHeap, 0, k)
	var sc [1024]float32
	for lo := 0; lo < len(pos); lo += len(sc) {
		part := pos[lo:min(lo+len(sc), len(pos))]
		dots(q, seg.vecs, part, sc[:len(part)])
		for i, p := range part {
			h.offer(Hit{Row: seg.rows[p], Score: float64(sc[i])}, k)
		}
	}
	return h
}

// The column file: magic, base ID [16], dim u32, n u32, scales [dim]f32,
// zeros to a multiple of 64 bytes, then dim columns of stride bytes (n
// codes and zeros to a multiple of 64), then the CRC-32C trailer as the
// base's.
const colsMagic = "CFSCOL01"

func colsLayout(n, dim int) (codesAt, stride, size int) {
	codesAt = (32 + 4*dim + 63) &^ 63
	stride = (n + 63) &^ 63
	return codesAt, stride, codesAt + dim*stride + trailerLen
}

// colSample is how many vectors, evenly spaced, set the columns' scales.
const colSample = 65536

// colChunk is how many documents are quantised and written at a time.
const colChunk = 16384

// writeCols quantises ds's base vectors into the column file at path,
// writing it beside and renaming it over. It reads the base a chunk at a
// time and, when the base is a mapped file (mapped), gives each chunk's
// pages back once done, so that a build at a million documents does not
// hold 1.25 GB of mapped vectors resident (a reindex's peak memory).
func writeCols(path string, ds *docSet, mapped bool) (err error) {
	n, dim := len(ds.base.rows), ds.dim
	vecs := ds.base.vecs
	codesAt, stride, size := colsLayout(n, dim)
	drop := func(lo, hi int) {
		if mapped {
			dropPages(bytesOf(vecs[lo*dim : hi*dim]))
		}
	}
	scale := colScales(vecs, n, dim, drop)
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		f.Close()
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err := f.Truncate(int64(size - trailerLen)); err != nil {
		return err
	}
	h := make([]byte, 0, codesAt)
	h = append(h, colsMagic...)
	h = append(h, ds.baseID[:]...)
	h = binary.LittleEndian.AppendUint32(h, uint32(dim))
	h = binary.LittleEndian.AppendUint32(h, uint32(n))
	h = append(h, bytesOf(scale)...)
	if _, err := f.WriteAt(h, 0); err != nil {
		return err
	}
	buf := make([]byte, dim*colChunk)
	for lo := 0; lo < n; lo += colChunk {
		cnt := min(colChunk, n-lo)
		for i := range cnt {
			for j, x := range vecs[(lo+i)*dim : (lo+i+1)*dim] {
				var c float32
				if scale[j] > 0 {
					c = float32(math.Round(float64(x / scale[j])))
				}
				buf[j*colChunk+i] = byte(int8(min(max(c, -127), 127)))
			}
		}
		for j := range dim {
			if _, err := f.WriteAt(buf[j*colChunk:j*colChunk+cnt], int64(codesAt+j*stride+lo)); err != nil {
				return err
			}
		}
		drop(lo, lo+cnt)
	}
	// The checksum, read back through the page cache (not mapped: the
	// pages are not this process's to hold).
	crc := crc32.New(castagnoli())
	if _, err := io.Copy(crc, bufio.NewReaderSize(io.NewSectionReader(f, 0, int64(size-trailerLen)), 1<<20)); err != nil {
		return err
	}
	if _, err := f.WriteAt(binary.LittleEndian.AppendUint32(make([]byte, 0, trailerLen), crc.Sum32())[:trailerLen], int64(size-trailerLen)); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// Verified as written: the first map need not read the file whole.
	if id := fileID(path); id != "" {
		_ = os.WriteFile(path+verifiedSuffix, []byte(id), 0o600)
	}
	return nil
}

// colScales returns each column's scale (its largest magnitude among
// colSample vectors evenly spaced, over 127), reading vecs (n vectors of
// dim) colChunk vectors at a time and calling read(lo, hi) after each
// range of vectors is done with. A mapped base gives those pages back
// there: the sample reads one vector in fifteen at a million, and the
// kernel maps the pages around each fault as well, so a single pass left
// the whole base resident (1.3 GB, a reindex's peak RSS).
func colScales(vecs []float32, n, dim int, read func(lo, hi int)) []float32 {
	scale := make([]float32, dim)
	step := max(1, n/colSample)
	for lo := 0; lo < n; lo += colChunk {
		hi := min(lo+colChunk, n)
		for i := (lo + step - 1) / step * step; i < hi; i += step {
			for j, x := range vecs[i*dim : (i+1)*dim] {
				scale[j] = max(scale[j], float32(math.Abs(float64(x))))
			}
		}
		read(lo, hi)
	}
	for j := range scale {
		scale[j] /= 127
	}
	return scale
}

// readCols maps the column file of base id (n rows of dim).
func readCols(path string, id [16]byte, n, dim int) (*colIndex, error) {
	if !littleEndian() {
		return nil, errStaleFile
	}
	b, unmap, fid, err := mapFileID(path)
	if err != nil {
		return nil, err
	}
	unmap = sync.OnceFunc(unmap)
	fail := func(err error) (*colIndex, error) {
		unmap()
		return nil, err
	}
	codesAt, stride, size := colsLayout(n, dim)
	if len(b) != size || string(b[:8]) != colsMagic || [16]byte(b[8:24]) != id ||
		binary.LittleEndian.Uint32(b[24:]) != uint32(dim) || binary.LittleEndian.Uint32(b[28:]) != uint32(n) {
		return fail(errStaleFile)
	}
	if _, err := checkTrailerOnce(b, path+verifiedSuffix, fid); err != nil {
		return fail(fmt.Errorf("%s: %w", filepath.Base(path), err))
	}
	ix := &colIndex{base: id, dim: dim, n: n, stride: stride,
		scale: unsafe.Slice((*float32)(unsafe.Pointer(&b[32])), dim),
		codes: unsafe.Slice((*int8)(unsafe.Pointer(&b[codesAt])), dim*stride)}
	for _, s := range ix.scale {
		if s < 0 || math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return fail(errors.Join(errStaleFile, errors.New("bad column scale")))
		}
	}
	runtime.AddCleanup(ix, func(unmap func()) { unmap() }, unmap)
	return ix, nil
}
