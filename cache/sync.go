package cache

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/memory"
)

// FileEntry is a file as stat saw it; see gitstore.Entry.
type FileEntry = gitstore.Entry

// Doc is one document to index, derived from a file or a commit.
type Doc struct {
	MID        string // memory ID, chunk name or commit SHA
	Type       string
	Title      string
	Tags       []string
	Body       string // the text searched by keyword
	Summary    string
	Created    time.Time
	Updated    time.Time
	Author     string
	Status     string // a memory's data.status (superseded memories are hidden)
	Symbol     string
	Lang       string
	StartLine  int
	EndLine    int
	Supersedes []string
	// Attrs are searchable attributes kept beside the document (Filter.Attrs
	// and Cache.AttrValues read them).
	Attrs []Attr
	// vhash is textHash(embedText(d)) when already computed (by a sync's
	// worker, so that its writer need not).
	vhash string
}

// Attr is one attribute of a document, such as ("path", "auth/**").
type Attr struct {
	Key, Value string
}

// Analysis is what an Analyzer makes of one file's content.
type Analysis struct {
	Docs []Doc
	// Err says why the file could not be indexed, with Line where the
	// problem is; such a file is remembered so it is not read again until
	// it changes.
	Err  string
	Line int
	// Note is a non-fatal remark, such as why a source file was skipped.
	Note string
}

// Analyzer derives documents from a file's content. It must be a pure
// function of path and content: its result is cached under the content's
// blob OID.
type Analyzer func(path string, content []byte) Analysis

// SyncStats counts what a sync did.
type SyncStats struct {
	Files    int // files in the set
	Stale    int // files new or with new content
	Analyzed int // files parsed (content never seen before)
	Removed  int // files gone from the set
	Embedded int // vectors computed
}

// Changed reports whether the current set of documents changed.
func (s SyncStats) Changed() bool { return s.Stale > 0 || s.Removed > 0 }

type pathRow struct {
	size, mtime int64
	ino         uint64
	oid         string
}

// racyWindow: a file modified this close to the sync that recorded it may
// change again without its mtime changing, so it is hashed again next time
// (git calls such entries "racily clean").
const racyWindow = 3 * time.Second

// SyncOptions tune SyncFilesWith.
type SyncOptions struct {
	// Workers analyse (and read) files in parallel; 1 when zero.
	Workers int
	// NewAnalyzer makes one Analyzer per worker, with a function to release
	// it, for analyzers that hold state (parsers) and are not safe for
	// concurrent use.
	NewAnalyzer func() (Analyzer, func())
	// Progress, when set, is called as files are analysed.
	Progress func(done, total int)
	// Only restricts the sync to these paths (plus removals among them);
	// nil means all of entries is the whole set. Only what the cache knows
	// of these paths is read, so a sync of the few files a change watcher
	// reports costs nothing like a full one.
	Only map[string]bool
	// Reported says Only holds paths a change watcher saw written: each is
	// read again whatever its stat says, since an edit can keep a file's
	// size and modification time (rsync -t, cp -p, tar) and a stat
	// comparison would take it for unchanged.
	Reported bool
	// MaxFileBytes, when positive, bounds the files read: a larger one is
	// neither read nor indexed (it stays stale, so it is indexed once it
	// shrinks) and is passed to TooLarge, so one huge file cannot cost
	// every search its size in memory.
	MaxFileBytes int64
	TooLarge     func(path string, size int64)
	// Recheck, when set, returns those of the given paths (which the
	// cache knows and entries lacks) that are there now, as stat sees
	// them: entries may have been listed before another process wrote
	// and indexed a file. A path it returns is not removed.
	Recheck func(paths []string) []FileEntry
	// Key, when set, is the key a file's analysis is stored and shared
	// under, from its path and blob OID (the default key is the OID). An
	// analyzer whose output depends on the path as well as the content
	// (test files, documentation, the words of the path) keys by both, so
	// that the same bytes at two paths are analysed once per path. A key
	// must begin with the OID and a colon.
	Key func(path, oid string) string

	// writing, when set (by tests), is called with true as the writer
	// starts a batch, holding its processor slot, and false as it ends.
	writing func(bool)
}

// keyOID is the blob OID a stored key begins with (see SyncOptions.Key).
func keyOID(key string) string {
	oid, _, _ := strings.Cut(key, ":")
	return oid
}

// SyncFiles brings the cache's view of one kind of file up to date with
// entries, the files as they are now under root. Only files whose stat
// changed are read; only content never seen before is analysed and
// embedded. It is cheap when nothing changed: a read of the paths table.
func (c *Cache) SyncFiles(ctx context.Context, kind Kind, root string, entries []FileEntry, analyze Analyzer) (SyncStats, error) {
	return c.SyncFilesWith(ctx, kind, root, entries, SyncOptions{NewAnalyzer: func() (Analyzer, func()) { return analyze, func() {} }})
}

type change struct {
	e   FileEntry
	oid string
}

// SyncFilesWith is SyncFiles with parallel analysis and progress.
//
// It runs in four steps: the stat fast path (nothing changed since the
// last clean sync), diffStat (which files to read, which are gone), a
// pipeline that analyses the stale files in batches while the previous
// batch is written (syncRun.write), and syncRun.finish, which removes the
// files gone and records whether the next sync may take the fast path.
//
// It first runs Guard: a database changed since this program last left
// it is checked in full, and damage is returned as an error IsCorrupt
// reports, so that the caller rebuilds. A sync that finds the database
// replaced under it (Replace, by a reindex in another process) starts
// over, up to syncAttempts times: what it read of the old content must
// not be written into the new.
func (c *Cache) SyncFilesWith(ctx context.Context, kind Kind, root string, entries []FileEntry, o SyncOptions) (SyncStats, error) {
	if err := c.Guard(ctx); err != nil {
		return SyncStats{Files: len(entries)}, err
	}
	defer c.noteOwnWrite(c.identity())
	for attempt := 1; ; attempt++ {
		st, err := c.syncFilesOnce(ctx, kind, root, entries, o)
		if !errors.Is(err, errReplacedNow) {
			return st, err
		}
		if attempt == syncAttempts {
			return st, fmt.Errorf("cache: %w (%d times); run the command again", ErrReplaced, attempt)
		}
	}
}

