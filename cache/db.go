// Package cache is contextfs's disposable index: a SQLite database with
// FTS5 full text and the embedding vectors, kept in the git directory,
// derived one way from the memory files (and, for code and commits, from
// git), and rebuilt whenever it is missing, corrupt or of an old schema.
// Nothing in it is ever the only copy of anything.
//
// Everything is keyed by content: a memory or source file is identified by
// its git blob OID, so a file whose content was seen before, on any branch,
// is never parsed or embedded again; vectors are keyed by (model, hash of
// the embedded text).
package cache

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// SchemaVersion changes whenever the tables, or what is derived into
// them, change (18: the link attributes; 19: a memory's supersedes
// include its links of rel supersedes; 21: row checksums and a content
// view per full-text table, for Verify); a cache of another version is
// rebuilt, never migrated: it holds nothing that cannot be derived again.
const SchemaVersion = "21"

// Kind is what a searchable document was derived from.
type Kind int

// The kinds of document.
const (
	KindMemory Kind = 1 // a memory file under .contextfs/
	KindCode   Kind = 2 // a chunk of a tracked source file
	KindCommit Kind = 3 // a commit of the current branch
)

// Types of the documents of the code kind (Doc.Type): source code,
// documentation (prose files chunked by headings) and tests. The indexer
// sets them (package autoindex); search filters and ranks on them.
const (
	ChunkCode = "code"
	ChunkDoc  = "doc"
	ChunkTest = "test"
)

