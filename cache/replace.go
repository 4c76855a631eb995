package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// ErrReplaced is wrapped by the error of a sync that found the database
// replaced (Replace, by a reindex) under it again and again: each time it
// started over, since what it had read no longer described the cache.
var ErrReplaced = errors.New("the cache was replaced by a reindex while it was being synced")

// ID is the database's own ID (meta dbid): a new one after each rebuild
// and each Replace, so that a caller that read the cache and then found
// another ID knows its answer may come from the cache as it was before.
func (c *Cache) ID(ctx context.Context) string { return c.meta(ctx, c.db, "dbid") }

// Replace makes c's database a copy of from's, in one write transaction
// through SQLite's online backup: other connections and processes see the
// old content or the new, never a mix nor a missing file, and go on
// using the same file (the file is never deleted or renamed, which pulled
// it from under them). from should be a cache built afresh (a reindex);
// it is left as it was. Writers wait for the copy as for any write (the
// busy timeout); a sync in flight elsewhere notices the new database ID
// and starts over (see SyncFilesWith).
func (c *Cache) Replace(ctx context.Context, from *Cache) error {
	if c.readOnly {
		return fmt.Errorf("cache %s: read-only, it cannot be replaced", c.dir)
	}
	dst, err := c.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cache: replace: %w", err)
	}
	src, err := from.db.Conn(ctx)
	if err != nil {
		dst.Close()
		return fmt.Errorf("cache: replace: %w", err)
	}
	err = dst.Raw(func(d any) error {
		return src.Raw(func(s any) error {
			dc, ok1 := d.(*sqlite3.SQLiteConn)
			sc, ok2 := s.(*sqlite3.SQLiteConn)
			if !ok1 || !ok2 {
				return errors.New("not SQLite connections")
			}
			return backup(ctx, dc, sc)
		})
	})
	src.Close()
	dst.Close()
	if err != nil {
		return fmt.Errorf("cache %s: replace: %w", c.dir, err)
	}
	// Idle connections are closed, so that none keeps state of the old
	// content (FTS5 caches the index structure per connection); new ones
	// open as needed.
	c.db.SetMaxIdleConns(0)
	c.db.SetMaxIdleConns(2)
	c.forget()
	// The copy is of a cache built afresh by this program: trusted, as
	// its own writes are (Guard), so the next command checks nothing.
	c.recordIdentity()
	return nil
}

// backup copies src's main database into dst's in one step, waiting while
// another connection holds dst's write lock (step answers busy or locked
// with no error and nothing copied).
func backup(ctx context.Context, dst, src *sqlite3.SQLiteConn) error {
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		b, err := dst.Backup("main", src, "main")
		if err != nil {
			return err
		}
		done, err := b.Step(-1)
		ferr := b.Finish()
		if err != nil {
			return err
		}
		if done {
			return ferr
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// forget drops what this Cache keeps in memory about the database's
// content (the docSets, the rows by type, the hidden memories): after a
// Replace the generations start again and would match the old ones.
func (c *Cache) forget() {
	c.docsMu.Lock()
	c.sets = map[Kind]*docSet{}
	c.docsMu.Unlock()
	c.mu.Lock()
	c.typeRows, c.slabbed = nil, nil
	c.retiredGen, c.retiredSet = "", nil
	c.mu.Unlock()
}