// syncAttempts bounds the times a sync starts over after a Replace.
const syncAttempts = 8

// errReplacedNow says the database ID changed since the sync read it.
var errReplacedNow = errors.New("cache replaced during the sync")

// checkID returns errReplacedNow unless the database ID, read through q
// (a sync's transaction), is still id.
func (c *Cache) checkID(ctx context.Context, q querier, id string) error {
	if now := c.meta(ctx, q, "dbid"); now != id {
		return errReplacedNow
	}
	return nil
}

func (c *Cache) syncFilesOnce(ctx context.Context, kind Kind, root string, entries []FileEntry, o SyncOptions) (SyncStats, error) {
	st := SyncStats{Files: len(entries)}
	// Everything this sync writes is checked against the ID read now,
	// before anything else is read.
	dbid := c.ID(ctx)
	start := time.Now()
	// Fast path: the stat of every file is exactly what the last clean sync
	// recorded, so nothing can have changed and the paths table need not be
	// read. One hash over the stat list replaces thousands of row reads.
	// The size limit is part of what the last sync saw: a new one changes
	// which files are indexed though no file changed.
	sum := statSum(entries) + "/" + strconv.FormatInt(o.MaxFileBytes, 10)
	statKey := "stat:" + strconv.Itoa(int(kind))
	if o.Only == nil && c.meta(ctx, c.db, statKey) == sum {
		return st, nil
	}
	var known map[string]pathRow
	// Changes to the current set are logged for the docSet files, except
	// on a first index, which no docSet can predate.
	var logging bool
	if err := c.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM paths WHERE kind=?)`, int(kind)).Scan(&logging); err != nil {
		return st, fmt.Errorf("cache: %w", err)
	}
	var err error
	switch {
	case o.Only != nil:
		known, err = c.pathsFor(ctx, kind, o.Only)
	case logging:
		// Sized for the files as they are: the recorded paths are
		// mostly the same ones, and growing a map of thousands of
		// entries step by step cost a tenth of an index run that found
		// little to do. Not on a first index (a reindex builds into an
		// empty cache): an empty map of a million slots held 100 MB
		// through the whole run.
		known = make(map[string]pathRow, len(entries))
		err = c.readPaths(ctx, known, `SELECT path, size, mtime, ino, oid FROM paths WHERE kind=?`, int(kind))
	default:
		known = map[string]pathRow{}
	}
	if err != nil {
		return st, err
	}
	stale, removed := diffStat(entries, known, o.Only, o.Reported, o.MaxFileBytes)
	// A file listed as absent may have been created after the listing and
	// indexed by another process before known was read: removing it would
	// drop a memory that exists until the next sync.
	rescued := false
	if o.Recheck != nil && len(removed) > 0 {
		removed, stale, rescued = recheck(removed, stale, known, o)
	}
	if len(stale) == 0 && len(removed) == 0 {
		if o.Only == nil && !rescued {
			// Only into the database known was read from: a replaced
			// one may lack files this sum says it has.
			_, _ = c.db.ExecContext(ctx, `INSERT INTO meta(key, value) SELECT ?, ? WHERE (SELECT value FROM meta WHERE key='dbid') = ?
				ON CONFLICT(key) DO UPDATE SET value=excluded.value`, statKey, sum, dbid)
		}
		return st, nil
	}
	// A first index of this kind (nothing known, no content stored) need
	// not ask the cache, file by file, whether it has each content.
	lookup := true
	if len(known) == 0 && o.Only == nil {
		if err := c.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM blobs WHERE kind=?)`, int(kind)).Scan(&lookup); err != nil {
			return st, fmt.Errorf("cache: %w", err)
		}
	}
	run := &syncRun{c: c, kind: kind, dbid: dbid, known: known, logging: logging, racy: start.Add(-racyWindow).UnixNano(),
		clean: o.Only == nil, lookup: lookup, st: st}
	if err := run.analyzeAndWrite(ctx, root, stale, o); err != nil {
		return run.st, err
	}
	if !run.clean || rescued {
		sum = "" // the listing is not what the cache now holds
	}
	err = run.finish(ctx, append(removed, run.dropped...), statKey, sum)
	return run.st, err
}

// diffStat compares the files as they are (entries) with what the cache
// recorded of them (known): stale are the files new or whose stat
// changed, removed the known paths no longer among entries (within only,
// when only is not nil). A recorded mtime of 0 means the file was racily
// clean when recorded, so it is stale whatever its stat; with reported,
// every entry is (see SyncOptions.Reported). A file indexed and now over
// maxBytes (when positive: the limit was lowered) is stale too, to be
// dropped.
//
// It allocates nothing that grows with the files when it need not: when
// every entry is stale (a first index, a reindex) stale is entries itself
// (capped, so an append copies), and when entries are sorted by path (as
// listings are) the removed paths are found by counting and binary
// search, not by a set of every path, which held 40 MB at a million.
func diffStat(entries []FileEntry, known map[string]pathRow, only map[string]bool, reported bool, maxBytes int64) (stale []FileEntry, removed []string) {
	sorted := true
	hits := 0
	all := true // entries[:i] are all stale, and stale is not built yet
	for i, e := range entries {
		if i > 0 && entries[i-1].Path >= e.Path {
			sorted = false
		}
		r, ok := known[e.Path]
		if ok {
			hits++
		}
		if ok && !reported && r.size == e.Size && r.mtime == e.Changed && r.ino == e.Ino && r.mtime != 0 &&
			(maxBytes <= 0 || e.Size <= maxBytes) {
			if all {
				all = false
				stale = append(make([]FileEntry, 0, i), entries[:i]...)
			}
			continue
		}
		if !all {
			stale = append(stale, e)
		}
	}
	if all {
		stale = entries[:len(entries):len(entries)]
	}
	switch {
	case len(known) == 0, sorted && hits == len(known):
		// Every recorded path is among entries (sorted: no path twice).
	case sorted:
		for p := range known {
			if only != nil && !only[p] {
				continue
			}
			if _, found := slices.BinarySearchFunc(entries, p, func(e FileEntry, p string) int { return strings.Compare(e.Path, p) }); !found {
				removed = append(removed, p)
			}
		}
	default:
		seen := make(map[string]bool, len(entries))
		for _, e := range entries {
			seen[e.Path] = true
		}
		for p := range known {
			if !seen[p] && (only == nil || only[p]) {
				removed = append(removed, p)
			}
		}
	}
	slices.Sort(removed)
	return stale, removed
}

