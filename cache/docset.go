package cache

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/contextfs/contextfs/gitstore"
)

// A docSet is one kind's current documents at one generation of the
// cache, as the rankers need them: sorted rowids with their lengths in
// tokens (for BM25) and their vectors (for cosine).
//
// It lives in two files in the cache directory so that a change costs in
// proportion to its size, not the corpus's:
//
//   - docs-KIND.base: every document current when it was written, with
//     lengths and unit vectors. It is mapped, not read, so a one-shot
//     process pays nothing for the vectors it does not scan. It is
//     rewritten only when the delta grows large, the model changes, or
//     the change log does not reach back far enough.
//   - docs-KIND.delta: the base's rows no longer current, and the rows
//     current since (with their lengths and vectors), as of a generation.
//
// The cache's change log (table doclog, written by every sync in the same
// transaction as the change) says which rows entered or left the current
// set at each generation; bringing a docSet up to date replays it.
type docSet struct {
	kind  Kind
	gen   int64
	model string
	dim   int

	rows  []int64  // current documents, sorted
	lens  []uint32 // their lengths in tokens over all columns
	avgdl float64

	baseID [16]byte
	base   segment // the base file's documents; dead marks those no longer current
	// file is the mapped base file that base points into (nil when base
	// was built from the tables): held here, it stays mapped while any
	// docSet uses it.
	file  *baseFile
	dead  int     // how many base rows are dead
	added segment // documents current since the base was written

	rank *rankDocs

	// terms keeps the postings of query words read so far (terms.go).
	terms termCache

	// common holds the stems that more than half of the current documents
	// contain, as far as the base file can vouch for (see commonTerms):
	// BM25 gives them no weight, and they are most of a query's postings.
	common map[string]bool
}

// segment is a run of documents with their vectors, rows sorted.
type segment struct {
	rows []int64
	lens []uint32
	vecs []float32 // len(rows)*dim, unit length or zero
	dead []bool    // nil when every row is current
}

// vector returns row's vector, or nil if row is not current.
func (ds *docSet) vector(row int64) []float32 {
	for _, s := range []*segment{&ds.added, &ds.base} {
		if i, ok := slices.BinarySearch(s.rows, row); ok {
			if s.dead != nil && s.dead[i] {
				return nil
			}
			return s.vecs[i*ds.dim : (i+1)*ds.dim]
		}
	}
	return nil
}

// compactAt is when the delta is folded into a new base: a delta is read
// whole by every process, and dead base rows still cost a scan.
func compactAt(n int) int { return max(1024, n/16) }

// logKeep is how many generations of the change log a sync keeps; a
// docSet further behind is rebuilt from the tables.
const logKeep = 512

func (c *Cache) docSetPath(kind Kind, ext string) string {
	return filepath.Join(c.dir, "docs-"+kind.String()+"."+ext)
}

