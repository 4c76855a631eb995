package contextfs

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
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

// TestReadsRebuildACacheFoundCorruptByAQuery damages the cache where only
// a query looks (a page of the documents table, or a table dropped) and
// checks that search, list and recall each rebuild it once, with a notice,
// and answer: they used to fail with "database disk image is malformed"
// or "no such table" until someone ran reindex.
func TestReadsRebuildACacheFoundCorruptByAQuery(t *testing.T) {
	damage := map[string]func(t *testing.T, db *sql.DB, path string){
		"a table dropped": func(t *testing.T, db *sql.DB, _ string) {
			if _, err := db.Exec(`DROP TABLE docs`); err != nil {
				t.Fatal(err)
			}
		},
		"a page of the documents table overwritten": func(t *testing.T, db *sql.DB, path string) {
			var pageSize, root int64
			if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name='docs'`).Scan(&root); err != nil {
				t.Fatal(err)
			}
			db.Close()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copy(b[(root-1)*pageSize:root*pageSize], bytes.Repeat([]byte{0xab}, int(pageSize)))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
	reads := map[string]func(s *Store, id string) error{
		"search": func(s *Store, id string) error {
			hits, err := s.Search(context.Background(), Query{Text: "giraffes necks"})
			if err == nil && (len(hits) == 0 || hits[0].ID != id) {
				err = fmt.Errorf("hits %v", hits)
			}
			return err
		},
		"list": func(s *Store, id string) error {
			es, err := s.List(context.Background(), ListOptions{})
			if err == nil && (len(es) != 1 || es[0].ID != id) {
				err = fmt.Errorf("entries %v", es)
			}
			return err
		},
		"recall": func(s *Store, id string) error {
			_, err := s.Resolve(context.Background(), id[:5])
			return err
		},
	}
	for dname, dmg := range damage {
		for rname, read := range reads {
			t.Run(rname+" after "+dname, func(t *testing.T) {
				testgit.Isolate(t)
				dir := testgit.Init(t)
				ctx := context.Background()
				var notes bytes.Buffer
				s, err := Open(ctx, Options{Dir: dir, Notices: &notes})
				if err != nil {
					t.Fatal(err)
				}
				res, err := s.Save(ctx, SaveRequest{Type: "fact", Body: "Giraffes have long necks."})
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				path := filepath.Join(s.CacheDir(), cache.DBFile)
				db, err := sql.Open("sqlite3", path)
				if err != nil {
					t.Fatal(err)
				}
				dmg(t, db, path)
				db.Close()
				s, err = Open(ctx, Options{Dir: dir, Notices: &notes})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if err := read(s, res.Memory.ID); err != nil {
					t.Fatalf("%s: %v (notices %q)", rname, err, notes.String())
				}
				if err := read(s, res.Memory.ID); err != nil {
					t.Fatalf("%s again: %v", rname, err)
				}
				if n := strings.Count(notes.String(), "cache rebuilt"); n < 1 {
					t.Errorf("no notice of a rebuild: %q", notes.String())
				}
			})
		}
	}
}