// recheck asks o.Recheck which of the removed paths are there after all,
// and returns the paths still removed and the stale files with those
// found whose stat is not the recorded one; rescued says some were found.
func recheck(removed []string, stale []FileEntry, known map[string]pathRow, o SyncOptions) ([]string, []FileEntry, bool) {
	back := o.Recheck(removed)
	if len(back) == 0 {
		return removed, stale, false
	}
	there := map[string]bool{}
	more, _ := diffStat(back, known, nil, o.Reported, o.MaxFileBytes)
	for _, e := range back {
		there[e.Path] = true
	}
	var kept []string
	for _, p := range removed {
		if !there[p] {
			kept = append(kept, p)
		}
	}
	return kept, append(stale, more...), true
}

// syncRun is one SyncFilesWith past its fast path: what it compares
// against and what it has done so far.
type syncRun struct {
	c       *Cache
	kind    Kind
	dbid    string             // the database ID when the sync began
	known   map[string]pathRow // what the cache recorded of the paths synced
	logging bool               // log changes of the current set for the docSet files
	racy    int64              // mtimes from this one on are racily clean
	// clean stays true while every file's recorded stat can be trusted
	// next time; only then is the stat sum recorded for the fast path.
	clean bool
	// lookup is false when the cache holds no content of this kind.
	lookup bool
	// dropped are indexed files now over the size limit, removed from
	// the index by finish as if gone: a rebuild would not index them.
	dropped []string
	st      SyncStats
}

// analyzedBatch is up to syncBatch stale files (or syncBatchBytes of
// them), analysed and ready to be written in one transaction, in the
// order of the stale list.
type analyzedBatch struct {
	changes []change
	// tooLarge are the files over the size limit, not read.
	tooLarge []string
	stale    int
	bytes    int64 // of the new documents' titles and bodies
	blobs    []newBlob
	vecs     map[string][]float32
}

// newBlob is the analysis of content the cache has not stored yet.
type newBlob struct {
	oid string
	a   Analysis
}

// analyzeAndWrite analyses the stale files and writes them, in a pipeline:
// workers read, parse and embed files in parallel (one analyser each, so
// parsers are never shared), their results are put back in the order of
// stale and grouped in batches, and one writer, on one connection, stores
// each batch in its own transaction while the workers go on with the
// next. Parsing and SQLite's inserts overlap, memory stays bounded (a
// window of files in flight and a couple of batches), an interrupted index
// keeps what it finished, and the rows are written in the same order
// whatever the number of workers.
//
// The writer is the pipeline's one serial stage, so it must never wait
// for a processor: the workers and the writer share one slot per worker
// (cpuSlots), which the writer takes for each batch, so that it runs with
// one processor to itself while the other workers go on. Without the
// slots every busy thread got an equal share; the writer, with a third of
// the processors on two cores, fell behind, and the last second of a full
// index was the writer alone draining its backlog.
func (r *syncRun) analyzeAndWrite(ctx context.Context, root string, stale []FileEntry, o SyncOptions) error {
	w, err := r.c.newSyncWriter(ctx, r.kind)
	if err != nil {
		return err
	}
	defer w.close()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan analyzedBatch, 1)
	var prodErr error
	analyzed := make(chan analyzedFile, 64)
	cpu := cpuSlots(o.Workers)
	go r.c.analyzeStream(pctx, root, stale, max(o.Workers, 1), o, r.lookup, cpu, analyzed)
	go func() {
		defer close(batches)
		prodErr = batchAnalyzed(pctx, cancel, analyzed, batches)
	}()
	var writeErr error
	for b := range batches {
		if writeErr == nil {
			cpu <- struct{}{}
			if o.writing != nil {
				o.writing(true)
			}
			writeErr = r.write(ctx, w, b)
			if o.writing != nil {
				o.writing(false)
			}
			<-cpu
			if writeErr != nil {
				cancel()
			}
		}
	}
	return cmp.Or(writeErr, prodErr, ctx.Err())
}

// cpuSlots returns the slots the workers and the writer of a sync take
// while they compute: one per worker, and at least two, so that a single
// worker still overlaps with the writer. A channel's blocked senders are
// served in order, so the writer waits for at most one file's analysis
// before it runs.
func cpuSlots(workers int) chan struct{} {
	return make(chan struct{}, max(workers, 2))
}

