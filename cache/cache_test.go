package cache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/embed"
)

// fixture is a folder of plain files indexed as memories by a trivial
// analyzer: one document per file, its first line the type.
type fixture struct {
	t    testing.TB
	root string
	c    *Cache
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir()}
	c, err := Open(context.Background(), filepath.Join(t.TempDir(), "cache"), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f.c = c
	return f
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) entries() []FileEntry {
	f.t.Helper()
	ents, err := os.ReadDir(f.root)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []FileEntry
	for _, e := range ents {
		fi, _ := e.Info()
		out = append(out, FileEntry{Path: e.Name(), Size: fi.Size(), Changed: fi.ModTime().UnixNano()})
	}
	return out
}

func analyze(path string, raw []byte) Analysis {
	typ, body, _ := strings.Cut(string(raw), "\n")
	if typ == "broken" {
		return Analysis{Err: "broken on purpose", Line: 1}
	}
	return Analysis{Docs: []Doc{{MID: strings.TrimSuffix(path, ".md"), Type: typ, Title: path, Body: body}}}
}

func (f *fixture) sync() SyncStats {
	f.t.Helper()
	st, err := f.c.SyncFiles(context.Background(), KindMemory, f.root, f.entries(), analyze)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *fixture) keyword(q string, flt Filter) []string {
	f.t.Helper()
	hits, err := f.c.Keyword(context.Background(), KindMemory, q, flt, 10)
	if err != nil {
		f.t.Fatal(err)
	}
	var rows []int64
	for _, h := range hits {
		rows = append(rows, h.Row)
	}
	got, _ := f.c.Rows(context.Background(), rows)
	var out []string
	for _, h := range hits {
		out = append(out, got[h.Row].MID)
	}
	return out
}

func TestSyncSeesEveryChange(t *testing.T) {
	f := newFixture(t)
	f.write("a.md", "fact\nthe quick brown fox")
	f.write("b.md", "fact\nlazy dogs sleep")
	if st := f.sync(); st.Analyzed != 2 || st.Stale != 2 {
		t.Fatalf("first sync: %+v", st)
	}
	t.Run("an unchanged tree analyses nothing", func(t *testing.T) {
		if st := f.sync(); st.Analyzed != 0 || st.Changed() {
			t.Fatalf("%+v", st)
		}
	})
	t.Run("a same-size rewrite in the same instant is seen", func(t *testing.T) {
		// Same length, so only the content hash can tell; racily-clean
		// entries are hashed again.
		f.write("a.md", "fact\nthe quick brown cat")
		if st := f.sync(); st.Analyzed != 1 {
			t.Fatalf("%+v", st)
		}
		if got := f.keyword("cat", Filter{}); len(got) != 1 || got[0] != "a" {
			t.Fatalf("new content not searchable: %v", got)
		}
		if got := f.keyword("fox", Filter{}); len(got) != 0 {
			t.Fatalf("old content still found: %v", got)
		}
	})
	t.Run("content seen before is never analysed again", func(t *testing.T) {
		f.write("c.md", "fact\nlazy dogs sleep") // b's content under a new name
		if st := f.sync(); st.Analyzed != 0 || st.Stale != 1 {
			t.Fatalf("%+v", st)
		}
	})
	t.Run("a removed file is gone from search", func(t *testing.T) {
		os.Remove(filepath.Join(f.root, "a.md"))
		if st := f.sync(); st.Removed != 1 {
			t.Fatalf("%+v", st)
		}
		if got := f.keyword("cat", Filter{}); len(got) != 0 {
			t.Fatalf("removed file found: %v", got)
		}
	})
	t.Run("a file that fails analysis is remembered as a problem", func(t *testing.T) {
		f.write("d.md", "broken\nx")
		f.sync()
		probs, err := f.c.Problems(context.Background(), KindMemory)
		if err != nil || len(probs) != 1 || probs[0].Path != "d.md" || probs[0].Line != 1 {
			t.Fatalf("%+v %v", probs, err)
		}
	})
}

func TestStatFastPath(t *testing.T) {
	f := newFixture(t)
	f.write("a.md", "fact\nalpha")
	f.sync()
	// Age the file past the racy window so the stat sum is recorded.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(f.root, "a.md"), old, old)
	f.sync()
	if f.c.meta(context.Background(), f.c.db, "stat:1") == "" {
		t.Fatal("no stat sum recorded after a clean sync")
	}
	f.write("a.md", "fact\nomega")
	os.Chtimes(filepath.Join(f.root, "a.md"), old.Add(time.Minute), old.Add(time.Minute))
	if st := f.sync(); st.Analyzed != 1 {
		t.Fatalf("a change behind the fast path was missed: %+v", st)
	}
}