// docs returns kind's docSet at the cache's current generation, loading
// or updating it as needed. It is kept for the life of the Cache.
func (c *Cache) docs(ctx context.Context, kind Kind) (*docSet, error) {
	c.docsMu.Lock()
	defer c.docsMu.Unlock()
	// The database ID and the generation in one statement: a database
	// replaced by a reindex (Replace, in another process) starts its
	// generations again, so a generation alone could match a set of the
	// old content.
	var dbid, g string
	if err := c.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM meta WHERE key='dbid'), ''),
		COALESCE((SELECT value FROM meta WHERE key=?), '0')`, "gen:"+strconv.Itoa(int(kind))).Scan(&dbid, &g); err != nil {
		return nil, fmt.Errorf("cache: generation: %w", err)
	}
	gen, err := strconv.ParseInt(g, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("cache: generation: %w", err)
	}
	if dbid != c.seenID {
		if c.seenID != "" {
			c.sets = map[Kind]*docSet{}
			c.mu.Lock()
			c.typeRows, c.slabbed = nil, nil
			c.mu.Unlock()
		}
		c.seenID = dbid
	}
	model := c.emb.Model()
	// A set loaded without vectors (the embedder had given none: its
	// server was down) is loaded again once the embedder knows their size.
	if ds := c.sets[kind]; ds != nil && ds.gen == gen && ds.model == model && !(ds.dim == 0 && len(ds.rows) > 0 && c.emb.Dim() != 0) {
		return ds, nil
	}
	ds, err := c.loadDocSet(ctx, kind, model)
	if err != nil {
		return nil, err
	}
	c.sets[kind] = ds
	return ds, nil
}

// SearchReady reports whether kind's documents are loaded for ranking at
// the cache's current generation, so that a search would not have to
// load them first.
func (c *Cache) SearchReady(ctx context.Context, kind Kind) bool {
	gen, err := strconv.ParseInt(cmp.Or(c.meta(ctx, c.db, "gen:"+strconv.Itoa(int(kind))), "0"), 10, 64)
	if err != nil {
		return false
	}
	c.docsMu.Lock()
	defer c.docsMu.Unlock()
	ds := c.sets[kind]
	return ds != nil && ds.gen == gen && ds.model == c.emb.Model()
}

// Prepare builds (or brings up to date) kind's docSet files, and the
// vector index of a large set (ann.go), now rather than at the next
// search.
func (c *Cache) Prepare(ctx context.Context, kind Kind) error {
	ds, err := c.docs(ctx, kind)
	if err == nil {
		c.colsFor(ds)
	}
	return err
}

// loadDocSet reads the files, replays the change log since them, and
// writes what changed back, all within one read transaction so that the
// generation, the log and the rows agree.
func (c *Cache) loadDocSet(ctx context.Context, kind Kind, model string) (*docSet, error) {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer conn.Close()
	// A deferred transaction: a read snapshot that does not take the
	// write lock (the connection string makes BeginTx immediate).
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	var st dsState
	st.kind, st.model, st.dim = kind, model, c.emb.Dim()
	k := strconv.Itoa(int(kind))
	for key, dst := range map[string]*int64{"gen:" + k: &st.gen, "logfrom:" + k: &st.logFrom} {
		if v := c.meta(ctx, conn, key); v != "" {
			if *dst, err = strconv.ParseInt(v, 10, 64); err != nil {
				return nil, fmt.Errorf("cache: %s: %w", key, err)
			}
		}
	}
	st.dbID = c.meta(ctx, conn, "dbid")

	// A file newer than the database (a restored older database) or
	// older than the change log reaches back cannot be brought up to date.
	base := c.mappedBase(kind, &st)
	reused := base != nil
	// drop releases a base this load mapped and will not use; one that
	// an earlier docSet also uses is left to its last user.
	drop := func() {
		if base != nil && !reused {
			base.unmap()
		}
	}
	if !reused {
		base, err = readBase(c.docSetPath(kind, "base"), &st)
	}
	if errors.Is(err, errDamaged) && c.OnDamage != nil {
		c.OnDamage(fmt.Sprintf("contextfs: cache vectors of %s rebuilt (%s: %v)", kind, filepath.Base(c.docSetPath(kind, "base")), err))
	}
	if err != nil || base.gen < st.logFrom || base.gen > st.gen {
		drop()
		return c.rebuildDocSet(ctx, conn, &st)
	}
	d := readDelta(c.docSetPath(kind, "delta"), &st, base)
	if d.gen > st.gen || d.gen < base.gen {
		d = &deltaFile{gen: base.gen}
	}
	if d.gen < st.logFrom {
		drop()
		return c.rebuildDocSet(ctx, conn, &st)
	}
	if d.gen != st.gen {
		if err := c.replay(ctx, conn, &st, base, d); err != nil {
			drop()
			return nil, err
		}
		if len(d.removed)+len(d.added.rows) > compactAt(len(base.seg.rows)) {
			ds, err := st.assemble(base, d)
			if err != nil {
				return nil, err
			}
			if ds.common, err = commonTerms(ctx, conn, kind, len(ds.rows)); err != nil {
				return nil, err
			}
			// Written for the next process under a new ID; this one keeps
			// the old base's layout, and its ID with it.
			var id [16]byte
			if _, err := rand.Read(id[:]); err == nil {
				_ = c.writeBase(st.dbID, id, ds)
			}
			return ds, nil
		}
		// A delta that cannot be written only costs the next process the
		// replay again.
		_ = c.writeDelta(&st, base.id, d)
	}
	ds, err := st.assemble(base, d)
	if err != nil {
		return nil, err
	}
	// The base's common terms hold while the delta is small; see
	// commonTerms.
	if 16*(len(d.removed)+len(d.added.rows)) <= len(base.seg.rows) {
		ds.common = base.common
	}
	return ds, nil
}

// commonTerms returns the stems that more than 57% of kind's n current
// documents contain. The vocabulary counts every row of the index, old
// versions included, so a stem qualifies only if its count minus the old
// versions still exceeds that. The margin keeps the list true while the
// docSet's delta stays under n/16 changes: however those changes fall, a
// listed stem is then in more than half of the current documents, where
// BM25's idf is at most 0, and a query can leave it out.
func commonTerms(ctx context.Context, q querier, kind Kind, n int) (map[string]bool, error) {
	fts := FTSTable(kind)
	var total int64
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM `+fts+`_docsize`).Scan(&total); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	old := max(total-int64(n), 0)
	min := old + int64(0.57*float64(n))
	out := map[string]bool{}
	if n < 64 || min >= total {
		return out, nil
	}
	// A full scan of the vocabulary: it runs when a base file is written.
	rs, err := q.QueryContext(ctx, `SELECT term FROM `+fts+`_vocab WHERE doc > ?`, min)
	if err != nil {
		return nil, fmt.Errorf("cache: common terms: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var t string
		if err := rs.Scan(&t); err != nil {
			return nil, fmt.Errorf("cache: common terms: %w", err)
		}
		out[t] = true
	}
	return out, rs.Err()
}

