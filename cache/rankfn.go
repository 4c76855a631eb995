package cache

// FTS5's bm25() is exact but slow for a memory store of this shape: for
// every matching row it runs a SQL lookup of the row's length, and for every
// query it counts each phrase's matches to compute its inverse document
// frequency. At 100,000 memories a query whose words match 50,000 of them
// spent ~23 ms in bm25(), three quarters of it in those row-length lookups.
// cfs_rank (fts5rank.c) computes the same score with the lengths and
// frequencies supplied by the cache, from the set of current documents,
// which also makes the statistics independent of old versions still in
// the index. It registers through SQLite's auto-extension hook, so every
// connection the cache opens has it.

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lm
#include "fts5rank.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"unsafe"
)

// registerRankFunctions makes SQLite connections opened afterwards know
// cfs_rank and cfs_current. It runs once per process.
var registerRankFunctions = sync.OnceValue(func() error {
	if C.cfs_register() != 0 {
		return errors.New("cache: cannot register the ranking functions with SQLite (built without github.com/mattn/go-sqlite3's SQLite?)")
	}
	return nil
})

// rankDocs is a document set registered with cfs_rank: the sorted rowids
// of a kind's current documents with their lengths. The C side keeps its
// own copy, freed once rankDocs is unreachable and no query uses it.
type rankDocs struct {
	id int64
}

// newRankDocs registers rows (sorted) with their lengths.
func newRankDocs(rows []int64, lens []uint32, avgdl float64) (*rankDocs, error) {
	var rp *C.longlong
	var lp *C.uint
	if len(rows) > 0 {
		rp = (*C.longlong)(unsafe.Pointer(&rows[0]))
		lp = (*C.uint)(unsafe.Pointer(&lens[0]))
	}
	id := int64(C.cfs_docs_new(rp, lp, C.longlong(len(rows)), C.double(avgdl)))
	if id == 0 {
		return nil, errors.New("cache: out of memory registering documents for ranking")
	}
	r := &rankDocs{id: id}
	runtime.AddCleanup(r, func(id int64) { C.cfs_docs_release(C.longlong(id)) }, id)
	return r, nil
}

// lookup says how the C side finds a row's position in r: "index" (by
// its rowid index), "search", or "" before r's first query. For tests.
func (r *rankDocs) lookup() string {
	switch C.cfs_docs_indexed(C.longlong(r.id)) {
	case 1:
		return "index"
	case 2:
		return "search"
	}
	return ""
}
