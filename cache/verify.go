package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrDamaged is wrapped by the error of a cache whose content failed a
// check (Verify, or a sanity check on an answer): a page SQLite reads
// without complaint can still hold a flipped byte, a full-text row can be
// gone, and only a check that compares copies finds it. IsCorrupt reports
// it, so callers rebuild.
var ErrDamaged = errors.New("cache damaged")

// damaged wraps ErrDamaged with what was found.
func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
}

// rowSum is the checksum of a documents row or a vector, over every column
// that a check by SQLite does not compare with a second copy: a byte
// flipped inside a value leaves a well-formed page, which integrity_check
// accepts.
func rowSum(vals ...any) int64 {
	h := crc32.New(castagnoli())
	var n [8]byte
	for _, v := range vals {
		switch v := v.(type) {
		case string:
			binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write([]byte(v))
		case []byte:
			binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write(v)
		case int64:
			binary.LittleEndian.PutUint64(n[:], uint64(v))
			h.Write(n[:])
		case int:
			binary.LittleEndian.PutUint64(n[:], uint64(v))
			h.Write(n[:])
		default:
			panic(fmt.Sprintf("rowSum: %T", v))
		}
	}
	return int64(h.Sum32())
}

// schemaHash is a hash of the schema SQLite holds: a table, index, view or
// trigger dropped or altered behind the cache's back (a missing delete
// trigger leaves full-text rows behind, silently) changes it.
func schemaHash(ctx context.Context, q querier) (string, error) {
	rows, err := q.QueryContext(ctx, `SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	h := sha256.New()
	for rows.Next() {
		var typ, name, text string
		if err := rows.Scan(&typ, &name, &text); err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", typ, name, text)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// Verify checks the whole cache and returns an error wrapping ErrDamaged
// (or one IsCorrupt reports) for the first damage found; nil if none.
// It is the full check: it reads every page, so it runs where its cost
// (docs/RELIABILITY.md: about 0.3 s of CPU at 10,000 memories) is paid
// rarely: in doctor, after a process other than contextfs changed the
// database (Guard), and when a query met damage. In order:
//
//   - the schema, against the hash recorded when it was created;
//   - PRAGMA integrity_check: every page's structure, and every index
//     entry against its table row (so a flipped ID, type or title of a
//     memory, which docs_list and docs_mlist copy, is found);
//   - FTS5's integrity-check against each kind's documents (a full-text
//     row deleted, altered or added; a flipped byte in the index);
//   - the checksum of every documents row and every vector;
//   - the meta values the rankers rely on, and that every current file
//     has its documents (CheckConsistency).
//
// All of it reads one snapshot, under the write lock (BEGIN IMMEDIATE; a
// read-only cache reads one snapshot without it): checks that ran as
// separate queries, while other processes wrote, compared one state's
// meta with another's change log and took the difference for damage.
func (c *Cache) Verify(ctx context.Context) error {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cache: verify: %w", err)
	}
	defer conn.Close()
	begin := "BEGIN IMMEDIATE"
	if c.readOnly {
		begin = "BEGIN"
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return fmt.Errorf("cache: verify: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return c.verify(ctx, conn)
}

func (c *Cache) verify(ctx context.Context, q querier) error {
	want := c.meta(ctx, q, "schemahash")
	got, err := schemaHash(ctx, q)
	if err != nil {
		return fmt.Errorf("cache: verify schema: %w", err)
	}
	if want != got {
		return damaged("the schema differs from the one created (hash %s, want %s)", got, want)
	}
	rows, err := q.QueryContext(ctx, `PRAGMA integrity_check(20)`)
	if err != nil {
		return fmt.Errorf("cache: integrity check: %w", err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return fmt.Errorf("cache: integrity check: %w", err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return fmt.Errorf("cache: integrity check: %w", err)
	}
	if len(problems) > 0 {
		return damaged("integrity check: %s", strings.Join(problems, "; "))
	}
	for _, k := range []Kind{KindMemory, KindCode, KindCommit} {
		fts := FTSTable(k)
		// rank 1: compare the index with the documents (the kind's view),
		// not only with itself.
		if _, err := q.ExecContext(ctx, `INSERT INTO `+fts+`(`+fts+`, rank) VALUES ('integrity-check', 1)`); err != nil {
			if isCorrupt(err) || strings.Contains(err.Error(), "checksum mismatch") {
				return damaged("full-text index of %s: %v", k, err)
			}
			return fmt.Errorf("cache: full-text check of %s: %w", k, err)
		}
	}
	if err := c.verifyRows(ctx, q); err != nil {
		return err
	}
	if err := c.verifyMeta(ctx, q); err != nil {
		return err
	}
	// Every current document has its vector: nothing is written to the
	// cache without one (docs/RELIABILITY.md).
	if model := c.meta(ctx, q, "model"); model != "" {
		var missing int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM docs d
			WHERE EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)
			AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model=? AND v.hash=d.vhash)`, model).Scan(&missing); err != nil {
			return fmt.Errorf("cache: verify vectors: %w", err)
		}
		if missing > 0 {
			return damaged("%d current document(s) have no vector of %s", missing, model)
		}
	}
	for _, k := range []Kind{KindMemory, KindCode, KindCommit} {
		if err := c.checkConsistency(ctx, q, k); err != nil {
			return err
		}
	}
	return nil
}