// dsState is what loading a docSet needs to know about the cache.
type dsState struct {
	kind    Kind
	model   string
	dim     int
	gen     int64
	logFrom int64
	dbID    string
}

// baseFile is a mapped base file. A long-lived process maps it once and
// shares it between the docSets of every generation it serves, so the
// pages a search touched stay mapped; it is unmapped once no docSet uses
// it (or at once by a loader that found it stale).
type baseFile struct {
	id     [16]byte
	fileID string // the file's identity when it was mapped; "" if unknown
	dbID   [16]byte
	model  string
	dim    int
	gen    int64
	seg    segment
	common map[string]bool
	unmap  func() // idempotent
}

// deltaFile is the delta as read, or as brought up to date.
type deltaFile struct {
	gen     int64
	removed []int64 // sorted base rows no longer current
	added   segment
}

// File layouts. All integers little-endian; sections aligned to 8 bytes so
// that a mapped file can be used in place.
//
//	base:  magic, dbid [16], id [16], gen i64, dim u32, n u32, len(terms) u32,
//	       len(model) u32, model (padded), terms (NUL-separated common stems,
//	       padded), rows [n]i64, lens [n]u32 (padded), vecs [n*dim]f32
//	delta: magic, dbid [16], base id [16], gen i64, dim u32, removed u32, added u32,
//	       len(model) u32, model (padded), removed [r]i64, rows [a]i64, lens [a]u32
//	       (padded), vecs [a*dim]f32
//
// Both end with a trailer: the CRC-32C (Castagnoli) of every byte before
// it, u32, and 4 bytes of padding. Damage inside the vectors changes no
// structure, so without it a flipped bit would change semantic results
// silently; CRC-32C runs at several GB/s, so it is checked on every load.
const (
	baseMagic  = "CFSDOCB2"
	deltaMagic = "CFSDOCD2"
)

var (
	errStaleFile = errors.New("stale or foreign file")
	errDamaged   = errors.New("checksum mismatch")
)

// castagnoli is the CRC-32C table, made on first use: making it at package
// initialisation cost every process, also those that never load vectors.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// verifiedSuffix names the note beside a base file that its checksum was
// verified, holding the identity of the file verified (mapFileID).
const verifiedSuffix = ".verified"

// checkTrailerOnce verifies b's trailer unless the note at notePath says
// the same file (same device, inode, size, modification and status-change
// times) was verified before. Reading the whole file costs a cold process
// as much as the rest of a search (10 MB at 10K memories, from memory not
// yet in the CPU's caches); the identity changes with any write to the
// file or any replacement of it, so what the check is for (a torn or
// partial write, a file from elsewhere, damage done through the file
// system) is still caught. Damage that bypasses the file system after the
// first verification is not: SQLite does not checksum its pages either.
// The note is written without fsync: a lost note costs one verification.
func checkTrailerOnce(b []byte, notePath, id string) ([]byte, error) {
	if id != "" && len(b) >= trailerLen {
		if note, err := os.ReadFile(notePath); err == nil && string(note) == id {
			return b[:len(b)-trailerLen], nil
		}
	}
	body, err := checkTrailer(b)
	if err == nil && id != "" {
		_ = os.WriteFile(notePath, []byte(id), 0o600) // best effort: see above
	}
	return body, err
}