func TestKeywordWidensTheWindowForSelectiveFilters(t *testing.T) {
	f := newFixture(t)
	// 300 facts and one decision all match "shared"; the decision ranks
	// last, far beyond the first window.
	for i := 0; i < 300; i++ {
		f.write(fmt.Sprintf("f%03d.md", i), "fact\nshared shared shared word")
	}
	f.write("zz.md", "decision\nshared and a very long body "+strings.Repeat("filler ", 200))
	f.sync()
	got := f.keyword("shared", Filter{Types: []string{"decision"}})
	if len(got) != 1 || got[0] != "zz" {
		t.Fatalf("got %v", got)
	}
}

func TestOpenRebuildsABadCache(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		notice string
	}{
		{"an old schema is rebuilt", func(t *testing.T, dir string) {
			c, err := Open(context.Background(), dir, embed.NewBuiltin())
			if err != nil {
				t.Fatal(err)
			}
			c.db.Exec(`UPDATE meta SET value='0' WHERE key='schema'`)
			c.Close()
		}, "schema 0"},
		{"a file that is not a database is rebuilt", func(t *testing.T, dir string) {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, DBFile), []byte(strings.Repeat("not sqlite ", 500)), 0o644)
		}, "cache rebuilt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			tt.damage(t, dir)
			c, err := Open(context.Background(), dir, embed.NewBuiltin())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if !strings.Contains(c.Notice, tt.notice) {
				t.Fatalf("notice %q, want %q", c.Notice, tt.notice)
			}
			var v string
			if err := c.db.QueryRow(`SELECT value FROM meta WHERE key='schema'`).Scan(&v); err != nil || v != SchemaVersion {
				t.Fatalf("schema after rebuild: %q %v", v, err)
			}
		})
	}
}

