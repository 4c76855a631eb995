package contextfs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// damageFixture is a repository of memories whose cache is damaged, one
// kind of damage at a time, and the answers a freshly rebuilt cache gives.
type damageFixture struct {
	dir    string
	bodies []string // the memories' bodies, as the cache stores them
	want   string   // answers of a fresh rebuild
}

var damageQueries = []Query{
	{Text: "connection pool retries", Mode: ModeKeyword},
	{Text: "giraffe migration", Mode: ModeKeyword},
	{Text: "how do we shard the queue", Mode: ModeSemantic},
	{Text: "upload token expiry", Mode: ModeHybrid},
	{Text: "zebra41 cache", Mode: ModeHybrid},
}

// answers is everything the damage test compares: each query's IDs and
// scores, and the listing.
func answers(ctx context.Context, s *Store) (string, error) {
	var b strings.Builder
	for _, q := range damageQueries {
		res, err := s.Search(ctx, q)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s/%s:", q.Mode, q.Text)
		for _, r := range res {
			fmt.Fprintf(&b, " %s=%.4f", r.ID, r.Score)
		}
		b.WriteString("\n")
	}
	es, err := s.List(ctx, ListOptions{})
	if err != nil {
		return "", err
	}
	b.WriteString("list:")
	for _, e := range es {
		fmt.Fprintf(&b, " %s/%s/%s", e.ID, e.Type, e.Title)
	}
	return b.String(), nil
}