// trailerLen is the size of the checksum trailer.
const trailerLen = 8

// checkTrailer verifies b's trailer and returns b without it.
func checkTrailer(b []byte) ([]byte, error) {
	if len(b) < trailerLen {
		return nil, errStaleFile
	}
	body := b[:len(b)-trailerLen]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(b[len(body):]) {
		return nil, errDamaged
	}
	return body, nil
}

// crcWriter passes writes on and checksums them.
type crcWriter struct {
	w   io.Writer
	crc uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli(), p)
	return c.w.Write(p)
}

// trailer returns the trailer for what was written.
func (c *crcWriter) trailer() []byte {
	return binary.LittleEndian.AppendUint32(make([]byte, 0, trailerLen), c.crc)[:trailerLen:trailerLen]
}

func dbIDBytes(s string) (b [16]byte) {
	copy(b[:], s)
	return b
}

func pad8(n int) int { return (n + 7) &^ 7 }

// header is the part the two layouts share, after the magic: dbid, an ID
// (the base's own, or the base a delta applies to), gen, dim and three
// counts, then the model.
type header struct {
	dbID  [16]byte
	id    [16]byte
	gen   int64
	dim   uint32
	n     [3]uint32
	model string
}

func (h *header) encode(magic string) []byte {
	b := make([]byte, 0, 64+pad8(len(h.model)))
	b = append(b, magic...)
	b = append(b, h.dbID[:]...)
	b = append(b, h.id[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.gen))
	b = binary.LittleEndian.AppendUint32(b, h.dim)
	for _, n := range h.n {
		b = binary.LittleEndian.AppendUint32(b, n)
	}
	b = append(b, h.model...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// decodeHeader parses a header, the model's length being the last count;
// it returns the offset of the first section.
func decodeHeader(b []byte, magic string) (h header, off int, err error) {
	if len(b) < 64 || string(b[:8]) != magic {
		return h, 0, errStaleFile
	}
	copy(h.dbID[:], b[8:24])
	copy(h.id[:], b[24:40])
	h.gen = int64(binary.LittleEndian.Uint64(b[40:]))
	h.dim = binary.LittleEndian.Uint32(b[48:])
	for i := range h.n {
		h.n[i] = binary.LittleEndian.Uint32(b[52+4*i:])
	}
	lm := int(h.n[2])
	if len(b) < 64+lm {
		return h, 0, errStaleFile
	}
	h.model = string(b[64 : 64+lm])
	return h, pad8(64 + lm), nil
}

// sections cuts b at off into n int64 rows, n uint32 lengths and n*dim
// float32s, checking that b ends exactly there.
func sections(b []byte, off, n, dim int) (rows []int64, lens []uint32, vecs []float32, end int, ok bool) {
	end = off + 8*n + pad8(4*n) + 4*n*dim
	if end > len(b) || n == 0 {
		return nil, nil, nil, off, n == 0 && off <= len(b)
	}
	rows = unsafe.Slice((*int64)(unsafe.Pointer(&b[off])), n)
	lens = unsafe.Slice((*uint32)(unsafe.Pointer(&b[off+8*n])), n)
	if dim > 0 {
		vecs = unsafe.Slice((*float32)(unsafe.Pointer(&b[off+8*n+pad8(4*n)])), n*dim)
	}
	return rows, lens, vecs, end, true
}

// readBase maps the base file; an error means it must be rebuilt.
// mappedBase returns the base file kind's current docSet maps when the
// file is still the one it mapped and fits st; nil otherwise. c.docsMu is
// held.
func (c *Cache) mappedBase(kind Kind, st *dsState) *baseFile {
	prev := c.sets[kind]
	if prev == nil || prev.file == nil {
		return nil
	}
	b := prev.file
	if b.fileID == "" || b.fileID != fileID(c.docSetPath(kind, "base")) || b.dbID != dbIDBytes(st.dbID) || b.model != st.model ||
		len(b.seg.rows) > 0 && st.dim != 0 && b.dim != st.dim {
		return nil
	}
	if b.dim != 0 {
		st.dim = b.dim
	}
	return b
}

func readBase(path string, st *dsState) (*baseFile, error) {
	if !littleEndian() {
		return nil, errStaleFile // the layouts are used in place
	}
	b, unmap, id, err := mapFileID(path)
	if err != nil {
		return nil, err
	}
	unmap = sync.OnceFunc(unmap)
	if len(b) >= 8 && string(b[:8]) != baseMagic {
		unmap()
		return nil, errStaleFile
	}
	if b, err = checkTrailerOnce(b, path+verifiedSuffix, id); err != nil {
		unmap()
		return nil, err
	}
	h, off, err := decodeHeader(b, baseMagic)
	if err == nil && (h.dbID != dbIDBytes(st.dbID) || h.model != st.model || h.n[2] != uint32(len(h.model))) {
		err = errStaleFile
	}
	if err == nil && h.n[0] > 0 && st.dim != 0 && int(h.dim) != st.dim {
		// Written while the embedder gave no vectors (dimension 0: the
		// server was down), or by a model that changed its dimension.
		err = errStaleFile
	}
	var bf *baseFile
	if lt := int(h.n[1]); err == nil && off+pad8(lt) > len(b) {
		err = errStaleFile
	}
	if err == nil {
		common := map[string]bool{}
		for _, t := range strings.Split(string(b[off:off+int(h.n[1])]), "\x00") {
			if t != "" {
				common[t] = true
			}
		}
		off += pad8(int(h.n[1]))
		rows, lens, vecs, end, ok := sections(b, off, int(h.n[0]), int(h.dim))
		if !ok || end != len(b) || !slices.IsSorted(rows) {
			err = errStaleFile
		} else {
			bf = &baseFile{id: h.id, fileID: id, dbID: h.dbID, model: h.model, dim: int(h.dim), gen: h.gen,
				seg: segment{rows: rows, lens: lens, vecs: vecs}, common: common, unmap: unmap}
			// The mapping lives as long as the file's docSets: their
			// slices point into it.
			runtime.AddCleanup(bf, func(unmap func()) { unmap() }, unmap)
			if h.dim != 0 {
				st.dim = int(h.dim)
			}
		}
	}
	if err != nil {
		unmap()
		return nil, err
	}
	return bf, nil
}

// readDelta reads the delta of base; a missing or foreign delta is the
// empty delta at the base's generation.
func readDelta(path string, st *dsState, base *baseFile) *deltaFile {
	empty := &deltaFile{gen: base.gen}
	b, err := os.ReadFile(path)
	if err != nil {
		return empty
	}
	if b, err = checkTrailer(b); err != nil {
		return empty // the base is replayed forward from the log instead
	}
	h, off, err := decodeHeader(b, deltaMagic)
	if err != nil || h.dbID != dbIDBytes(st.dbID) || h.id != base.id || h.model != st.model ||
		(h.dim != 0 && int(h.dim) != st.dim) || h.n[2] != uint32(len(h.model)) {
		return empty
	}
	// The removed list and the added rows' section; the header's counts
	// are removed, added, len(model).
	nr, na := int(h.n[0]), int(h.n[1])
	if off+8*nr > len(b) || off%8 != 0 {
		return empty
	}
	d := &deltaFile{gen: h.gen}
	if nr > 0 {
		d.removed = slices.Clone(unsafe.Slice((*int64)(unsafe.Pointer(&b[off])), nr))
	}
	rows, lens, vecs, end, ok := sections(b, off+8*nr, na, st.dim)
	if !ok || end != len(b) || !slices.IsSorted(d.removed) || !slices.IsSorted(rows) {
		return empty
	}
	// b is the heap buffer ReadFile returned: aliasing it is safe.
	d.added = segment{rows: rows, lens: lens, vecs: vecs}
	return d
}

// replay applies the change log after d's generation to d.
func (c *Cache) replay(ctx context.Context, q querier, st *dsState, base *baseFile, d *deltaFile) error {
	rs, err := q.QueryContext(ctx, `SELECT row, live FROM doclog WHERE kind=? AND gen > ? AND gen <= ? ORDER BY gen, rowid`,
		int(st.kind), d.gen, st.gen)
	if err != nil {
		return fmt.Errorf("cache: change log: %w", err)
	}
	last := map[int64]bool{}
	for rs.Next() {
		var row int64
		var live bool
		if err := rs.Scan(&row, &live); err != nil {
			rs.Close()
			return fmt.Errorf("cache: change log: %w", err)
		}
		last[row] = live
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return fmt.Errorf("cache: change log: %w", err)
	}
	removed := map[int64]bool{}
	for _, r := range d.removed {
		removed[r] = true
	}
	added := map[int64]int{} // row -> index in d.added
	for i, r := range d.added.rows {
		added[r] = i
	}
	var need []int64
	for row, live := range last {
		_, inBase := slices.BinarySearch(base.seg.rows, row)
		_, inAdded := added[row]
		switch {
		case live && inBase:
			delete(removed, row)
		case live && !inAdded:
			need = append(need, row)
		case !live && inBase:
			removed[row] = true
		case !live && inAdded:
			delete(added, row)
		}
	}
	fresh, err := c.fetchDocs(ctx, q, st, need)
	if err != nil {
		return err
	}
	// The new added segment: kept rows of the old one plus the fresh ones.
	// Usually every old row is kept (a change adds rows): then the old
	// segment is merged as it is, not copied first.
	seg := d.added
	if len(added) < len(d.added.rows) {
		keep := make([]int, 0, len(added))
		for _, i := range added {
			keep = append(keep, i)
		}
		slices.Sort(keep)
		seg = segment{}
		for _, i := range keep {
			seg.rows = append(seg.rows, d.added.rows[i])
			seg.lens = append(seg.lens, d.added.lens[i])
			seg.vecs = append(seg.vecs, d.added.vecs[i*st.dim:(i+1)*st.dim]...)
		}
	}
	d.added = mergeSegments(seg, fresh, st.dim)
	d.removed = d.removed[:0]
	for r := range removed {
		d.removed = append(d.removed, r)
	}
	slices.Sort(d.removed)
	d.gen = st.gen
	return nil
}

// mergeSegments merges two segments with disjoint sorted rows.
func mergeSegments(a, b segment, dim int) segment {
	if len(b.rows) == 0 {
		return a
	}
	if len(a.rows) == 0 {
		return b
	}
	out := segment{
		rows: make([]int64, 0, len(a.rows)+len(b.rows)),
		lens: make([]uint32, 0, len(a.rows)+len(b.rows)),
		vecs: make([]float32, 0, (len(a.rows)+len(b.rows))*dim),
	}
	i, j := 0, 0
	for i < len(a.rows) || j < len(b.rows) {
		s, k := &a, i
		if i == len(a.rows) || (j < len(b.rows) && b.rows[j] < a.rows[i]) {
			s, k = &b, j
			j++
		} else {
			i++
		}
		out.rows = append(out.rows, s.rows[k])
		out.lens = append(out.lens, s.lens[k])
		out.vecs = append(out.vecs, s.vecs[k*dim:(k+1)*dim]...)
	}
	return out
}

// fetchDocs reads the lengths and vectors of rows (those still in the
// cache) from the tables.
func (c *Cache) fetchDocs(ctx context.Context, q querier, st *dsState, rows []int64) (segment, error) {
	var seg segment
	slices.Sort(rows)
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), 500)]
		rows = rows[len(chunk):]
		ids := make([]string, len(chunk))
		for i, r := range chunk {
			ids[i] = strconv.FormatInt(r, 10)
		}
		part, err := c.queryDocs(ctx, q, st, `d.rowid IN (`+strings.Join(ids, ",")+`)`)
		if err != nil {
			return seg, err
		}
		seg = mergeSegments(seg, part, st.dim)
	}
	return seg, nil
}