// batchAnalyzed groups the analysed files, which arrive in the order of
// the stale list, into batches of syncBatch files or syncBatchBytes bytes
// of new documents' text. The batches are sized by what the writer
// stores, not by the files read: a run of skipped or generated files
// (large, with no documents) must not make a batch the writer finishes at
// once, leaving it idle while the workers catch up. The first batches are
// smaller (firstBatchBytes, doubling), so the writer starts early. Content
// met twice in one run is stored once, with the first file that has it.
// On the first analysis error it cancels the pipeline, drains the rest
// and returns the error.
func batchAnalyzed(ctx context.Context, cancel func(), analyzed <-chan analyzedFile, batches chan<- analyzedBatch) error {
	var b analyzedBatch
	var err error
	var sent sentSet
	limit := int64(firstBatchBytes)
	flush := func() bool {
		select {
		case batches <- b:
		case <-ctx.Done():
			return false
		}
		b = analyzedBatch{}
		limit = min(2*limit, syncBatchBytes)
		return true
	}
	for a := range analyzed {
		if a.err != nil {
			err = a.err
			cancel()
			continue // drain
		}
		if err != nil {
			continue
		}
		b.stale++
		if a.tooLarge {
			b.tooLarge = append(b.tooLarge, a.change.e.Path)
		}
		if a.change.oid != "" {
			b.changes = append(b.changes, a.change)
		}
		if a.analysis != nil && sent.add(a.change.oid) {
			if b.vecs == nil {
				b.vecs = map[string][]float32{}
			}
			b.blobs = append(b.blobs, newBlob{a.change.oid, *a.analysis})
			maps.Copy(b.vecs, a.vecs)
			for _, d := range a.analysis.Docs {
				b.bytes += int64(len(d.Title) + len(d.Body))
			}
		}
		if (b.stale == syncBatch || b.bytes >= limit) && !flush() {
			continue
		}
	}
	if err == nil && b.stale > 0 {
		flush()
	}
	return err
}

// sentSet is the content a sync has sent to be stored, by key: one entry
// per new blob of the run, a million on a reindex of a million files. A
// plain blob OID (40 or 64 hex digits) is kept as its bytes, a third of
// what the hex string and its map slot cost (70 MB at a million); other
// keys (SyncOptions.Key) as they are.
type sentSet struct {
	sha1   map[[20]byte]struct{}
	sha256 map[[32]byte]struct{}
	other  map[string]struct{}
}

// add records key and reports whether it was new.
func (s *sentSet) add(key string) bool {
	switch {
	case len(key) == 40:
		var b [20]byte
		if _, err := hex.Decode(b[:], []byte(key)); err == nil {
			return addNew(&s.sha1, b)
		}
	case len(key) == 64:
		var b [32]byte
		if _, err := hex.Decode(b[:], []byte(key)); err == nil {
			return addNew(&s.sha256, b)
		}
	}
	return addNew(&s.other, key)
}

func addNew[K comparable](m *map[K]struct{}, k K) bool {
	if *m == nil {
		*m = map[K]struct{}{}
	}
	if _, ok := (*m)[k]; ok {
		return false
	}
	(*m)[k] = struct{}{}
	return true
}

// syncWriter is the one connection a sync writes through, with a page
// cache larger than SQLite's default of 2 MB (a batch's transaction
// touches more pages than that, and would spill and read them again),
// restored when the sync ends since the connection goes back to the pool.
type syncWriter struct {
	conn      *sql.Conn
	kind      Kind
	cacheSize int64 // the connection's own setting, put back by close
	hashSet   bool  // the full-text table's hash size has been checked
}

// writerCacheKiB is the writer's page cache during a sync.
const writerCacheKiB = 8 << 10

// ftsHashSize is the size FTS5 lets its in-memory index of pending
// changes reach before writing it out as a new segment (FTS5's default is
// 1 MB): larger, an index of tens of megabytes writes far fewer segments,
// which FTS5 then has to merge.
const ftsHashSize = 16 << 20

