package cache

import (
	"context"
	"strconv"
)

// Generation names kind's current set of documents: it changes whenever
// a sync (by any process) adds, changes or removes one, when the embedding
// model changes, and when the cache is rebuilt (the database's own ID is
// part of it). What is computed from the current documents, and from
// nothing else, may be kept while the generation is the same: a
// long-lived process's context block. "" when it cannot be read, which
// matches nothing.
func (c *Cache) Generation(ctx context.Context, kind Kind) string {
	var v string
	// One statement, one snapshot: never a database ID with another's
	// generation.
	err := c.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key='dbid') || ':' ||
		COALESCE((SELECT value FROM meta WHERE key=?), '0')`, "gen:"+strconv.Itoa(int(kind))).Scan(&v)
	if err != nil {
		return ""
	}
	return v
}