// queryDocs reads rows of st.kind matching cond (over docs d), with their
// lengths from the full-text index and their vectors under st.model, in
// rowid order.
func (c *Cache) queryDocs(ctx context.Context, q querier, st *dsState, cond string) (segment, error) {
	rs, err := q.QueryContext(ctx, `SELECT d.rowid, s.sz, v.vec FROM docs d
		LEFT JOIN `+FTSTable(st.kind)+`_docsize s ON s.id=d.rowid
		LEFT JOIN vectors v ON v.model=? AND v.hash=d.vhash
		WHERE d.kind=? AND `+cond+` ORDER BY d.rowid`, st.model, int(st.kind))
	if err != nil {
		return segment{}, fmt.Errorf("cache: load documents: %w", err)
	}
	defer rs.Close()
	var seg segment
	for rs.Next() {
		var row int64
		var sz, vec []byte
		if err := rs.Scan(&row, &sz, &vec); err != nil {
			return segment{}, fmt.Errorf("cache: load documents: %w", err)
		}
		if st.dim == 0 && len(vec) > 0 {
			st.dim = len(vec) / 4
		}
		seg.rows = append(seg.rows, row)
		seg.lens = append(seg.lens, docLength(sz))
		n := len(seg.vecs)
		seg.vecs = append(seg.vecs, make([]float32, st.dim)...)
		// A vector of another shape, or none, stays zero: it matches nothing.
		if v := seg.vecs[n:]; len(vec) == 4*st.dim {
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(vec[4*i:]))
			}
			if !normalize(v) {
				clear(v)
			}
		}
	}
	return seg, rs.Err()
}