func TestDocSetFilesFollowChanges(t *testing.T) {
	f := newFixture(t)
	f.write("a.md", "fact\npostgres connection pooling")
	f.write("b.md", "fact\nkubernetes cluster upgrade")
	f.sync()
	ctx := context.Background()
	search := func(q string) string {
		v, _ := embed.NewBuiltin().Embed(ctx, []string{q})
		hits, err := f.c.Semantic(ctx, KindMemory, v[0], Filter{}, 1)
		if err != nil || len(hits) == 0 {
			t.Fatalf("%v %v", hits, err)
		}
		rows, _ := f.c.Rows(ctx, []int64{hits[0].Row})
		return rows[hits[0].Row].MID
	}
	if got := search("database pool"); got != "a" {
		t.Fatalf("got %s", got)
	}
	if _, err := os.Stat(f.c.docSetPath(KindMemory, "base")); err != nil {
		t.Fatalf("no snapshot written: %v", err)
	}
	// A second process (a new Cache on the same files) must see changes
	// made after the snapshot was written.
	f.write("c.md", "fact\nterraform state locking in s3")
	f.sync()
	c2, err := Open(ctx, f.c.Dir(), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	v, _ := embed.NewBuiltin().Embed(ctx, []string{"terraform state"})
	hits, err := c2.Semantic(ctx, KindMemory, v[0], Filter{}, 1)
	if err != nil || len(hits) == 0 {
		t.Fatal(hits, err)
	}
	rows, _ := c2.Rows(ctx, []int64{hits[0].Row})
	if rows[hits[0].Row].MID != "c" {
		t.Fatalf("stale snapshot: got %s", rows[hits[0].Row].MID)
	}
	// Repeated searches switch to the SIMD index; answers stay the same.
	for i := 0; i < 3; i++ {
		if got := search("kubernetes upgrade"); got != "b" {
			t.Fatalf("search %d: %s", i, got)
		}
	}
}

func TestMatchQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how do we pool db connections", `"pool" OR "db" OR "connections"`},
		{"the", `"the"`},
		{`AND OR "NEAR(x)" -*`, `"near" OR "x"`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := MatchQuery(tt.in); got != tt.want {
			t.Errorf("MatchQuery(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// recording is the built-in embedder under another model name, recording
// the texts it is given.
type recording struct {
	embed.Embedder
	mu    sync.Mutex
	texts []string
}

func (r *recording) Model() string { return "test/recording" }
func (r *recording) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.Embedder.Embed(ctx, texts)
}

func TestAModelChangeReembedsTheSameTextAsIndexing(t *testing.T) {
	f := newFixture(t)
	f.write("long.md", "fact\n"+strings.Repeat("a long body about connection pools ", 200))
	f.sync()
	f.c.Close()
	rec := &recording{Embedder: embed.NewBuiltin()}
	c2, err := Open(context.Background(), f.c.Dir(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if n, err := c2.EnsureModel(context.Background()); err != nil || n != 1 {
		t.Fatalf("EnsureModel = %d, %v", n, err)
	}
	want := embedText(Doc{Title: "long.md", Body: strings.Repeat("a long body about connection pools ", 200)})
	// The whole text, in pieces of at most maxEmbedBytes: none is dropped.
	pieces := embed.Pieces(want, maxEmbedBytes)
	if len(pieces) < 2 || !slices.Equal(rec.texts, pieces) {
		t.Fatalf("re-embedded %d pieces; want the %d pieces of the %d-byte text indexing embeds", len(rec.texts), len(pieces), len(want))
	}
}

// Clearing the code kind empties its full-text table at once and leaves
// memories, the delete trigger and the index's integrity as they were; a
// sync afterwards indexes the files again.
func TestClearKindsEmptiesOneKindAndKeepsTheOthers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.write("a.md", "fact\nthe quick brown fox")
	f.sync()
	code := t.TempDir()
	if err := os.WriteFile(filepath.Join(code, "fox.go"), []byte("fact\nfunc jumpOverTheLazyFox() {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(code, "fox.go"))
	codeFiles := []FileEntry{{Path: "fox.go", Size: fi.Size(), Changed: fi.ModTime().UnixNano()}}
	syncCode := func() {
		t.Helper()
		if _, err := f.c.SyncFiles(ctx, KindCode, code, codeFiles, analyze); err != nil {
			t.Fatal(err)
		}
	}
	codeHits := func() int {
		t.Helper()
		hits, err := f.c.Keyword(ctx, KindCode, "lazy fox", Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	trigger := func() string {
		t.Helper()
		var sql string
		if err := f.c.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name='docs_ad_2'`).Scan(&sql); err != nil {
			t.Fatal(err)
		}
		return sql
	}
	syncCode()
	if codeHits() != 1 {
		t.Fatal("the code file is not indexed")
	}
	before := trigger()
	if err := f.c.ClearKinds(ctx, KindCode); err != nil {
		t.Fatal(err)
	}
	if n := codeHits(); n != 0 {
		t.Fatalf("%d code hits after clearing", n)
	}
	if got := f.keyword("brown fox", Filter{}); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("memories after clearing code: %v", got)
	}
	if after := trigger(); after != before {
		t.Fatalf("delete trigger changed:\n%s\n%s", before, after)
	}
	for _, fts := range []string{"fts_1", "fts_2"} {
		if _, err := f.c.db.Exec(`INSERT INTO ` + fts + `(` + fts + `) VALUES ('integrity-check')`); err != nil {
			t.Fatalf("%s: %v", fts, err)
		}
	}
	syncCode()
	if codeHits() != 1 {
		t.Fatal("the code file is not indexed again after clearing")
	}
	// The trigger works again: deleting through a sync keeps the index whole.
	if err := os.Remove(filepath.Join(code, "fox.go")); err != nil {
		t.Fatal(err)
	}
	codeFiles = nil
	syncCode()
	if _, err := f.c.db.Exec(`INSERT INTO fts_2(fts_2) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("fts_2 after a delete: %v", err)
	}
}

// DocCount, read from paths and blobs, is the sum of Counts' figures,
// read from the documents, through additions, edits, copies and removals.
func TestDocCountIsTheSumOfCounts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		by, _, err := f.c.Counts(ctx, KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, n := range by {
			want += n
		}
		got, err := f.c.DocCount(ctx, KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: DocCount = %d, Counts sum to %d", step, got, want)
		}
	}
	check("empty")
	f.write("a.md", "fact\nthe quick brown fox")
	f.write("b.md", "decision\nuse a pool")
	f.sync()
	check("two files")
	f.write("c.md", "fact\nthe quick brown fox") // the same content as a.md
	f.write("d.md", "broken\nno documents")
	f.sync()
	check("a copy and a broken file")
	f.write("b.md", "decision\nuse a bigger pool")
	os.Remove(filepath.Join(f.root, "a.md"))
	f.sync()
	check("an edit and a removal")
	if n, _ := f.c.DocCount(ctx, KindMemory); n != 2 {
		t.Fatalf("DocCount = %d, want 2 (b and c)", n)
	}
}

// A filter by type alone is answered from the type index, any other
// filter row by row: both must keep exactly the best matches of the types
// asked, superseded ones excluded, in rank order.
func TestKeywordTypeFilterKeepsTheBestOfThoseTypes(t *testing.T) {
	f := newFixture(t)
	types := []string{"fact", "decision", "procedural"}
	for i := 0; i < 90; i++ {
		f.write(fmt.Sprintf("m%03d.md", i), types[i%3]+"\n"+strings.Repeat("pool ", 1+i%7)+fmt.Sprintf("note %d", i))
	}
	f.sync()
	all := f.keyword("pool", Filter{})
	typeOf := func(mid string) string {
		var n int
		fmt.Sscanf(mid, "m%03d", &n)
		return types[n%3]
	}
	for _, tt := range []struct {
		name  string
		types []string
	}{
		{"one type", []string{"decision"}},
		{"two types", []string{"fact", "procedural"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := f.keyword("pool", Filter{Types: tt.types})
			// The same as ranking with a filter the type index cannot
			// answer alone (every ID: it keeps every row).
			var mids []string
			for i := 0; i < 90; i++ {
				mids = append(mids, fmt.Sprintf("m%03d", i))
			}
			rowByRow := f.keyword("pool", Filter{Types: tt.types, MIDs: mids})
			if !slices.Equal(got, rowByRow) {
				t.Fatalf("type index %v, row by row %v", got, rowByRow)
			}
			if len(got) != 10 {
				t.Fatalf("%d results, want 10", len(got))
			}
			for _, mid := range got {
				if !slices.Contains(tt.types, typeOf(mid)) {
					t.Fatalf("%s is a %s", mid, typeOf(mid))
				}
			}
			// In the unfiltered ranking's order.
			var want []string
			for _, mid := range all {
				if slices.Contains(tt.types, typeOf(mid)) {
					want = append(want, mid)
				}
			}
			if len(want) > len(got) {
				want = want[:len(got)]
			}
			if !slices.Equal(got[:len(want)], want) {
				t.Fatalf("order %v, unfiltered ranking gives %v", got, want)
			}
		})
	}
}

// A cache whose files' paths pass SQLite's limit is refused with the
// reason: SQLite's own "unable to open" read as an unwritable cache.
func TestACacheTooDeepForSQLiteSaysSo(t *testing.T) {
	dir := t.TempDir()
	for len(dir) < 520 {
		dir = filepath.Join(dir, strings.Repeat("d", 60))
	}
	_, err := Open(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "SQLite takes at most 511") {
		t.Fatalf("Open of a %d-byte path: %v; want it refused for its length", len(dir), err)
	}
}

// A cache folder whose path holds characters that SQLite's URI filenames
// give a meaning ("?" starts the parameters, "#" ends the name, "%"
// escapes) opens, keeps what is written, and opens again.
func TestOpenInAFolderWithURICharacters(t *testing.T) {
	for _, name := range []string{"c#", "why?", "100%", "a%23b"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name, "cache")
			c, err := Open(context.Background(), dir, embed.NewBuiltin())
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
				t.Fatalf("the database is not where it was asked for: %v", err)
			}
			c, err = Open(context.Background(), dir, embed.NewBuiltin())
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
		})
	}
}

// TestConcurrentOpensOfANewCacheAllSucceed opens a cache that does not
// exist yet from several connections at once, as processes started
// together in a fresh clone do. SQLite answers some of them "database is
// locked" at once, without waiting (turning a new file to WAL mode from
// two connections could deadlock); Open must wait and try again, not
// fail: before it did, about 1 open in 300 failed here.
func TestConcurrentOpensOfANewCacheAllSucceed(t *testing.T) {
	const rounds, openers = 100, 8
	for range rounds {
		dir := filepath.Join(t.TempDir(), "cache")
		var wg sync.WaitGroup
		errs := make(chan error, openers)
		for range openers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := Open(context.Background(), dir, embed.NewBuiltin())
				if err != nil {
					errs <- err
					return
				}
				c.Close()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}