func (c *Cache) newSyncWriter(ctx context.Context, kind Kind) (*syncWriter, error) {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	w := &syncWriter{conn: conn, kind: kind}
	if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&w.cacheSize); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cache: %w", err)
	}
	// Statement journals in memory: deleting a replaced blob's documents
	// runs a trigger, so SQLite keeps a statement journal of the pages it
	// changes, which past 64 KB spills to a temporary file (when inserts
	// ran a trigger too, a full index wrote half as many bytes there as
	// to the database and its WAL).
	if _, err := conn.ExecContext(ctx, `PRAGMA temp_store=MEMORY`); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cache: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA cache_size=-`+strconv.Itoa(writerCacheKiB)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cache: %w", err)
	}
	return w, nil
}

func (w *syncWriter) close() {
	_, _ = w.conn.ExecContext(context.Background(), `PRAGMA cache_size=`+strconv.FormatInt(w.cacheSize, 10))
	w.conn.Close()
}

// setHashSize sets the full-text table's hash size (ftsHashSize) once per
// sync, in its first transaction, if it is not set already. The setting is
// kept in the table's configuration.
func (w *syncWriter) setHashSize(ctx context.Context, tx *sql.Tx) error {
	if w.hashSet {
		return nil
	}
	w.hashSet = true
	fts := "fts_" + strconv.Itoa(int(w.kind))
	var v int64
	err := tx.QueryRowContext(ctx, `SELECT v FROM `+fts+`_config WHERE k='hashsize'`).Scan(&v)
	if err == nil && v == ftsHashSize {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("cache: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+fts+`(`+fts+`, rank) VALUES ('hashsize', ?)`, ftsHashSize); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// write stores one batch in its own transaction: new content, vectors,
// and the paths' stat and blob.
func (r *syncRun) write(ctx context.Context, w *syncWriter, b analyzedBatch) error {
	// Statements run under a context that cannot be cancelled: go-sqlite3
	// runs each statement of a cancellable one on a goroutine of its own,
	// a thread hand-off per row that cost a full index a fifth of its CPU.
	// Cancellation is checked once, before the commit.
	cancel := ctx
	ctx = context.WithoutCancel(ctx)
	tx, err := w.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	// Checkpoint the WAL every 64 MB instead of every 4 MB while
	// indexing: each checkpoint is an fsync, and a full index writes
	// about twice its source size.
	if _, err := tx.ExecContext(ctx, `PRAGMA wal_autocheckpoint=16384`); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := r.c.checkID(ctx, tx, r.dbid); err != nil {
		return err
	}
	if err := w.setHashSize(ctx, tx); err != nil {
		return err
	}
	dead, err := insertBlobs(ctx, tx, r.kind, b.blobs)
	if err != nil {
		return err
	}
	if err := r.c.insertVectors(ctx, tx, b.vecs); err != nil {
		return err
	}
	if len(b.changes) != b.stale {
		r.clean = false // a file vanished while we read, or is too large
	}
	for _, p := range b.tooLarge {
		if _, ok := r.known[p]; ok {
			r.dropped = append(r.dropped, p) // indexed when it was smaller, or the limit larger
		}
	}
	// New content is logged whatever its path did: its documents are
	// new rows (logChanges asks the paths whether they are current).
	touched := map[string]bool{}
	for _, nb := range b.blobs {
		touched[nb.oid] = true
	}
	path, err := tx.PrepareContext(ctx, `INSERT INTO paths(path, kind, size, mtime, ino, oid) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(kind, path) DO UPDATE SET size=excluded.size, mtime=excluded.mtime, ino=excluded.ino, oid=excluded.oid`)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer path.Close()
	for _, ch := range b.changes {
		mt := ch.e.Changed
		if mt >= r.racy {
			mt = 0
			r.clean = false // must be hashed again next time
		}
		if k, ok := r.known[ch.e.Path]; !ok || k.oid != ch.oid {
			touched[ch.oid] = true
			if ok {
				touched[k.oid] = true
			}
			r.st.Stale++
		}
		if _, err := path.ExecContext(ctx, ch.e.Path, int(r.kind), ch.e.Size, mt, int64(ch.e.Ino), ch.oid); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	if len(touched) > 0 || len(dead) > 0 {
		if err := logChanges(ctx, tx, r.kind, touched, dead, r.logging); err != nil {
			return err
		}
	}
	if err := cancel.Err(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	r.st.Analyzed += len(b.blobs)
	r.st.Embedded += len(b.vecs)
	return nil
}

// finish removes the paths gone and records sum under statKey: the stat
// sum when every file's stat is now trustworthy, or "" so that the next
// sync compares file by file.
func (r *syncRun) finish(ctx context.Context, removed []string, statKey, sum string) error {
	tx, err := r.c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	if err := r.c.checkID(ctx, tx, r.dbid); err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, p := range removed {
		if _, err := tx.ExecContext(ctx, `DELETE FROM paths WHERE kind=? AND path=?`, int(r.kind), p); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		gone[r.known[p].oid] = true
	}
	r.st.Removed = len(removed)
	if len(removed) > 0 {
		if err := logChanges(ctx, tx, r.kind, gone, nil, r.logging); err != nil {
			return err
		}
	}
	if err := setMeta(ctx, tx, statKey, sum); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// syncBatch and syncBatchBytes bound the changed files analysed and
// stored per transaction: in number, and in bytes of new documents' text.
// Fewer, larger transactions write each page of the tables and of the
// full-text index fewer times; bounded ones keep memory small and an
// interrupted index keeps what it finished. firstBatchBytes bounds the
// first batch of a run, so the writer starts while the workers go on.
const (
	syncBatch       = 4096
	syncBatchBytes  = 4 << 20
	firstBatchBytes = 256 << 10
)

// statSum hashes a stat list (path, size, mtime, inode of every file).
// It runs at every sync, over every file of the kind (100,000 at a
// large repository's code index), so the entries are packed into a
// buffer hashed in large writes with SHA-256, which the CPU accelerates:
// FNV-128a byte by byte, one interface call per field, was a third of a
// warm search's CPU at 100K tracked files.
func statSum(entries []FileEntry) string {
	h := sha256.New()
	buf := make([]byte, 0, 64<<10)
	for _, e := range entries {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(e.Path)))
		buf = append(buf, e.Path...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.Size))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.Changed))
		buf = binary.LittleEndian.AppendUint64(buf, e.Ino)
		if len(buf) >= 60<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)) + ":" + strconv.Itoa(len(entries))
}

// analyzedFile is one stale file after analysis: its change (empty oid if
// it vanished) and the analysis of its content if never seen before.
type analyzedFile struct {
	change   change
	analysis *Analysis
	vecs     map[string][]float32
	err      error
	// tooLarge is a file over SyncOptions.MaxFileBytes: not read, and
	// dropped from the index if it was in it (change.e is set).
	tooLarge bool
}

// analyzeStream reads and hashes the stale files and analyses content
// never seen before, with workers in parallel, and sends the files to out
// in the order of stale (out is closed at the end, once every worker has
// stopped). At most a window of files is in flight ahead of the next one
// to send, so a slow file holds back memory, not the order. With lookup
// false the cache is known to hold no content of this kind (a first
// index), and is not asked. A worker holds a slot of cpu (see cpuSlots)
// while it analyses a file.
func (c *Cache) analyzeStream(ctx context.Context, root string, stale []FileEntry, workers int, o SyncOptions, lookup bool, cpu chan struct{}, out chan<- analyzedFile) {
	defer close(out)
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	type job struct {
		e   FileEntry
		res chan<- analyzedFile
	}
	jobs := make(chan job)
	// order holds each file's result slot in the order of stale; its
	// capacity is the window.
	order := make(chan chan analyzedFile, 4*workers+16)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			analyze, release := o.NewAnalyzer()
			defer release()
			for j := range jobs {
				var res analyzedFile
				if ctx.Err() == nil {
					cpu <- struct{}{}
					res = c.analyzeFile(ctx, root, j.e, analyze, o, lookup)
					<-cpu
				}
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(stale))
					mu.Unlock()
				}
				j.res <- res // buffered: never blocks
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for _, e := range stale {
			res := make(chan analyzedFile, 1)
			select {
			case order <- res:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{e, res}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for res := range order {
		select {
		case a := <-res:
			select {
			case out <- a:
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}
	wg.Wait()
}

// readEntry reads the file at path, at most limit bytes when limit is
// positive (a longer file is a *memory.TooLargeError), whole otherwise.
func readEntry(path string, limit int64) ([]byte, error) {
	if limit > 0 {
		return gitstore.ReadFileLimited(path, limit)
	}
	return os.ReadFile(path)
}

// analyzeFile reads one stale file, hashes it and, if the cache does not
// have its content (or lookup is false), analyses and embeds it.
func (c *Cache) analyzeFile(ctx context.Context, root string, e FileEntry, analyze Analyzer, o SyncOptions, lookup bool) analyzedFile {
	var res analyzedFile
	if o.MaxFileBytes > 0 && e.Size > o.MaxFileBytes {
		if o.TooLarge != nil {
			o.TooLarge(e.Path, e.Size)
		}
		res.change.e, res.tooLarge = e, true
		return res
	}
	raw, err := readEntry(filepath.Join(root, filepath.FromSlash(e.Path)), o.MaxFileBytes)
	if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
		// It grew past the limit after the stat: as if the stat had seen it.
		if o.TooLarge != nil {
			o.TooLarge(e.Path, tl.Size)
		}
		res.change.e, res.tooLarge = e, true
		return res
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return res // vanished while we looked: not a change, not an error
	case err != nil:
		res.err = fmt.Errorf("read %s: %w", e.Path, err)
		return res
	}
	oid := gitstore.BlobOID(raw)
	if o.Key != nil {
		oid = o.Key(e.Path, oid)
	}
	res.change = change{e: e, oid: oid}
	if lookup {
		has, err := c.hasBlob(ctx, oid)
		if err != nil || has {
			res.err = err
			return res
		}
	}
	a := analyze(e.Path, raw)
	// The text hashes and the vectors are computed here, in the parallel
	// workers, so that the one writer only writes.
	for i := range a.Docs {
		a.Docs[i].vhash = textHash(embedText(a.Docs[i]))
	}
	res.analysis = &a
	res.vecs, _, res.err = c.embedMissing(ctx, []newBlob{{oid, a}}, 1)
	return res
}

func (c *Cache) insertVectors(ctx context.Context, tx *sql.Tx, vecs map[string][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO vectors(model, hash, vec, sum) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer stmt.Close()
	model := c.emb.Model()
	for h, v := range vecs {
		b := encodeVec(v)
		if _, err := stmt.ExecContext(ctx, model, h, b, vecSum(model, h, b)); err != nil {
			return fmt.Errorf("cache: store vector: %w", err)
		}
	}
	return nil
}

// SetCommits replaces the set of current commits with docs, one per
// commit keyed by its SHA (Doc.MID). Commits already analysed are not
// embedded again.
func (c *Cache) SetCommits(ctx context.Context, docs []Doc) (SyncStats, error) {
	if err := c.Guard(ctx); err != nil {
		return SyncStats{Files: len(docs)}, err
	}
	defer c.noteOwnWrite(c.identity())
	return c.setCommits(ctx, docs)
}

func (c *Cache) setCommits(ctx context.Context, docs []Doc) (SyncStats, error) {
	st := SyncStats{Files: len(docs)}
	known, err := c.paths(ctx, KindCommit)
	if err != nil {
		return st, err
	}
	var newBlobs []newBlob
	seen := map[string]bool{}
	for _, d := range docs {
		seen[d.MID] = true
		if _, ok := known[d.MID]; ok {
			continue
		}
		if has, err := c.hasBlob(ctx, d.MID); err != nil {
			return st, err
		} else if !has {
			newBlobs = append(newBlobs, newBlob{d.MID, Analysis{Docs: []Doc{d}}})
			st.Analyzed++
		}
	}
	var removed []string
	for p := range known {
		if !seen[p] {
			removed = append(removed, p)
		}
	}
	if len(newBlobs) == 0 && len(removed) == 0 && len(known) == len(seen) {
		return st, nil
	}
	vecs, n, err := c.embedMissing(ctx, newBlobs, 2)
	if err != nil {
		return st, err
	}
	st.Embedded = n
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	dead, err := insertBlobs(ctx, tx, KindCommit, newBlobs)
	if err != nil {
		return st, err
	}
	if err := c.insertVectors(ctx, tx, vecs); err != nil {
		return st, err
	}
	for _, d := range docs {
		if _, ok := known[d.MID]; ok {
			continue
		}
		st.Stale++
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO paths(path, kind, oid) VALUES (?, ?, ?)`, d.MID, int(KindCommit), d.MID); err != nil {
			return st, fmt.Errorf("cache: %w", err)
		}
	}
	touched := map[string]bool{}
	for _, d := range docs {
		if _, ok := known[d.MID]; !ok {
			touched[d.MID] = true
		}
	}
	for _, p := range removed {
		if _, err := tx.ExecContext(ctx, `DELETE FROM paths WHERE kind=? AND path=?`, int(KindCommit), p); err != nil {
			return st, fmt.Errorf("cache: %w", err)
		}
		touched[p] = true
	}
	st.Removed = len(removed)
	if err := logChanges(ctx, tx, KindCommit, touched, dead, len(known) > 0); err != nil {
		return st, err
	}
	return st, tx.Commit()
}