// docLength sums a docsize record: one varint per column, the number of
// tokens FTS5 indexed in it.
func docLength(sz []byte) uint32 {
	var total uint64
	for len(sz) > 0 {
		v, n := sqliteVarint(sz)
		total += v
		sz = sz[n:]
	}
	return uint32(min(total, math.MaxUint32))
}

// sqliteVarint decodes SQLite's varint (big-endian groups of 7 bits, the
// ninth byte whole), which FTS5 uses in its records.
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}

// rebuildDocSet builds kind's docSet from the tables and writes a new base:
// through the files (rebuildStreaming), or, where they cannot be written,
// in memory.
func (c *Cache) rebuildDocSet(ctx context.Context, q querier, st *dsState) (*docSet, error) {
	if ds, err := c.rebuildStreaming(ctx, q, st); !errors.Is(err, errNoStream) {
		return ds, err
	}
	seg, err := c.queryDocs(ctx, q, st, `EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)`)
	if err != nil {
		return nil, err
	}
	ds := &docSet{kind: st.kind, gen: st.gen, model: st.model, dim: st.dim, base: seg}
	if _, err := rand.Read(ds.baseID[:]); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := ds.finish(); err != nil {
		return nil, err
	}
	if ds.common, err = commonTerms(ctx, q, st.kind, len(ds.rows)); err != nil {
		return nil, err
	}
	// A base that cannot be written only costs the next process a rebuild.
	_ = c.writeBase(st.dbID, ds.baseID, ds)
	return ds, nil
}

