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
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
)

// rebuildStreaming is rebuildDocSet without holding the vectors: they go
// from the table to a scratch file as they are read, from there into the
// new base file, and the docSet maps that file as any later process
// would. Holding them cost a reindex at a million documents 1.25 GB of
// vectors, and twice that while the slice grew; now its memory is the
// rows and lengths (12 bytes a document). An error writing the files
// (a read-only cache) is errNoStream: rebuildDocSet then holds them.
func (c *Cache) rebuildStreaming(ctx context.Context, q querier, st *dsState) (*docSet, error) {
	if st.dim == 0 || c.readOnly {
		return nil, errNoStream
	}
	scratch, err := os.CreateTemp(c.dir, "docs-"+st.kind.String()+".vectors-*")
	if err != nil {
		return nil, errors.Join(errNoStream, err)
	}
	defer os.Remove(scratch.Name())
	defer scratch.Close()
	// Held while in use, so that another process's Open leaves it alone
	// (sweepScratch); a kill releases it for the next one to remove.
	if err := gitstore.HoldScratch(scratch); err != nil {
		return nil, errors.Join(errNoStream, err)
	}
	vw := bufio.NewWriterSize(scratch, 1<<20)
	rs, err := q.QueryContext(ctx, `SELECT d.rowid, s.sz, v.vec FROM docs d
		LEFT JOIN `+FTSTable(st.kind)+`_docsize s ON s.id=d.rowid
		LEFT JOIN vectors v ON v.model=? AND v.hash=d.vhash
		WHERE d.kind=? AND EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)`, st.model, int(st.kind))
	if err != nil {
		return nil, fmt.Errorf("cache: load documents: %w", err)
	}
	defer rs.Close()
	var rows []int64
	var lens []uint32
	v := make([]float32, st.dim)
	for rs.Next() {
		var row int64
		var sz, vec sql.RawBytes // not copied: read before the next row
		if err := rs.Scan(&row, &sz, &vec); err != nil {
			return nil, fmt.Errorf("cache: load documents: %w", err)
		}
		rows = append(rows, row)
		lens = append(lens, docLength(sz))
		clear(v)
		if len(vec) == 4*st.dim {
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(vec[4*i:]))
			}
			if !normalize(v) {
				clear(v)
			}
		}
		if _, err := vw.Write(bytesOf(v)); err != nil {
			return nil, errors.Join(errNoStream, err)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("cache: load documents: %w", err)
	}
	rs.Close()
	if err := vw.Flush(); err != nil {
		return nil, errors.Join(errNoStream, err)
	}
	common, err := commonTerms(ctx, q, st.kind, len(rows))
	if err != nil {
		return nil, err
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	// The rows came in the order of the kind's index, not by rowid: asking
	// SQLite for rowid order sorted every row with its vector in a
	// temporary B-tree (1.3 GB at a million documents, minutes) before the
	// first came out. They are put in order here, and the vectors copied
	// in that order from the scratch file.
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(rows[a], rows[b]) })
	sorted := make([]int64, len(rows))
	slens := make([]uint32, len(rows))
	for i, o := range order {
		sorted[i], slens[i] = rows[o], lens[o]
	}
	rows, lens = sorted, slens
	terms := slices.Sorted(maps.Keys(common))
	blob := []byte(strings.Join(terms, "\x00"))
	h := header{dbID: dbIDBytes(st.dbID), id: id, gen: st.gen, dim: uint32(st.dim), model: st.model}
	h.n = [3]uint32{uint32(len(rows)), uint32(len(blob)), uint32(len(st.model))}
	path := c.docSetPath(st.kind, "base")
	err = gitstore.WriteAtomic(path, 0o600, func(w io.Writer) error {
		fw := bufio.NewWriterSize(w, 1<<20)
		bw := &crcWriter{w: fw}
		bw.Write(h.encode(baseMagic))
		bw.Write(padded(blob))
		bw.Write(bytesOf(rows))
		bw.Write(padded(bytesOf(lens)))
		vb := make([]byte, 4*st.dim)
		for _, o := range order {
			if _, err := scratch.ReadAt(vb, int64(o)*int64(len(vb))); err != nil {
				return err
			}
			bw.Write(vb)
		}
		fw.Write(bw.trailer())
		return fw.Flush()
	})
	if err != nil {
		return nil, errors.Join(errNoStream, err)
	}
	// Checksummed as written: mapping it need not read it whole (1.25 GB
	// at a million documents, which would all become resident).
	if fid := fileID(path); fid != "" {
		_ = os.WriteFile(path+verifiedSuffix, []byte(fid), 0o600)
	}
	os.Remove(c.docSetPath(st.kind, "delta"))
	base, err := readBase(path, st)
	if err != nil {
		return nil, errors.Join(errNoStream, err)
	}
	if base.id != id {
		base.unmap()
		return nil, errors.Join(errNoStream, errStaleFile) // replaced meanwhile
	}
	ds, err := st.assemble(base, &deltaFile{gen: base.gen})
	if err != nil {
		return nil, err
	}
	ds.common = base.common
	return ds, nil
}

// errNoStream says that rebuildStreaming could not use the files.
var errNoStream = errors.New("cache: cannot stream the document set through its files")