// String names the kind as the CLI shows it.
func (k Kind) String() string {
	switch k {
	case KindMemory:
		return "memory"
	case KindCode:
		return "code"
	case KindCommit:
		return "commit"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Embedder turns texts into vectors; see package embed.
type Embedder interface {
	Model() string
	Dim() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Cache is an open cache. It is safe for concurrent use by one process;
// several processes share it through SQLite's locking.
type Cache struct {
	db  *sql.DB
	dir string
	emb Embedder
	mu  sync.Mutex
	// retiredSet caches the hidden memories of generation retiredGen.
	retiredGen string
	retiredSet map[int64]bool
	// typeRows holds the rows of each set of memory types asked for (see
	// Cache.filtered), kept up to date from the change log.
	typeRows map[string]*typeRows
	// slabbed are the typeRows holding a slab, oldest first (maxSlabs).
	slabbed []*typeRows
	// docsMu guards sets, each kind's docSet at its latest generation.
	docsMu sync.Mutex
	sets   map[Kind]*docSet
	// seenID is the database ID (meta dbid) sets were loaded from, guarded
	// by docsMu: another ID means the database was replaced (Replace).
	seenID string
	// cols holds each kind's column index (ann.go), of the base it was
	// built from; colsMu guards it and serialises mapping and building one.
	colsMu sync.Mutex
	cols   map[Kind]*colIndex
	// annMin, when above 0, replaces annMinRows (SetVectorIndexFrom).
	annMin atomic.Int64
	// Notice says why the cache was rebuilt on open ("" if it was not).
	Notice string
	// readOnly is set when the cache could not be written and was opened
	// read-only; see ReadOnly.
	readOnly bool
	// OnDamage, when set, is told in one line about damage found after
	// open (a vector file failing its checksum), which is then rebuilt.
	OnDamage func(msg string)
}

// DBFile is the database's file name inside the cache directory.
const DBFile = "cache.db"

// openRetrying is open, tried again while it reports busy at once. SQLite
// returns SQLITE_BUSY without calling the busy handler where waiting could
// deadlock, as when several connections turn a new file to WAL mode at the
// same moment (processes started together in a fresh clone): that busy
// passes in milliseconds. A busy that took the whole busy timeout is
// returned as it is.
func openRetrying(ctx context.Context, dir string, emb Embedder) (*Cache, string, error) {
	deadline := time.Now().Add(busyRetryFor)
	for {
		start := time.Now()
		c, why, err := open(ctx, dir, emb)
		if !isBusy(err) || time.Since(start) > busyRetryFor || time.Now().After(deadline) {
			return c, why, err
		}
		if c != nil {
			c.db.Close()
		}
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// busyRetryFor bounds openRetrying's retries: far longer than a new
// cache's schema takes to create, far shorter than the busy timeout.
const busyRetryFor = 2 * time.Second

// maxPath is SQLite's limit on a file name on Unix (the unix VFS's
// mxPathname), with its terminating byte.
const maxPath = 512

// Open opens (creating if needed) the cache in dir. A cache that cannot be
// opened, fails its integrity probe or has another schema version is
// deleted and created afresh; Notice then says why in one line.
func Open(ctx context.Context, dir string, emb Embedder) (*Cache, error) {
	if err := registerRankFunctions(); err != nil {
		return nil, err
	}
	// SQLite's file names on Unix stop at 512 bytes, its log's included;
	// past that it fails with "unable to open", which read as a damaged
	// or unwritable cache.
	if p := filepath.Join(dir, DBFile+"-journal"); len(p) >= maxPath {
		return nil, fmt.Errorf("cache %s: the path is %d bytes long, and SQLite takes at most %d: move the repository to a shorter path", dir, len(p), maxPath-1)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	sweepScratch(dir)
	c, why, err := openRetrying(ctx, dir, emb)
	if err == nil && why == "" {
		// SQLite opens a database it may not write read-only without a
		// word when its log files are there to read (they outlive the
		// writers): say so now, as when it fails to open.
		if mayWrite(dir) {
			// Changed by something else since this program left it: check
			// it whole before answering from it (Guard).
			gerr := c.Guard(ctx)
			if gerr == nil {
				return c, nil
			}
			if !isCorrupt(gerr) {
				c.db.Close()
				return nil, fmt.Errorf("cache %s: %w", dir, gerr)
			}
			why = gerr.Error()
		} else {
			err = fmt.Errorf("%s: %w", filepath.Join(dir, DBFile), fs.ErrPermission)
		}
	}
	// A database another process holds locked past the busy timeout is
	// busy, not broken: deleting it would pull it from under that process.
	if isBusy(err) {
		if c != nil {
			c.db.Close()
		}
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	if c != nil {
		c.db.Close()
	}
	if why == "" {
		why = err.Error()
	}
	// A cache that cannot be written is not corrupt: deleting it would
	// lose it for nothing (or fail, and with it every command). It is
	// used read-only instead.
	if !writable(dir) || isUnwritable(err) {
		ro, rerr := openReadOnly(ctx, dir, emb)
		if rerr != nil {
			return nil, fmt.Errorf("cache %s cannot be written (%s) nor read: %w", dir, why, rerr)
		}
		ro.Notice = "contextfs: the cache cannot be written (" + why + "); answering from it read-only: results may be stale"
		return ro, nil
	}
	if err := Remove(dir); err != nil {
		return nil, err
	}
	c, why2, err := open(ctx, dir, emb)
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	if why2 != "" {
		c.db.Close()
		return nil, fmt.Errorf("cache %s: %s", dir, why2)
	}
	if !strings.HasPrefix(why, "new") {
		c.Notice = "contextfs: cache rebuilt (" + why + ")"
	}
	return c, nil
}

// Remove deletes the cache files in dir: the database, its WAL and shared
// memory files and the vector snapshots.
func Remove(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove cache: %w", err)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, DBFile) || strings.HasPrefix(n, "docs-") || strings.HasPrefix(n, "vectors-") {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove cache: %w", err)
			}
		}
	}
	return nil
}

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE paths(
	path  TEXT NOT NULL,
	kind  INTEGER NOT NULL,
	size  INTEGER NOT NULL DEFAULT 0,
	mtime INTEGER NOT NULL DEFAULT 0,
	ino   INTEGER NOT NULL DEFAULT 0,
	oid   TEXT NOT NULL,
	PRIMARY KEY(kind, path)
) WITHOUT ROWID;
CREATE INDEX paths_oid ON paths(oid);
CREATE TABLE blobs(
	oid   TEXT PRIMARY KEY,
	kind  INTEGER NOT NULL,
	error TEXT NOT NULL DEFAULT '',
	line  INTEGER NOT NULL DEFAULT 0,
	note  TEXT NOT NULL DEFAULT '',
	-- How many documents the blob yielded: the chunks of the current
	-- files are counted from paths and blobs (DocCount), small rows,
	-- instead of each file's entries in docs_src.
	docs  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- The few blobs with a problem, so that listing them (every read warns
-- about invalid files) does not visit every current file.
CREATE INDEX blobs_problems ON blobs(oid) WHERE error != '' OR note != '';
CREATE TABLE docs(
	rowid      INTEGER PRIMARY KEY,
	src        TEXT NOT NULL,
	kind       INTEGER NOT NULL,
	mid        TEXT NOT NULL,
	type       TEXT NOT NULL,
	title      TEXT NOT NULL,
	tags       TEXT NOT NULL,
	body       TEXT NOT NULL,
	summary    TEXT NOT NULL DEFAULT '',
	created    INTEGER NOT NULL DEFAULT 0,
	updated    INTEGER NOT NULL DEFAULT 0,
	author     TEXT NOT NULL DEFAULT '',
	status     TEXT NOT NULL DEFAULT '',
	symbol     TEXT NOT NULL DEFAULT '',
	lang       TEXT NOT NULL DEFAULT '',
	start_line INTEGER NOT NULL DEFAULT 0,
	end_line   INTEGER NOT NULL DEFAULT 0,
	vhash      TEXT NOT NULL,
	-- Checksum of the other columns (rowSum), checked by Verify.
	sum        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX docs_src ON docs(src, kind, type, lang);
CREATE INDEX docs_mid ON docs(kind, mid);
CREATE INDEX docs_superseded ON docs(kind) WHERE status='superseded';
-- Covers filtering and listing (type, tag, date, hidden, current file):
-- docs rows carry whole bodies, so scanning them costs far more.
CREATE INDEX docs_list ON docs(kind, updated, mid, type, status, src, tags);
-- Covers a listing of memories whole (ListRows), so that list --all reads
-- no table page: in the table each row sits beside its body, and reading
-- them newest first visits the pages out of order, most of them several
-- times through a small page cache. Memories only: code chunks, far more
-- numerous and never listed, do not pay for it.
CREATE INDEX docs_mlist ON docs(kind, updated, mid, type, status, src, tags, title, summary, author, created) WHERE kind=1;
-- The memories of some types (a search or duplicate check by type): a
-- range of this index instead of every memory's entry in docs_list,
-- which a fresh process reads page by page. Memories only: code chunks
-- are many and never filtered by type in SQL.
CREATE INDEX docs_memtype ON docs(kind, type, status, mid) WHERE kind=1;
CREATE TABLE supersedes(src TEXT NOT NULL, target TEXT NOT NULL);
-- Both columns, so that integrity_check compares every value with a copy.
CREATE INDEX supersedes_src ON supersedes(src, target);
-- Attributes a document carries besides its columns: a memory's paths
-- globs, source tool and session. Keyed by blob, as supersedes is.
CREATE TABLE attrs(src TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX attrs_src ON attrs(src);
CREATE INDEX attrs_key ON attrs(key, value);
-- One full-text table per kind: a memory search must not rank (or read)
-- the tens of thousands of code chunks an indexed repository has. Each
-- reads its content through a view of its kind's documents, so that
-- FTS5's integrity-check can compare the index with exactly the rows it
-- indexes (against the whole docs table it always fails).
CREATE VIEW docs_1 AS SELECT rowid, title, tags, body FROM docs WHERE kind=1;
CREATE VIEW docs_2 AS SELECT rowid, title, tags, body FROM docs WHERE kind=2;
CREATE VIEW docs_3 AS SELECT rowid, title, tags, body FROM docs WHERE kind=3;
CREATE VIRTUAL TABLE fts_1 USING fts5(title, tags, body, content='docs_1', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE fts_2 USING fts5(title, tags, body, content='docs_2', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE fts_3 USING fts5(title, tags, body, content='docs_3', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
-- Document frequency of each (stemmed) term, to drop query words that
-- occur in most documents: their BM25 weight is nil and their cost highest.
CREATE VIRTUAL TABLE fts_1_vocab USING fts5vocab(fts_1, 'row');
CREATE VIRTUAL TABLE fts_2_vocab USING fts5vocab(fts_2, 'row');
CREATE VIRTUAL TABLE fts_3_vocab USING fts5vocab(fts_3, 'row');
-- New documents enter their full-text table by a statement of their own
-- (blobWriter), not by an insert trigger: a trigger that writes a virtual
-- table makes every insert into docs a statement with a journal, and FTS5
-- writes its pending index out at every statement savepoint, a segment
-- per row that automerge then merged again and again (a quarter of a full
-- index's CPU). Deletes stay triggered: they are few, and clearDocs
-- handles the many.
CREATE TRIGGER docs_ad_1 AFTER DELETE ON docs WHEN old.kind=1 BEGIN
	INSERT INTO fts_1(fts_1, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
END;
CREATE TRIGGER docs_ad_2 AFTER DELETE ON docs WHEN old.kind=2 BEGIN
	INSERT INTO fts_2(fts_2, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
END;
CREATE TRIGGER docs_ad_3 AFTER DELETE ON docs WHEN old.kind=3 BEGIN
	INSERT INTO fts_3(fts_3, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
END;
-- Which documents entered (live=1) or left (live=0) the current set of
-- their kind at each generation: the docSet files are brought up to date
-- by replaying it (see docset.go). Syncs keep the last logKeep generations.
CREATE TABLE doclog(gen INTEGER NOT NULL, kind INTEGER NOT NULL, row INTEGER NOT NULL, live INTEGER NOT NULL);
CREATE INDEX doclog_gen ON doclog(kind, gen);
-- A rowid table: WITHOUT ROWID suits small rows, and a vector is 1 KB.
CREATE TABLE vectors(model TEXT NOT NULL, hash TEXT NOT NULL, vec BLOB NOT NULL, sum INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX vectors_key ON vectors(model, hash);
`

// fileURI is path as an SQLite URI filename: "?" would start its
// parameters and "#" end it, and SQLite decodes %HH escapes in the path, so
// those three are escaped; a repository in "c#/" or "why?/" is a folder
// like any other.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
}

// open returns why != "" when the cache must be rebuilt.
func open(ctx context.Context, dir string, emb Embedder) (c *Cache, why string, err error) {
	path := filepath.Join(dir, DBFile)
	_, statErr := os.Stat(path)
	fresh := errors.Is(statErr, os.ErrNotExist)
	if fresh {
		// Created here, empty (an empty database to SQLite), so that it is
		// its owner's only: SQLite would give it 0644, and its log files
		// take the database's mode.
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
		}
	}
	dsn := fileURI(path) + "?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=off&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, "", err
	}
	// A few connections: with WAL, readers (the analysers checking which
	// blobs are known) run beside the one writer; SQLite serialises
	// writers itself (BEGIN IMMEDIATE, busy timeout).
	db.SetMaxOpenConns(4)
	c = &Cache{db: db, dir: dir, emb: emb, sets: map[Kind]*docSet{}}
	var v string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema'`).Scan(&v)
	switch {
	case err == nil && v == SchemaVersion:
		return c, "", nil
	case err == nil:
		return c, fmt.Sprintf("schema %s, want %s", v, SchemaVersion), nil
	case isCorrupt(err) && !isMissingTable(err): // no meta table: a new file, or one to rebuild below
		return c, "corrupt: " + err.Error(), nil
	case isBusy(err):
		return c, "", err
	case !fresh && !strings.Contains(err.Error(), "no such table"):
		return c, "unreadable: " + err.Error(), nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return c, "", err
	}
	defer tx.Rollback()
	// Another process may have created the schema while we waited for the
	// write lock.
	if tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema'`).Scan(&v) == nil {
		if v == SchemaVersion {
			return c, "", nil
		}
		return c, fmt.Sprintf("schema %s, want %s", v, SchemaVersion), nil
	}
	// A database without tables, under the write lock (so not one another
	// process is creating), beside the note of a verified one was emptied
	// (truncated, overwritten): damage, not a new cache.
	if !fresh && exists(filepath.Join(dir, verifiedFile)) {
		return c, "damaged: the database file holds no tables", nil
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		if isCorrupt(err) || !fresh {
			return c, "unreadable: " + err.Error(), nil
		}
		return c, "", fmt.Errorf("create schema: %w", err)
	}
	// dbid ties the docSet files to this database: a new database
	// restarts the generations, and must not take an old file as current.
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return c, "", err
	}
	// The schema's hash, for Verify: a table, index or trigger changed
	// behind the cache's back is damage.
	sh, err := schemaHash(ctx, tx)
	if err != nil {
		return c, "", err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('schema', ?), ('dbid', ?), ('schemahash', ?)`, SchemaVersion, hex.EncodeToString(id[:8]), sh); err != nil {
		return c, "", err
	}
	if err := tx.Commit(); err != nil {
		return c, "", err
	}
	c.recordIdentity()
	return c, "", nil
}

// isCorrupt reports whether err says the database file is damaged or is
// not a database at all.
func isCorrupt(err error) bool {
	if errors.Is(err, ErrInconsistent) || errors.Is(err, ErrDamaged) {
		return true
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		// A table or column missing from a cache whose schema version is
		// current was removed behind its back: as damaged as a bad page.
		return se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB || isMissingTable(err)
	}
	return false
}

// isMissingTable reports whether err says a table or column the query
// names does not exist.
func isMissingTable(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) || se.Code != sqlite3.ErrError {
		return false
	}
	msg := se.Error()
	return strings.HasPrefix(msg, "no such table") || strings.HasPrefix(msg, "no such column")
}

// isBusy reports whether err says another connection held the database
// locked for longer than the busy timeout.
func isBusy(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked || se.Code == sqlite3.ErrProtocol
	}
	return false
}

// IsCorrupt reports whether err came from a damaged cache; callers rebuild
// and try again.
func IsCorrupt(err error) bool { return isCorrupt(err) }

// IsUnwritable reports whether err says the cache could not be written
// (read-only files or folder, a full disk): callers answer from the cache
// as it is, with a notice, rather than fail or rebuild.
func IsUnwritable(err error) bool { return isUnwritable(err) }

func isUnwritable(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrFull || se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrPerm
	}
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS)
}

// ReadOnly reports whether the cache was opened read-only because it
// could not be written: it answers as it was last written.
func (c *Cache) ReadOnly() bool { return c.readOnly }

// writable reports whether this process may write the cache folder and
// its database, by trying: permission bits do not tell (root, ACLs,
// read-only mounts).
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	db, err := os.OpenFile(filepath.Join(dir, DBFile), os.O_WRONLY, 0)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	db.Close()
	return true
}

// openReadOnly opens an existing cache without writing anything, not even
// the WAL index. The write-ahead log outlives the processes that write it
// (no checkpoint at close, see fts5rank.c), so where it and its index are
// there, SQLite reads them read-only (mode=ro); otherwise immutable tells
// SQLite that the database file is all there is.
func openReadOnly(ctx context.Context, dir string, emb Embedder) (*Cache, error) {
	path := filepath.Join(dir, DBFile)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	var v string
	var db *sql.DB
	var err error
	for _, dsn := range []string{fileURI(path) + "?mode=ro", fileURI(path) + "?mode=ro&immutable=1"} {
		if !strings.HasSuffix(dsn, "immutable=1") && !exists(path+"-wal") {
			continue
		}
		if db, err = sql.Open("sqlite3", dsn); err != nil {
			return nil, err
		}
		if err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema'`).Scan(&v); err == nil {
			break
		}
		db.Close()
	}
	if err != nil {
		return nil, err
	}
	if v != SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("schema %s, want %s", v, SchemaVersion)
	}
	return &Cache{db: db, dir: dir, emb: emb, sets: map[Kind]*docSet{}, readOnly: true}, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// logKeepBytes is how large the write-ahead log may grow before Close
// checkpoints it. Connections close without a checkpoint (fts5rank.c), so
// a command that writes spends no fsync on the cache; but the next
// process to open the database reads the whole log to index it (about
// 4 ms of CPU per MB here), so the log is folded into the database once
// it holds a few saves' worth (a save writes about 80 KB).
const logKeepBytes = 256 << 10

// Close closes the database, checkpointing the log first if it grew past
// logKeepBytes.
func (c *Cache) Close() error {
	if !c.readOnly {
		if fi, err := os.Stat(filepath.Join(c.dir, DBFile+"-wal")); err == nil && fi.Size() > logKeepBytes {
			// Best effort: a busy database is checkpointed by a later close.
			// The checkpoint rewrites the files; it keeps them trusted
			// only if they were (noteOwnWrite).
			trusted := c.trusted()
			c.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
			if trusted {
				c.recordIdentity()
			}
		}
	}
	return c.db.Close()
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// meta reads a value from the meta table ("" if absent).
func (c *Cache) meta(ctx context.Context, q querier, key string) string {
	var v string
	_ = q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	return v
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func setMeta(ctx context.Context, q querier, key, value string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// ErrInconsistent is wrapped by the error of a cache whose tables
// disagree (CheckConsistency); IsCorrupt reports it, so callers rebuild.
var ErrInconsistent = errors.New("cache tables are inconsistent")

// CheckConsistency checks that every file of kind the cache lists has the
// documents its content yielded: rows deleted from the documents table
// behind the cache's back would otherwise drop files from every result
// without a word. A file that yielded none (one that cannot be parsed,
// whose problem the blobs table records) has none to miss. One query over
// the paths table, the blobs' keys and the documents' src index.
func (c *Cache) CheckConsistency(ctx context.Context, kind Kind) error {
	return c.checkConsistency(ctx, c.db, kind)
}

// checkConsistency is CheckConsistency read through q.
func (c *Cache) checkConsistency(ctx context.Context, q querier, kind Kind) error {
	var missing int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM paths p INDEXED BY sqlite_autoindex_paths_1
		WHERE p.kind=? AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.oid=p.oid AND b.docs=0)
		AND NOT EXISTS (SELECT 1 FROM docs d INDEXED BY docs_src WHERE d.src=p.oid)`, int(kind)).Scan(&missing)
	if err != nil {
		return fmt.Errorf("cache: consistency: %w", err)
	}
	if missing > 0 {
		return fmt.Errorf("%w: %d %s file(s) have no documents", ErrInconsistent, missing, kind)
	}
	return nil
}