// assemble makes the docSet of a base and its (current) delta.
func (st *dsState) assemble(base *baseFile, d *deltaFile) (*docSet, error) {
	ds := &docSet{kind: st.kind, gen: st.gen, model: st.model, dim: st.dim, baseID: base.id, base: base.seg, file: base, added: d.added}
	if len(d.removed) > 0 {
		ds.base.dead = make([]bool, len(base.seg.rows))
		for _, r := range d.removed {
			if i, ok := slices.BinarySearch(base.seg.rows, r); ok && !ds.base.dead[i] {
				ds.base.dead[i] = true
				ds.dead++
			}
		}
	}
	return ds, ds.finish()
}

// finish computes the merged current rows and lengths and registers them
// for ranking.
func (ds *docSet) finish() error {
	n := len(ds.base.rows) + len(ds.added.rows)
	ds.rows = make([]int64, 0, n)
	ds.lens = make([]uint32, 0, n)
	var total float64
	i, j := 0, 0
	for i < len(ds.base.rows) || j < len(ds.added.rows) {
		if i < len(ds.base.rows) && (j == len(ds.added.rows) || ds.base.rows[i] < ds.added.rows[j]) {
			if ds.base.dead == nil || !ds.base.dead[i] {
				ds.rows = append(ds.rows, ds.base.rows[i])
				ds.lens = append(ds.lens, ds.base.lens[i])
			}
			i++
			continue
		}
		ds.rows = append(ds.rows, ds.added.rows[j])
		ds.lens = append(ds.lens, ds.added.lens[j])
		j++
	}
	for _, l := range ds.lens {
		total += float64(l)
	}
	if len(ds.rows) > 0 {
		ds.avgdl = total / float64(len(ds.rows))
	}
	r, err := newRankDocs(ds.rows, ds.lens, ds.avgdl)
	if err != nil {
		return err
	}
	ds.rank = r
	return nil
}

