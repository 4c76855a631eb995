package cache

import (
	"context"
	"fmt"
)

// EnsureModel makes sure every current document has a vector from the
// current embedder. Vectors are cached per model, so switching models
// re-embeds once, and switching back costs nothing. It is a single meta
// read when the model has not changed.
func (c *Cache) EnsureModel(ctx context.Context) (int, error) {
	model := c.emb.Model()
	if c.meta(ctx, c.db, "model") == model {
		return 0, nil
	}
	rows, err := c.db.QueryContext(ctx, `SELECT d.vhash, d.title, d.tags, d.summary, d.body FROM docs d
		WHERE EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)
		AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model=? AND v.hash=d.vhash)`, model)
	if err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	// The stored hash names the text the document was embedded from, a
	// function of the stored columns: re-embedding files the new vector
	// under the same hash.
	want := map[string]string{}
	for rows.Next() {
		var h, title, tags, summary, body string
		if err := rows.Scan(&h, &title, &tags, &summary, &body); err != nil {
			rows.Close()
			return 0, fmt.Errorf("cache: %w", err)
		}
		want[h] = embedInput(title, tags, summary, body)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	vecs, err := c.embedTexts(ctx, want, 2)
	if err != nil {
		return 0, err
	}
	defer c.noteOwnWrite(c.identity())
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	for h, v := range vecs {
		b := encodeVec(v)
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO vectors(model, hash, vec, sum) VALUES (?, ?, ?, ?)`, model, h, b, vecSum(model, h, b)); err != nil {
			return 0, fmt.Errorf("cache: %w", err)
		}
	}
	for _, k := range []Kind{KindMemory, KindCode, KindCommit} {
		if _, err := bumpGen(ctx, tx, k); err != nil {
			return 0, err
		}
	}
	if err := setMeta(ctx, tx, "model", model); err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	return len(vecs), tx.Commit()
}