// verifyRows compares the checksum of every documents row and vector with
// the one written beside it.
func (c *Cache) verifyRows(ctx context.Context, q querier) error {
	rows, err := q.QueryContext(ctx, `SELECT rowid, src, kind, mid, type, title, tags, body, summary, created, updated,
		author, status, symbol, lang, start_line, end_line, vhash, sum FROM docs`)
	if err != nil {
		return fmt.Errorf("cache: verify documents: %w", err)
	}
	defer rows.Close()
	var (
		row, kind, created, updated, start, end, sum              int64
		src, mid, typ, title, tags, body, summary, author, status string
		symbol, lang, vhash                                       string
	)
	for rows.Next() {
		if err := rows.Scan(&row, &src, &kind, &mid, &typ, &title, &tags, &body, &summary, &created, &updated,
			&author, &status, &symbol, &lang, &start, &end, &vhash, &sum); err != nil {
			return damaged("document row %d: %v", row, err)
		}
		if docSum(src, kind, mid, typ, title, tags, body, summary, created, updated, author, status, symbol, lang, start, end, vhash) != sum {
			return damaged("document row %d (%q) fails its checksum", row, mid)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cache: verify documents: %w", err)
	}
	vrows, err := q.QueryContext(ctx, `SELECT rowid, model, hash, vec, sum FROM vectors`)
	if err != nil {
		return fmt.Errorf("cache: verify vectors: %w", err)
	}
	defer vrows.Close()
	var model, hash string
	var vec []byte
	for vrows.Next() {
		if err := vrows.Scan(&row, &model, &hash, &vec, &sum); err != nil {
			return damaged("vector row %d: %v", row, err)
		}
		if vecSum(model, hash, vec) != sum {
			return damaged("vector row %d fails its checksum", row)
		}
	}
	if err := vrows.Err(); err != nil {
		return fmt.Errorf("cache: verify vectors: %w", err)
	}
	return nil
}

// docSum is rowSum over a documents row as stored.
func docSum(src string, kind int64, mid, typ, title, tags, body, summary string, created, updated int64,
	author, status, symbol, lang string, start, end int64, vhash string) int64 {
	return rowSum(src, kind, mid, typ, title, tags, body, summary, created, updated, author, status, symbol, lang, start, end, vhash)
}

// vecSum is rowSum over a vector row as stored.
func vecSum(model, hash string, vec []byte) int64 { return rowSum(model, hash, vec) }

// verifyMeta checks the meta values the rankers rely on: the schema
// version, the database's identity and each kind's generation, which
// must be a number no older than the change log's.
func (c *Cache) verifyMeta(ctx context.Context, q querier) error {
	if v := c.meta(ctx, q, "schema"); v != SchemaVersion {
		return damaged("schema version %q, want %s", v, SchemaVersion)
	}
	if id := c.meta(ctx, q, "dbid"); len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		return damaged("database id %q is not 16 hex digits", id)
	}
	for _, k := range []Kind{KindMemory, KindCode, KindCommit} {
		ks := strconv.Itoa(int(k))
		var gen, from int64
		for key, dst := range map[string]*int64{"gen:" + ks: &gen, "logfrom:" + ks: &from} {
			if v := c.meta(ctx, q, key); v != "" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					return damaged("meta %s is %q, not a generation", key, v)
				}
				*dst = n
			}
		}
		var top sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT max(gen) FROM doclog WHERE kind=?`, int(k)).Scan(&top); err != nil {
			return fmt.Errorf("cache: verify change log: %w", err)
		}
		if from > gen || (top.Valid && top.Int64 > gen) {
			return damaged("generation of %s is %d, but the change log reaches %d (from %d)", k, gen, top.Int64, from)
		}
	}
	return nil
}

// verifiedFile records the identity (device, inode, size, modification
// time) of the database and its log as this program last left them: after
// a check passed, or after one of its own writes. A database whose
// identity differs was changed by something else (another program, a
// disk, a process killed mid-write) and is checked in full before it is
// trusted; one that matches costs two stats and a small read.
const verifiedFile = DBFile + ".verified"

// identity describes the database and log files as they are now.
func (c *Cache) identity() string {
	var b strings.Builder
	for _, name := range []string{DBFile, DBFile + "-wal"} {
		fi, err := os.Stat(filepath.Join(c.dir, name))
		if err != nil {
			b.WriteString("-;")
			continue
		}
		var dev, ino uint64
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			dev, ino = uint64(st.Dev), st.Ino
		}
		fmt.Fprintf(&b, "%d:%d:%d:%d;", dev, ino, fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String()
}

// trusted reports whether the files are as this program last left them.
func (c *Cache) trusted() bool {
	note, err := os.ReadFile(filepath.Join(c.dir, verifiedFile))
	return err == nil && bytes.Equal(note, []byte(c.identity()))
}

// recordIdentity notes the files' identity as this program's own. Best
// effort: a note not written costs the next process a full check.
func (c *Cache) recordIdentity() {
	if c.readOnly {
		return
	}
	p := filepath.Join(c.dir, verifiedFile)
	tmp := p + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(c.identity()), 0o600); err != nil {
		return
	}
	if os.Rename(tmp, p) != nil {
		os.Remove(tmp)
	}
}

// Guard checks the whole cache (Verify) when its files were changed by
// something other than this program since it last left them, and notes
// them as checked when it passes. Every sync runs it first, so every
// command meets damage done between commands; a cache that matches costs
// two stats and one small read. A read-only cache is not checked: it
// could not be rebuilt.
func (c *Cache) Guard(ctx context.Context) error {
	if c.readOnly || c.trusted() {
		return nil
	}
	if err := c.Verify(ctx); err != nil {
		return err
	}
	c.recordIdentity()
	return nil
}

// noteOwnWrite records the files' identity after a write of this program
// that began when they had identity before: deferred at the start of
// every method that writes, after Guard (or a sync that ran it) has
// trusted them, so a change made by something else in between is not
// taken for one of ours. Unchanged files need no note.
func (c *Cache) noteOwnWrite(before string) {
	if c.readOnly {
		return
	}
	if now := c.identity(); now != before {
		c.recordIdentity()
	}
}
