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

// TestStatusLeavesACacheWithBrokenFilesAlone: a memory file that cannot be
// parsed yields no documents, and that is no inconsistency. status once
// rebuilt the whole cache for it, every time, taking the code index with
// it.
func TestStatusLeavesACacheWithBrokenFilesAlone(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	ctx := context.Background()
	var notes bytes.Buffer
	s, err := Open(ctx, Options{Dir: dir, Notices: &notes})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Save(ctx, SaveRequest{Type: "fact", Body: "Giraffes have long necks."}); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		".contextfs/broken.md":  "---\nid: brokenyaml1\ntype: fact\ntitle: [unclosed\n---\nbody\n",
		".contextfs/nofront.md": "just text, no frontmatter\n",
		".contextfs/badtype.md": "---\nid: badtype1\ntype: nosuch\ntitle: T\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nb\n",
		"a.py":                  "def f():\n    return 'hello'\n",
	} {
		testgit.WriteFile(t, dir, name, content)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "init")
	if _, err := s.Index(ctx, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		st, err := s.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Invalid) == 0 {
			t.Error("status lists no problem for the broken files")
		}
	}
	if strings.Contains(notes.String(), "rebuilt") {
		t.Errorf("status rebuilt the cache for files that cannot be parsed: %q", notes.String())
	}
	is, err := s.IndexStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if is.Files == 0 {
		t.Errorf("the code index is gone: %+v", is)
	}
}