func (c *Cache) paths(ctx context.Context, kind Kind) (map[string]pathRow, error) {
	out := map[string]pathRow{}
	return out, c.readPaths(ctx, out, `SELECT path, size, mtime, ino, oid FROM paths WHERE kind=?`, int(kind))
}

// pathsFor is paths restricted to the given paths.
func (c *Cache) pathsFor(ctx context.Context, kind Kind, only map[string]bool) (map[string]pathRow, error) {
	out := map[string]pathRow{}
	batch := make([]any, 0, 501)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		q := `SELECT path, size, mtime, ino, oid FROM paths WHERE kind=? AND path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(batch)), ",") + `)`
		err := c.readPaths(ctx, out, q, append([]any{int(kind)}, batch...)...)
		batch = batch[:0]
		return err
	}
	for p := range only {
		if batch = append(batch, p); len(batch) == 500 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	return out, flush()
}

// KnownUnder returns the paths of kind the cache has under the folder
// prefix (with its trailing slash): a change watcher reports a folder
// removed or moved away as a whole.
func (c *Cache) KnownUnder(ctx context.Context, kind Kind, prefix string) ([]string, error) {
	// The primary key orders paths: "/" + 1 is "0".
	rows, err := c.db.QueryContext(ctx, `SELECT path FROM paths WHERE kind=? AND path >= ? AND path < ? ORDER BY path`,
		int(kind), prefix, strings.TrimSuffix(prefix, "/")+"0")
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (c *Cache) readPaths(ctx context.Context, out map[string]pathRow, q string, args ...any) error {
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var r pathRow
		var ino int64
		if err := rows.Scan(&p, &r.size, &r.mtime, &ino, &r.oid); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		r.ino = uint64(ino)
		out[p] = r
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

func (c *Cache) hasBlob(ctx context.Context, oid string) (bool, error) {
	var x int
	err := c.db.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE oid=?`, oid).Scan(&x)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cache: %w", err)
	}
	return true, nil
}