func newDamageFixture(t *testing.T) *damageFixture {
	testgit.Isolate(t)
	f := &damageFixture{dir: testgit.Init(t)}
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("connection pool retries giraffe migration shard queue upload token expiry cache lock index vector branch merge review session deploy rollback schema latency")
	types := []string{"fact", "decision", "error", "procedural"}
	for i := range 24 {
		var body strings.Builder
		fmt.Fprintf(&body, "Note zebra%d about", i)
		for range 30 + r.IntN(30) {
			body.WriteString(" " + words[r.IntN(len(words))])
		}
		body.WriteString(".")
		f.bodies = append(f.bodies, body.String())
		if _, err := s.Save(ctx, SaveRequest{Type: types[i%len(types)], Title: fmt.Sprintf("Memory %d on %s", i, words[i%len(words)]), Body: body.String()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if f.want, err = answers(ctx, s); err != nil {
		t.Fatal(err)
	}
	return f
}

// fresh rebuilds the cache and leaves it closed, its log folded into the
// database file, so that damage to the file's bytes is damage to the data.
func (f *damageFixture) fresh(t *testing.T) string {
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	dir := s.CacheDir()
	s.Close()
	db := openRaw(t, dir)
	// No free pages: a byte changed is a byte of live data.
	for _, q := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	return dir
}

func openRaw(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(dir, cache.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// sqlDamage changes the cache through SQL, as another program would.
func sqlDamage(stmts ...string) func(t *testing.T, f *damageFixture, dir string) {
	return func(t *testing.T, f *damageFixture, dir string) {
		db := openRaw(t, dir)
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
	}
}

// ftsRow is the full-text row of the memory with the given body.
const ftsRow = `(SELECT rowid FROM docs WHERE kind=1 AND body LIKE 'Note zebra5 about%')`

// bytesDamage changes the database file's bytes.
func bytesDamage(change func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte) func(t *testing.T, f *damageFixture, dir string) {
	return func(t *testing.T, f *damageFixture, dir string) {
		p := filepath.Join(dir, cache.DBFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pageSize := int(binary.BigEndian.Uint16(b[16:18]))
		if pageSize == 1 {
			pageSize = 65536
		}
		b = change(t, f, b, pageSize)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func flip(b []byte, off int, r *rand.Rand) { b[off] ^= byte(1 + r.IntN(255)) }

// flipInBody flips a byte inside a memory's body text as the file holds it.
func flipInBody(seed uint64) func(t *testing.T, f *damageFixture, b []byte, _ int) []byte {
	return func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
		r := rand.New(rand.NewPCG(seed, 1))
		body := f.bodies[r.IntN(len(f.bodies))]
		i := liveIndex(b, []byte(body), pageSize)
		if i < 0 {
			t.Fatalf("body %q not in the file", body[:20])
		}
		flip(b, i+r.IntN(len(body)), r)
		return b
	}
}

// liveIndex is the offset of needle in a cell of a leaf table page of b,
// -1 if none: SQLite leaves old bytes in the unused middle of a page, and
// changing them is no damage.
func liveIndex(b, needle []byte, pageSize int) int {
	for from := 0; ; {
		i := bytes.Index(b[from:], needle)
		if i < 0 {
			return -1
		}
		i += from
		p := i / pageSize * pageSize
		if b[p] == 13 && i-p >= int(binary.BigEndian.Uint16(b[p+5:p+7])) {
			return i
		}
		from = i + 1
	}
}

// flipInVector flips a byte of a stored vector.
func flipInVector(seed uint64) func(t *testing.T, f *damageFixture, b []byte, _ int) []byte {
	return func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
		r := rand.New(rand.NewPCG(seed, 2))
		tmp := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite3", tmp)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var vec []byte
		if err := db.QueryRow(`SELECT vec FROM vectors ORDER BY rowid LIMIT 1 OFFSET ?`, r.IntN(20)).Scan(&vec); err != nil {
			t.Fatal(err)
		}
		i := liveIndex(b, vec[:64], pageSize)
		if i < 0 {
			t.Fatal("vector not in the file")
		}
		flip(b, i+r.IntN(64), r)
		return b
	}
}

// btreePages lists the pages of b that hold a b-tree page (not page 1).
func btreePages(b []byte, pageSize int) []int {
	var out []int
	for p := 1; (p+1)*pageSize <= len(b); p++ {
		switch b[p*pageSize] {
		case 2, 5, 10, 13:
			out = append(out, p)
		}
	}
	return out
}

// flipInPageHeader flips a byte of a random b-tree page's header or cell
// pointers: its structure.
func flipInPageHeader(seed uint64) func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
	return func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
		r := rand.New(rand.NewPCG(seed, 3))
		pages := btreePages(b, pageSize)
		p := pages[r.IntN(len(pages))] * pageSize
		hdr := 8
		if b[p] == 2 || b[p] == 5 {
			hdr = 12
		}
		n := int(binary.BigEndian.Uint16(b[p+3 : p+5]))
		flip(b, p+r.IntN(hdr+2*n), r)
		return b
	}
}

// flipInCells flips a byte at a random offset in the cells (keys and
// values) of a random b-tree page.
func flipInCells(seed uint64) func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
	return func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
		r := rand.New(rand.NewPCG(seed, 4))
		var pages []int
		for _, p := range btreePages(b, pageSize) {
			if binary.BigEndian.Uint16(b[p*pageSize+3:p*pageSize+5]) > 0 {
				pages = append(pages, p)
			}
		}
		p := pages[r.IntN(len(pages))] * pageSize
		start := int(binary.BigEndian.Uint16(b[p+5 : p+7]))
		flip(b, p+start+r.IntN(pageSize-start), r)
		return b
	}
}

// overwritePage overwrites the root page of table name with filler.
func overwritePage(name string, filler byte) func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
	return func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
		tmp := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite3", tmp)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var root int
		if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name=?`, name).Scan(&root); err != nil {
			t.Fatal(err)
		}
		copy(b[(root-1)*pageSize:root*pageSize], bytes.Repeat([]byte{filler}, pageSize))
		return b
	}
}

func truncateTo(frac float64, minusPages int) func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
	return func(t *testing.T, f *damageFixture, b []byte, pageSize int) []byte {
		n := int(float64(len(b)) * frac)
		n = n/pageSize*pageSize - minusPages*pageSize
		return b[:max(n, 0)]
	}
}

// TestEveryKindOfCacheDamageIsAnsweredLikeARebuild damages the cache in
// 50 ways (full-text rows deleted, altered and added, rows of the tables
// changed, the schema changed, the file truncated, pages overwritten,
// bytes flipped at seeded random offsets) and checks that doctor fails on
// each, and that search and list then answer exactly as a freshly rebuilt
// cache does, or with a clear error. Before the full check (Verify) and
// Guard, 7 in 30 random flips and every deleted full-text row were
// answered wrongly while status and doctor said ok.
func TestEveryKindOfCacheDamageIsAnsweredLikeARebuild(t *testing.T) {
	f := newDamageFixture(t)
	type damage = func(t *testing.T, f *damageFixture, dir string)
	cases := []struct {
		name   string
		damage damage
	}{
		{"a full-text row deleted", sqlDamage(`INSERT INTO fts_1(fts_1, rowid, title, tags, body) SELECT 'delete', rowid, title, tags, body FROM docs WHERE rowid=` + ftsRow)},
		{"a full-text row's body altered", sqlDamage(
			`INSERT INTO fts_1(fts_1, rowid, title, tags, body) SELECT 'delete', rowid, title, tags, body FROM docs WHERE rowid=`+ftsRow,
			`INSERT INTO fts_1(rowid, title, tags, body) SELECT rowid, title, tags, 'giraffe giraffe migration' FROM docs WHERE rowid=`+ftsRow)},
		{"a full-text row's title altered", sqlDamage(
			`INSERT INTO fts_1(fts_1, rowid, title, tags, body) SELECT 'delete', rowid, title, tags, body FROM docs WHERE rowid=`+ftsRow,
			`INSERT INTO fts_1(rowid, title, tags, body) SELECT rowid, 'connection pool', tags, body FROM docs WHERE rowid=`+ftsRow)},
		{"a full-text row added", sqlDamage(`INSERT INTO fts_1(rowid, title, tags, body) VALUES (99999, 'giraffe', '', 'giraffe migration')`)},
		{"the full-text index emptied", sqlDamage(`INSERT INTO fts_1(fts_1) VALUES ('delete-all')`)},
		{"a body altered", sqlDamage(`UPDATE docs SET body='giraffe migration giraffe' WHERE rowid=` + ftsRow)},
		{"a title altered", sqlDamage(`UPDATE docs SET title='Something else' WHERE rowid=` + ftsRow)},
		{"an ID altered", sqlDamage(`UPDATE docs SET mid='zzzzzzzzzzzz' WHERE rowid=` + ftsRow)},
		{"a type altered", sqlDamage(`UPDATE docs SET type='todo' WHERE rowid=` + ftsRow)},
		{"tags altered", sqlDamage(`UPDATE docs SET tags=' secret ' WHERE rowid=` + ftsRow)},
		{"a summary altered", sqlDamage(`UPDATE docs SET summary='wrong' WHERE rowid=` + ftsRow)},
		{"a vector hash altered", sqlDamage(`UPDATE docs SET vhash='0000' WHERE rowid=` + ftsRow)},
		{"a document row deleted", sqlDamage(`DELETE FROM docs WHERE rowid=` + ftsRow)},
		{"a vector deleted", sqlDamage(`DELETE FROM vectors WHERE rowid=(SELECT min(rowid) FROM vectors)`)},
		{"a vector altered", sqlDamage(`UPDATE vectors SET vec=zeroblob(length(vec)) WHERE rowid=(SELECT min(rowid) FROM vectors)`)},
		{"every vector deleted", sqlDamage(`DELETE FROM vectors`)},
		{"the schema version garbled", sqlDamage(`UPDATE meta SET value='2x' WHERE key='schema'`)},
		{"the schema version deleted", sqlDamage(`DELETE FROM meta WHERE key='schema'`)},
		{"the database id garbled", sqlDamage(`UPDATE meta SET value='nothex' WHERE key='dbid'`)},
		{"a generation garbled", sqlDamage(`UPDATE meta SET value='x7' WHERE key='gen:1'`)},
		{"a generation behind the change log", sqlDamage(`UPDATE meta SET value='0' WHERE key='gen:1'`)},
		{"the delete trigger dropped", sqlDamage(`DROP TRIGGER docs_ad_1`)},
		{"an index dropped", sqlDamage(`DROP INDEX docs_mlist`)},
		{"the vectors table dropped", sqlDamage(`DROP TABLE vectors`)},
		{"the documents table dropped", sqlDamage(`DROP TABLE docs`)},
		{"a column added", sqlDamage(`ALTER TABLE docs ADD COLUMN extra TEXT`)},
		{"the file truncated to half", bytesDamage(truncateTo(0.5, 0))},
		{"the last page cut off", bytesDamage(truncateTo(1, 1))},
		{"the file emptied", bytesDamage(truncateTo(0, 0))},
		{"the file header overwritten", bytesDamage(func(_ *testing.T, _ *damageFixture, b []byte, _ int) []byte {
			copy(b[:100], bytes.Repeat([]byte{0x5a}, 100))
			return b
		})},
		{"the documents table's root page overwritten", bytesDamage(overwritePage("docs", 0xab))},
		{"the full-text data's root page zeroed", bytesDamage(overwritePage("fts_1_data", 0))},
		{"the vectors table's root page overwritten", bytesDamage(overwritePage("vectors", 0x11))},
		{"the documents index's root page zeroed", bytesDamage(overwritePage("docs_mlist", 0))},
	}
	for seed := range uint64(6) {
		cases = append(cases, struct {
			name   string
			damage damage
		}{fmt.Sprintf("a byte flipped in a body (seed %d)", seed), bytesDamage(flipInBody(seed))})
	}
	for seed := range uint64(3) {
		cases = append(cases, struct {
			name   string
			damage damage
		}{fmt.Sprintf("a byte flipped in a vector (seed %d)", seed), bytesDamage(flipInVector(seed))})
	}
	for seed := range uint64(4) {
		cases = append(cases, struct {
			name   string
			damage damage
		}{fmt.Sprintf("a byte flipped in a page header (seed %d)", seed), bytesDamage(flipInPageHeader(seed))})
	}
	for seed := range uint64(3) {
		cases = append(cases, struct {
			name   string
			damage damage
		}{fmt.Sprintf("a byte flipped in a page's cells (seed %d)", seed), bytesDamage(flipInCells(seed))})
	}
	if len(cases) != 50 {
		t.Fatalf("%d kinds of damage, want 50", len(cases))
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []string{"doctor", "reads"} {
				dir := f.fresh(t)
				tc.damage(t, f, dir)
				if step == "doctor" {
					repo, err := gitstore.Discover(f.dir)
					if err != nil {
						t.Fatal(err)
					}
					r, err := Doctor(ctx, repo, DoctorOptions{})
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range r.Checks {
						if c.Name == "cache" && c.OK {
							t.Errorf("doctor says the cache is ok: %s", c.Message)
						}
					}
					continue
				}
				var notes bytes.Buffer
				s, err := Open(ctx, Options{Dir: f.dir, Notices: &notes})
				if err != nil {
					if !strings.Contains(err.Error(), "cache") {
						t.Errorf("open failed without naming the cache: %v", err)
					}
					continue
				}
				got, err := answers(ctx, s)
				s.Close()
				switch {
				case err != nil && !strings.Contains(err.Error(), "cache"):
					t.Errorf("an error that does not name the cache: %v", err)
				case err == nil && got != f.want:
					t.Errorf("answers differ from a rebuild's (notices %q):\n got %s\nwant %s", notes.String(), got, f.want)
				}
			}
		})
	}
}
