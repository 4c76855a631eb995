package cache

import (
	"context"
)

// CurrentAttrs returns, for each current document of kind (one whose file
// is in the work tree) that carries attribute key, its values in the order
// they were stored, keyed by ID. Unlike AttrValues it takes no filter, and
// so starts from the attribute index: its cost follows the number of
// documents with the attribute (a few memories with paths:), not the
// number of documents. Superseded documents are included; callers filter
// when they list.
func (c *Cache) CurrentAttrs(ctx context.Context, kind Kind, key string) (map[string][]string, error) {
	// CROSS JOIN keeps attrs the outer table, and the unary + keeps kind
	// from choosing the listing index over docs_src: without statistics
	// the planner would otherwise walk every document.
	return c.attrValues(ctx, `SELECT d.mid, a.value FROM attrs a CROSS JOIN docs d
		WHERE a.key=? AND d.src=a.src AND +d.kind=?
		AND EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)
		ORDER BY d.mid, a.rowid`, key, int(kind))
}