// KnownBlobs reports which of oids the cache has stored content for, of
// any kind (a commit's blob is keyed by its SHA).
func (c *Cache) KnownBlobs(ctx context.Context, oids []string) (map[string]bool, error) {
	return c.present(ctx, `SELECT oid FROM blobs WHERE oid IN `, nil, oids)
}

// present returns which of keys query finds: query selects one text
// column and ends with "IN ", and runs with the fixed arguments then up
// to 500 keys at a time, a few queries rather than one per key.
func (c *Cache) present(ctx context.Context, query string, fixed []any, keys []string) (map[string]bool, error) {
	found := map[string]bool{}
	for lo := 0; lo < len(keys); lo += 500 {
		batch := keys[lo:min(lo+500, len(keys))]
		args := append(make([]any, 0, len(fixed)+len(batch)), fixed...)
		for _, k := range batch {
			args = append(args, k)
		}
		rs, err := c.db.QueryContext(ctx, query+`(`+strings.TrimSuffix(strings.Repeat("?,", len(batch)), ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		for rs.Next() {
			var k string
			if err := rs.Scan(&k); err != nil {
				rs.Close()
				return nil, fmt.Errorf("cache: %w", err)
			}
			found[k] = true
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
	}
	return found, nil
}

// blobWriter inserts analysed blobs with statements prepared once per
// transaction: indexing a repository inserts tens of thousands of rows.
type blobWriter struct {
	newBlob, blob, delDocs, delSup, doc, fts, sup, delAttr, attr *sql.Stmt
}

// newBlobWriter prepares the statements that store blobs of kind.
func newBlobWriter(ctx context.Context, tx *sql.Tx, kind Kind) (*blobWriter, error) {
	fts := FTSTable(kind)
	w := &blobWriter{}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.newBlob, `INSERT OR IGNORE INTO blobs(oid, kind, error, line, note, docs) VALUES (?, ?, ?, ?, ?, ?)`},
		{&w.blob, `UPDATE blobs SET kind=?, error=?, line=?, note=?, docs=? WHERE oid=?`},
		{&w.delDocs, `DELETE FROM docs WHERE src=? RETURNING rowid`},
		{&w.delSup, `DELETE FROM supersedes WHERE src=?`},
		{&w.doc, `INSERT INTO docs(src, kind, mid, type, title, tags, body, summary, created, updated, author, status, symbol, lang, start_line, end_line, vhash, sum)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.fts, `INSERT INTO ` + fts + `(rowid, title, tags, body) VALUES (?, ?, ?, ?)`},
		{&w.sup, `INSERT INTO supersedes(src, target) VALUES (?, ?)`},
		{&w.delAttr, `DELETE FROM attrs WHERE src=?`},
		{&w.attr, `INSERT INTO attrs(src, key, value) VALUES (?, ?, ?)`},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("cache: %w", err)
		}
		*p.dst = st
	}
	return w, nil
}

func (w *blobWriter) close() {
	for _, st := range []*sql.Stmt{w.newBlob, w.blob, w.delDocs, w.delSup, w.doc, w.fts, w.sup, w.delAttr, w.attr} {
		if st != nil {
			st.Close()
		}
	}
}

// insert stores a blob's analysis, replacing documents stored for it
// before, whose rows it returns (they are gone from the current set).
func (w *blobWriter) insert(ctx context.Context, kind Kind, oid string, a Analysis) (dead []int64, err error) {
	res, err := w.newBlob.ExecContext(ctx, oid, int(kind), a.Err, a.Line, a.Note, len(a.Docs))
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	// Documents exist only for a stored blob: new content (the usual
	// case) has none to replace.
	if n, err := res.RowsAffected(); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	} else if n == 0 {
		if dead, err = w.replace(ctx, kind, oid, a); err != nil {
			return nil, err
		}
	}
	for _, d := range a.Docs {
		tags := joinTags(d.Tags)
		vhash := cmp.Or(d.vhash, textHash(embedText(d)))
		sum := docSum(oid, int64(kind), d.MID, d.Type, d.Title, tags, d.Body, d.Summary, unix(d.Created), unix(d.Updated),
			d.Author, d.Status, d.Symbol, d.Lang, int64(d.StartLine), int64(d.EndLine), vhash)
		res, err := w.doc.ExecContext(ctx, oid, int(kind), d.MID, d.Type, d.Title, tags, d.Body, d.Summary, unix(d.Created), unix(d.Updated),
			d.Author, d.Status, d.Symbol, d.Lang, d.StartLine, d.EndLine, vhash, sum)
		if err != nil {
			return nil, fmt.Errorf("cache: index %s: %w", d.MID, err)
		}
		row, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("cache: index %s: %w", d.MID, err)
		}
		if _, err := w.fts.ExecContext(ctx, row, d.Title, tags, d.Body); err != nil {
			return nil, fmt.Errorf("cache: index %s: %w", d.MID, err)
		}
		for _, t := range d.Supersedes {
			if _, err := w.sup.ExecContext(ctx, oid, t); err != nil {
				return nil, fmt.Errorf("cache: %w", err)
			}
		}
		for _, a := range d.Attrs {
			if _, err := w.attr.ExecContext(ctx, oid, a.Key, a.Value); err != nil {
				return nil, fmt.Errorf("cache: %w", err)
			}
		}
	}
	return dead, nil
}

// replace updates a stored blob's row and deletes its documents, whose
// rows it returns.
func (w *blobWriter) replace(ctx context.Context, kind Kind, oid string, a Analysis) (dead []int64, err error) {
	if _, err := w.blob.ExecContext(ctx, int(kind), a.Err, a.Line, a.Note, len(a.Docs), oid); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	rs, err := w.delDocs.QueryContext(ctx, oid)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	for rs.Next() {
		var r int64
		if err := rs.Scan(&r); err != nil {
			rs.Close()
			return nil, fmt.Errorf("cache: %w", err)
		}
		dead = append(dead, r)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if _, err := w.delSup.ExecContext(ctx, oid); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if _, err := w.delAttr.ExecContext(ctx, oid); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return dead, nil
}

// insertBlobs stores analysed blobs, in order, and returns the rows of
// documents they replaced.
func insertBlobs(ctx context.Context, tx *sql.Tx, kind Kind, blobs []newBlob) ([]int64, error) {
	if len(blobs) == 0 {
		return nil, nil
	}
	w, err := newBlobWriter(ctx, tx, kind)
	if err != nil {
		return nil, err
	}
	defer w.close()
	var dead []int64
	for _, b := range blobs {
		d, err := w.insert(ctx, kind, b.oid, b.a)
		if err != nil {
			return nil, err
		}
		dead = append(dead, d...)
	}
	return dead, nil
}

// embedMissing embeds the documents of blobs whose vector is not cached
// under the current model.
func (c *Cache) embedMissing(ctx context.Context, blobs []newBlob, workers int) (map[string][]float32, int, error) {
	want := map[string]string{}
	for _, b := range blobs {
		for _, d := range b.a.Docs {
			t := embedText(d)
			want[cmp.Or(d.vhash, textHash(t))] = t
		}
	}
	out, err := c.embedTexts(ctx, want, workers)
	return out, len(out), err
}

// embedTexts embeds, in batches, the texts (keyed by hash) that have no
// vector under the current model yet.
func (c *Cache) embedTexts(ctx context.Context, want map[string]string, workers int) (map[string][]float32, error) {
	if len(want) == 0 {
		return nil, nil
	}
	model := c.emb.Model()
	have, err := c.haveVectors(ctx, model, want)
	if err != nil {
		return nil, err
	}
	var hashes, texts []string
	for h, t := range want {
		if !have[h] {
			hashes = append(hashes, h)
			texts = append(texts, t)
		}
	}
	out := make(map[string][]float32, len(hashes))
	const batch = 256
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := min(i+batch, len(texts))
				vs, err := embed.EmbedLong(ctx, c.emb, texts[i:j], maxEmbedBytes)
				if err == nil && len(vs) != j-i {
					err = fmt.Errorf("got %d vectors for %d texts", len(vs), j-i)
				}
				mu.Lock()
				if err != nil {
					firstErr = cmp.Or(firstErr, fmt.Errorf("embed with %s: %w", model, err))
				} else {
					for k, v := range vs {
						out[hashes[i+k]] = v
					}
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < len(texts); i += batch {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// haveVectors returns which of the hashes (the keys of want) have a vector
// under model.
func (c *Cache) haveVectors(ctx context.Context, model string, want map[string]string) (map[string]bool, error) {
	return c.present(ctx, `SELECT hash FROM vectors WHERE model=? AND hash IN `, []any{model}, slices.Collect(maps.Keys(want)))
}

// maxEmbedBytes bounds each piece of text given to the embedder: models
// have context limits (all-MiniLM reads 256 tokens). A longer document is
// embedded in pieces and pooled (embed.EmbedLong), never cut.
const maxEmbedBytes = 2000

// embedText is what the embedder sees for d.
func embedText(d Doc) string {
	return embedInput(d.Title, joinTags(d.Tags), d.Summary, d.Body)
}

// embedInput is the text embedded for a document, a function of its stored
// columns (title, tags as stored, summary, body) so that EnsureModel can
// re-embed from the cache alone. Its hash keys the vector, so a long
// text's pooled vector is cached by its whole content.
func embedInput(title, tags, summary, body string) string {
	return strings.TrimSpace(title + "\n" + strings.TrimSpace(tags) + "\n" + summary + "\n" + body)
}

// textHash keys a vector by the text it was embedded from.
func textHash(t string) string {
	s := sha256.Sum256([]byte(t))
	return hex.EncodeToString(s[:12])
}

func joinTags(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return " " + strings.ToLower(strings.Join(tags, " ")) + " "
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// bumpGen increments kind's generation, which names the current set of
// documents (in-process caches and the docSet files are keyed by it), and
// returns the new value.
func bumpGen(ctx context.Context, tx *sql.Tx, kind Kind) (int64, error) {
	key := "gen:" + strconv.Itoa(int(kind))
	var v string
	err := tx.QueryRowContext(ctx, `INSERT INTO meta(key, value) VALUES (?, '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) RETURNING value`, key).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	return strconv.ParseInt(v, 10, 64)
}
