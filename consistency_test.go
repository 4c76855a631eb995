package contextfs

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestStatusRebuildsACacheMissingDocuments deletes a memory's document
// rows from the cache behind its back: status must notice, say so and
// rebuild, after which search finds the memory again.
func TestStatusRebuildsACacheMissingDocuments(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	ctx := context.Background()
	var notes bytes.Buffer
	s, err := Open(ctx, Options{Dir: dir, Notices: &notes})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Save(ctx, SaveRequest{Type: "fact", Body: "The pool holds twenty connections."})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", filepath.Join(s.CacheDir(), cache.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM docs WHERE mid = ?`, strings.ToLower(res.Memory.ID)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := s.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes.String(), "inconsistent") {
		t.Fatalf("no notice of the rebuild: %q", notes.String())
	}
	hits, err := s.Search(ctx, Query{Text: "pool connections"})
	if err != nil || len(hits) == 0 || !strings.EqualFold(hits[0].ID, res.Memory.ID) {
		t.Fatalf("search after the rebuild: %v, %v", hits, err)
	}
}
