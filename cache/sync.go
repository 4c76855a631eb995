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
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/gitstore"
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
	// MaxFileBytes, when positive, bounds the files read: a larger one is
	// neither read nor indexed (it stays stale, so it is indexed once it
	// shrinks) and is passed to TooLarge, so one huge file cannot cost
	// every search its size in memory.
	MaxFileBytes int64
	TooLarge     func(path string, size int64)
	// Key, when set, is the key a file's analysis is stored and shared
	// under, from its path and blob OID (the default key is the OID). An
	// analyzer whose output depends on the path as well as the content
	// (test files, documentation, the words of the path) keys by both, so
	// that the same bytes at two paths are analysed once per path. A key
	// must begin with the OID and a colon.
	Key func(path, oid string) string
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
func (c *Cache) SyncFilesWith(ctx context.Context, kind Kind, root string, entries []FileEntry, o SyncOptions) (SyncStats, error) {
	st := SyncStats{Files: len(entries)}
	start := time.Now()
	// Fast path: the stat of every file is exactly what the last clean sync
	// recorded, so nothing can have changed and the paths table need not be
	// read. One hash over the stat list replaces thousands of row reads.
	sum := statSum(entries)
	statKey := "stat:" + strconv.Itoa(int(kind))
	if o.Only == nil && c.meta(ctx, c.db, statKey) == sum {
		return st, nil
	}
	var known map[string]pathRow
	var err error
	if o.Only != nil {
		known, err = c.pathsFor(ctx, kind, o.Only)
	} else {
		known, err = c.paths(ctx, kind)
	}
	if err != nil {
		return st, err
	}
	// Changes to the current set are logged for the docSet files, except
	// on a first index, which no docSet can predate.
	logging := len(known) > 0
	if !logging && o.Only != nil {
		if err := c.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM paths WHERE kind=?)`, int(kind)).Scan(&logging); err != nil {
			return st, fmt.Errorf("cache: %w", err)
		}
	}
	stale, removed := diffStat(entries, known, o.Only)
	if len(stale) == 0 && len(removed) == 0 {
		if o.Only == nil {
			_ = setMeta(ctx, c.db, statKey, sum)
		}
		return st, nil
	}
	run := &syncRun{c: c, kind: kind, known: known, logging: logging, racy: start.Add(-racyWindow).UnixNano(),
		clean: o.Only == nil, st: st}
	if err := run.analyzeAndWrite(ctx, root, stale, o); err != nil {
		return run.st, err
	}
	if !run.clean {
		sum = ""
	}
	err = run.finish(ctx, removed, statKey, sum)
	return run.st, err
}

// diffStat compares the files as they are (entries) with what the cache
// recorded of them (known): stale are the files new or whose stat
// changed, removed the known paths no longer among entries (within only,
// when only is not nil). A recorded mtime of 0 means the file was racily
// clean when recorded, so it is stale whatever its stat.
func diffStat(entries []FileEntry, known map[string]pathRow, only map[string]bool) (stale []FileEntry, removed []string) {
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[e.Path] = true
		if r, ok := known[e.Path]; ok && r.size == e.Size && r.mtime == e.MTime && r.ino == e.Ino && r.mtime != 0 {
			continue
		}
		stale = append(stale, e)
	}
	for p := range known {
		if !seen[p] && (only == nil || only[p]) {
			removed = append(removed, p)
		}
	}
	slices.Sort(removed)
	return stale, removed
}

// syncRun is one SyncFilesWith past its fast path: what it compares
// against and what it has done so far.
type syncRun struct {
	c       *Cache
	kind    Kind
	known   map[string]pathRow // what the cache recorded of the paths synced
	logging bool               // log changes of the current set for the docSet files
	racy    int64              // mtimes from this one on are racily clean
	// clean stays true while every file's recorded stat can be trusted
	// next time; only then is the stat sum recorded for the fast path.
	clean bool
	st    SyncStats
}

// analyzedBatch is up to syncBatch stale files, analysed and ready to be
// written in one transaction.
type analyzedBatch struct {
	changes []change
	stale   int
	blobs   map[string]Analysis
	vecs    map[string][]float32
}

// analyzeAndWrite analyses the stale files and writes them, in a pipeline
// of batches: the analysers (parse, embed) work on the next batch while
// the writer stores the last one in its own transaction, so parsing and
// SQLite's inserts overlap, memory stays bounded by a couple of batches,
// and an interrupted index keeps what it finished.
func (r *syncRun) analyzeAndWrite(ctx context.Context, root string, stale []FileEntry, o SyncOptions) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan analyzedBatch, 1)
	var prodErr error
	analyzed := make(chan analyzedFile, 2*syncBatch)
	go r.c.analyzeStream(pctx, root, stale, max(o.Workers, 1), o, analyzed)
	go func() {
		defer close(batches)
		prodErr = batchAnalyzed(pctx, cancel, analyzed, batches)
	}()
	var writeErr error
	for b := range batches {
		if writeErr == nil {
			if writeErr = r.write(ctx, b); writeErr != nil {
				cancel()
			}
		}
	}
	return cmp.Or(writeErr, prodErr, ctx.Err())
}

// batchAnalyzed groups the analysed files into batches of syncBatch
// stale files. On the first analysis error it cancels the pipeline,
// drains the rest and returns the error.
func batchAnalyzed(ctx context.Context, cancel func(), analyzed <-chan analyzedFile, batches chan<- analyzedBatch) error {
	var b analyzedBatch
	var err error
	flush := func() bool {
		select {
		case batches <- b:
		case <-ctx.Done():
			return false
		}
		b = analyzedBatch{}
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
		if a.change.oid != "" {
			b.changes = append(b.changes, a.change)
		}
		if a.analysis != nil {
			if b.blobs == nil {
				b.blobs = map[string]Analysis{}
				b.vecs = map[string][]float32{}
			}
			b.blobs[a.change.oid] = *a.analysis
			maps.Copy(b.vecs, a.vecs)
		}
		if b.stale == syncBatch && !flush() {
			continue
		}
	}
	if err == nil && b.stale > 0 {
		flush()
	}
	return err
}

// write stores one batch in its own transaction: new content, vectors,
// and the paths' stat and blob.
func (r *syncRun) write(ctx context.Context, b analyzedBatch) error {
	tx, err := r.c.db.BeginTx(ctx, nil)
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
	dead, err := insertBlobs(ctx, tx, r.kind, b.blobs)
	if err != nil {
		return err
	}
	if err := r.c.insertVectors(ctx, tx, b.vecs); err != nil {
		return err
	}
	if len(b.changes) != b.stale {
		r.clean = false // a file vanished while we read
	}
	// New content is logged whatever its path did: its documents are
	// new rows (logChanges asks the paths whether they are current).
	touched := map[string]bool{}
	for oid := range b.blobs {
		touched[oid] = true
	}
	for _, ch := range b.changes {
		mt := ch.e.MTime
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
		if _, err := tx.ExecContext(ctx, `INSERT INTO paths(path, kind, size, mtime, ino, oid) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT(kind, path) DO UPDATE SET size=excluded.size, mtime=excluded.mtime, ino=excluded.ino, oid=excluded.oid`,
			ch.e.Path, int(r.kind), ch.e.Size, mt, int64(ch.e.Ino), ch.oid); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	if len(touched) > 0 || len(dead) > 0 {
		if err := logChanges(ctx, tx, r.kind, touched, dead, r.logging); err != nil {
			return err
		}
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

// syncBatch is the number of changed files analysed and stored per
// transaction.
const syncBatch = 256

// statSum hashes a stat list (path, size, mtime, inode of every file).
func statSum(entries []FileEntry) string {
	h := fnv.New128a()
	var buf [24]byte
	for _, e := range entries {
		h.Write([]byte(e.Path))
		binary.LittleEndian.PutUint64(buf[0:], uint64(e.Size))
		binary.LittleEndian.PutUint64(buf[8:], uint64(e.MTime))
		binary.LittleEndian.PutUint64(buf[16:], e.Ino)
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil)) + ":" + strconv.Itoa(len(entries))
}

// analyzedFile is one stale file after analysis: its change (empty oid if
// it vanished) and the analysis of its content if never seen before.
type analyzedFile struct {
	change   change
	analysis *Analysis
	vecs     map[string][]float32
	err      error
}

// analyzeStream reads and hashes the stale files and analyses content
// never seen before, with workers in parallel, sending each file as it is
// done (out is closed at the end). Content seen twice in one run is
// analysed once.
func (c *Cache) analyzeStream(ctx context.Context, root string, stale []FileEntry, workers int, o SyncOptions, out chan<- analyzedFile) {
	defer close(out)
	var (
		mu      sync.Mutex
		done    int
		claimed = map[string]bool{}
	)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			analyze, release := o.NewAnalyzer()
			defer release()
			for i := range next {
				e := stale[i]
				res := analyzedFile{}
				tooLarge := o.MaxFileBytes > 0 && e.Size > o.MaxFileBytes
				var raw []byte
				var err error
				if !tooLarge {
					raw, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(e.Path)))
				}
				switch {
				case tooLarge:
					if o.TooLarge != nil {
						o.TooLarge(e.Path, e.Size)
					}
				case errors.Is(err, fs.ErrNotExist):
					// Vanished while we looked: not a change, not an error.
				case err != nil:
					res.err = fmt.Errorf("read %s: %w", e.Path, err)
				default:
					oid := gitstore.BlobOID(raw)
					if o.Key != nil {
						oid = o.Key(e.Path, oid)
					}
					res.change = change{e: e, oid: oid}
					mu.Lock()
					mine := !claimed[oid]
					claimed[oid] = true
					mu.Unlock()
					if mine {
						has, err := c.hasBlob(ctx, oid)
						if err != nil {
							res.err = err
						} else if !has {
							a := analyze(e.Path, raw)
							res.analysis = &a
							// Embedding here, in the parallel workers, keeps
							// the batching goroutine free to feed the writer.
							res.vecs, _, res.err = c.embedMissing(ctx, map[string]Analysis{oid: a}, 1)
						}
					}
				}
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(stale))
					mu.Unlock()
				}
				select {
				case out <- res:
				case <-ctx.Done():
				}
			}
		}()
	}
	for i := range stale {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
}

func (c *Cache) insertVectors(ctx context.Context, tx *sql.Tx, vecs map[string][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO vectors(model, hash, vec) VALUES (?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer stmt.Close()
	model := c.emb.Model()
	for h, v := range vecs {
		if _, err := stmt.ExecContext(ctx, model, h, encodeVec(v)); err != nil {
			return fmt.Errorf("cache: store vector: %w", err)
		}
	}
	return nil
}

// SetCommits replaces the set of current commits with docs, one per
// commit keyed by its SHA (Doc.MID). Commits already analysed are not
// embedded again.
func (c *Cache) SetCommits(ctx context.Context, docs []Doc) (SyncStats, error) {
	st := SyncStats{Files: len(docs)}
	known, err := c.paths(ctx, KindCommit)
	if err != nil {
		return st, err
	}
	newBlobs := map[string]Analysis{}
	seen := map[string]bool{}
	for _, d := range docs {
		seen[d.MID] = true
		if _, ok := known[d.MID]; ok {
			continue
		}
		if has, err := c.hasBlob(ctx, d.MID); err != nil {
			return st, err
		} else if !has {
			newBlobs[d.MID] = Analysis{Docs: []Doc{d}}
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

// blobWriter inserts analysed blobs with statements prepared once per
// transaction: indexing a repository inserts tens of thousands of rows.
type blobWriter struct {
	blob, delDocs, delSup, doc, sup, delAttr, attr *sql.Stmt
}

func newBlobWriter(ctx context.Context, tx *sql.Tx) (*blobWriter, error) {
	w := &blobWriter{}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.blob, `INSERT OR REPLACE INTO blobs(oid, kind, error, line, note) VALUES (?, ?, ?, ?, ?)`},
		{&w.delDocs, `DELETE FROM docs WHERE src=? RETURNING rowid`},
		{&w.delSup, `DELETE FROM supersedes WHERE src=?`},
		{&w.doc, `INSERT INTO docs(src, kind, mid, type, title, tags, body, summary, created, updated, author, status, symbol, lang, start_line, end_line, vhash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
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
	for _, st := range []*sql.Stmt{w.blob, w.delDocs, w.delSup, w.doc, w.sup, w.delAttr, w.attr} {
		if st != nil {
			st.Close()
		}
	}
}

// insert stores a blob's analysis, replacing documents stored for it
// before, whose rows it returns (they are gone from the current set).
func (w *blobWriter) insert(ctx context.Context, kind Kind, oid string, a Analysis) (dead []int64, err error) {
	if _, err := w.blob.ExecContext(ctx, oid, int(kind), a.Err, a.Line, a.Note); err != nil {
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
	for _, d := range a.Docs {
		if _, err := w.doc.ExecContext(ctx, oid, int(kind), d.MID, d.Type, d.Title, joinTags(d.Tags), d.Body, d.Summary, unix(d.Created), unix(d.Updated),
			d.Author, d.Status, d.Symbol, d.Lang, d.StartLine, d.EndLine, textHash(embedText(d))); err != nil {
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

// insertBlobs stores analysed blobs and returns the rows of documents
// they replaced.
func insertBlobs(ctx context.Context, tx *sql.Tx, kind Kind, blobs map[string]Analysis) ([]int64, error) {
	if len(blobs) == 0 {
		return nil, nil
	}
	w, err := newBlobWriter(ctx, tx)
	if err != nil {
		return nil, err
	}
	defer w.close()
	var dead []int64
	for oid, a := range blobs {
		d, err := w.insert(ctx, kind, oid, a)
		if err != nil {
			return nil, err
		}
		dead = append(dead, d...)
	}
	return dead, nil
}

// embedMissing embeds the documents of blobs whose vector is not cached
// under the current model.
func (c *Cache) embedMissing(ctx context.Context, blobs map[string]Analysis, workers int) (map[string][]float32, int, error) {
	want := map[string]string{}
	for _, a := range blobs {
		for _, d := range a.Docs {
			t := embedText(d)
			want[textHash(t)] = t
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
	var hashes, texts []string
	for h, t := range want {
		var x int
		err := c.db.QueryRowContext(ctx, `SELECT 1 FROM vectors WHERE model=? AND hash=?`, model, h).Scan(&x)
		if err == nil {
			continue
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("cache: %w", err)
		}
		hashes = append(hashes, h)
		texts = append(texts, t)
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
