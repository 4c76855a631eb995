package cache

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// ListWithStatus is List keeping only documents whose status is one of
// statuses ("" is a document without one): the open work of the context
// block, read as a page rather than every todo in the repository. The
// status is in the listing index, so the rows left out cost no body read.
func (c *Cache) ListWithStatus(ctx context.Context, kind Kind, f Filter, statuses []string, limit int) ([]Row, error) {
	cond, args := f.where(kind, true)
	if len(statuses) > 0 {
		cond += " AND d.status IN (" + strings.TrimSuffix(strings.Repeat("?,", len(statuses)), ",") + ")"
		for _, s := range statuses {
			args = append(args, s)
		}
	}
	q := `SELECT ` + rowCols + ` FROM docs d WHERE ` + cond + ` ORDER BY d.updated DESC, d.mid DESC`
	if limit > 0 {
		q += ` LIMIT ` + strconv.Itoa(limit)
	}
	rs, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rs.Close()
	var out []Row
	for rs.Next() {
		r, err := scanRow(rs)
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		out = append(out, r)
	}
	return out, rs.Err()
}