// writeBase writes ds's current documents as the base with ID id (and no
// delta). The ID names the layout (which row is at which position), which
// a delta applies to.
func (c *Cache) writeBase(dbID string, id [16]byte, ds *docSet) error {
	terms := slices.Sorted(maps.Keys(ds.common))
	blob := []byte(strings.Join(terms, "\x00"))
	h := header{dbID: dbIDBytes(dbID), id: id, gen: ds.gen, dim: uint32(ds.dim), model: ds.model}
	h.n = [3]uint32{uint32(len(ds.rows)), uint32(len(blob)), uint32(len(ds.model))}
	err := gitstore.WriteAtomic(c.docSetPath(ds.kind, "base"), 0o600, func(w io.Writer) error {
		fw := bufio.NewWriterSize(w, 1<<20)
		bw := &crcWriter{w: fw}
		bw.Write(h.encode(baseMagic))
		bw.Write(padded(blob))
		bw.Write(bytesOf(ds.rows))
		bw.Write(padded(bytesOf(ds.lens)))
		for _, r := range ds.rows {
			v := ds.vector(r)
			if v == nil {
				v = make([]float32, ds.dim)
			}
			bw.Write(bytesOf(v))
		}
		fw.Write(bw.trailer())
		return fw.Flush()
	})
	if err != nil {
		return err
	}
	// The new base has no delta; remove the old one so nobody pairs them
	// (it names the old base's ID, so it would be ignored anyway).
	os.Remove(c.docSetPath(ds.kind, "delta"))
	return nil
}

// writeDelta writes d as the delta of the base with ID baseID. It is
// written without fsync (WriteAtomicVolatile): its checksum is verified on
// every read, and a delta that fails, or is missing, is the empty delta,
// from which the change log in the database brings the set up to date.
// A power loss therefore costs one replay, never a wrong result.
func (c *Cache) writeDelta(st *dsState, baseID [16]byte, d *deltaFile) error {
	h := header{dbID: dbIDBytes(st.dbID), id: baseID, gen: d.gen, dim: uint32(st.dim), model: st.model}
	h.n = [3]uint32{uint32(len(d.removed)), uint32(len(d.added.rows)), uint32(len(st.model))}
	return gitstore.WriteAtomicVolatile(c.docSetPath(st.kind, "delta"), 0o600, func(w io.Writer) error {
		fw := bufio.NewWriter(w)
		bw := &crcWriter{w: fw}
		bw.Write(h.encode(deltaMagic))
		bw.Write(bytesOf(d.removed))
		bw.Write(bytesOf(d.added.rows))
		bw.Write(padded(bytesOf(d.added.lens)))
		bw.Write(bytesOf(d.added.vecs))
		fw.Write(bw.trailer())
		return fw.Flush()
	})
}

// bytesOf views a slice of fixed-size numbers as its little-endian bytes
// (the files are only written and read in place on little-endian machines).
func bytesOf[T int64 | uint32 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

func padded(b []byte) []byte {
	if len(b)%8 == 0 {
		return b
	}
	return append(slices.Clip(b), make([]byte, 8-len(b)%8)...)
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// logChanges records, at kind's new generation, whether the documents of
// each blob in oids are now current (a path of kind holds the blob), and
// the rows in dead as gone. It bumps the generation. When log is false
// (a first index: no docSet can predate it) it only marks the log as
// starting at the new generation.
func logChanges(ctx context.Context, tx *sql.Tx, kind Kind, oids map[string]bool, dead []int64, log bool) error {
	gen, err := bumpGen(ctx, tx, kind)
	if err != nil {
		return err
	}
	k := strconv.Itoa(int(kind))
	if !log {
		if _, err := tx.ExecContext(ctx, `DELETE FROM doclog WHERE kind=?`, int(kind)); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		return setMeta(ctx, tx, "logfrom:"+k, strconv.FormatInt(gen, 10))
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO doclog(gen, kind, row, live) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer ins.Close()
	for _, r := range dead {
		if _, err := ins.ExecContext(ctx, gen, int(kind), r, false); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	for oid := range oids {
		var live bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM paths WHERE oid=? AND kind=?)`, oid, int(kind)).Scan(&live); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO doclog(gen, kind, row, live) SELECT ?, ?, rowid, ? FROM docs WHERE src=? AND kind=?`,
			gen, int(kind), live, oid, int(kind)); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	if old := gen - logKeep; old > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM doclog WHERE kind=? AND gen <= ?`, int(kind), old); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value
			WHERE CAST(value AS INTEGER) < CAST(excluded.value AS INTEGER)`, "logfrom:"+k, strconv.FormatInt(old, 10)); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	return nil
}
