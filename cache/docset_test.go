package cache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

// truth is what a docSet must hold, read straight from the tables: every
// current document's length (from FTS5's docsize) and unit vector.
type truth struct {
	lens map[int64]uint32
	vecs map[int64][]float32
}

func groundTruth(t *testing.T, c *Cache, kind Kind) truth {
	t.Helper()
	ctx := context.Background()
	rs, err := c.db.QueryContext(ctx, `SELECT d.rowid, s.sz, v.vec FROM docs d JOIN `+FTSTable(kind)+`_docsize s ON s.id=d.rowid
		LEFT JOIN vectors v ON v.model=? AND v.hash=d.vhash
		WHERE d.kind=? AND EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src AND p.kind=d.kind)`, c.emb.Model(), int(kind))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	tr := truth{lens: map[int64]uint32{}, vecs: map[int64][]float32{}}
	for rs.Next() {
		var row int64
		var sz, vec []byte
		if err := rs.Scan(&row, &sz, &vec); err != nil {
			t.Fatal(err)
		}
		tr.lens[row] = docLength(sz)
		v := make([]float32, len(vec)/4)
		for i := range v {
			v[i] = math.Float32frombits(uint32(vec[4*i]) | uint32(vec[4*i+1])<<8 | uint32(vec[4*i+2])<<16 | uint32(vec[4*i+3])<<24)
		}
		normalize(v)
		tr.vecs[row] = v
	}
	return tr
}

// checkDocSet loads kind's docSet through a new Cache on the same files,
// as another process would, and compares it with the tables.
func checkDocSet(t *testing.T, c *Cache, kind Kind) *docSet {
	t.Helper()
	c2, err := Open(context.Background(), c.Dir(), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c2.Close() })
	ds, err := c2.docs(context.Background(), kind)
	if err != nil {
		t.Fatal(err)
	}
	compareDocSet(t, c2, ds, kind)
	return ds
}

// compareDocSet compares c's docSet ds of kind with the tables.
func compareDocSet(t *testing.T, c *Cache, ds *docSet, kind Kind) {
	t.Helper()
	tr := groundTruth(t, c, kind)
	if len(ds.rows) != len(tr.lens) {
		t.Fatalf("docSet has %d rows, the tables %d", len(ds.rows), len(tr.lens))
	}
	var total float64
	for i, r := range ds.rows {
		if l, ok := tr.lens[r]; !ok || l != ds.lens[i] {
			t.Fatalf("row %d: length %d, want %d (current %v)", r, ds.lens[i], l, ok)
		}
		total += float64(ds.lens[i])
		v := ds.vector(r)
		if v == nil || !slices.Equal(v, tr.vecs[r]) {
			t.Fatalf("row %d: vector differs from the table's", r)
		}
	}
	if want := total / float64(len(ds.rows)); len(ds.rows) > 0 && math.Abs(ds.avgdl-want) > 1e-9 {
		t.Fatalf("avgdl %v, want %v", ds.avgdl, want)
	}
}

// TestLongLivedCacheMapsABaseFileOnce follows changes in one Cache, as a
// watcher or an MCP server does: each generation's docSet is right, and
// they share one mapping of the base file until it is replaced.
func TestLongLivedCacheMapsABaseFileOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	r := rand.New(rand.NewPCG(2, 2))
	corpus(f, r, 200, 0)
	f.sync()
	checkDocSet(t, f.c, KindMemory) // writes the base file
	next := func(name string) *docSet {
		t.Helper()
		f.write(name, "fact\nwords of a memory written later "+name)
		f.sync()
		ds, err := f.c.docs(ctx, KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		compareDocSet(t, f.c, ds, KindMemory)
		return ds
	}
	first := next("a.md")
	if first.file == nil {
		t.Fatal("the base file is not mapped")
	}
	for _, name := range []string{"b.md", "c.md"} {
		if ds := next(name); ds.file != first.file {
			t.Fatalf("after %s: the unchanged base file was mapped again", name)
		}
	}
	corpus(f, r, compactAt(200)+10, 1000)
	f.sync()
	if _, err := f.c.docs(ctx, KindMemory); err != nil { // compacts: a new base file
		t.Fatal(err)
	}
	if ds := next("d.md"); ds.file == first.file || ds.baseID == first.baseID {
		t.Fatal("a replaced base file is still served from the old mapping")
	}
}

// corpus writes n memories of random words from a small vocabulary with a
// few very common words, as the fixture's "type\nbody" files.
func corpus(f *fixture, r *rand.Rand, n int, from int) {
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega pool cache retry upload token shard lock queue")
	for i := from; i < from+n; i++ {
		var b strings.Builder
		if r.IntN(10) < 9 {
			b.WriteString("service ") // in about 90% of documents
		}
		for j := 0; j < 3+r.IntN(12); j++ {
			b.WriteString(words[int(float64(len(words))*math.Pow(r.Float64(), 2))] + " ")
		}
		f.write(fmt.Sprintf("m%04d.md", i), []string{"fact", "decision", "error"}[r.IntN(3)]+"\n"+b.String())
	}
}

func TestDocSetFollowsEveryKindOfChange(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(1, 1))
	corpus(f, r, 200, 0)
	f.sync()
	ds := checkDocSet(t, f.c, KindMemory)
	base, err := os.ReadFile(f.c.docSetPath(KindMemory, "base"))
	if err != nil {
		t.Fatalf("no base file: %v", err)
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"a new file", func() { f.write("new.md", "fact\nbrand new words here") }},
		{"an edited file", func() { f.write("m0001.md", "fact\nedited body entirely") }},
		{"a deleted file", func() { os.Remove(filepath.Join(f.root, "m0002.md")) }},
		{"a second file with the same content", func() {
			raw, _ := os.ReadFile(filepath.Join(f.root, "m0003.md"))
			f.write("copy.md", string(raw))
		}},
		{"one of two identical files deleted", func() { os.Remove(filepath.Join(f.root, "m0003.md")) }},
		{"an edit undone: old content current again", func() {
			raw, _ := os.ReadFile(filepath.Join(f.root, "m0004.md"))
			f.write("m0004.md", "fact\ntemporary")
			f.sync()
			checkDocSet(t, f.c, KindMemory)
			f.write("m0004.md", string(raw))
		}},
		{"a file that no longer parses", func() { f.write("m0005.md", "broken\nnot a memory") }},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.change()
			f.sync()
			got := checkDocSet(t, f.c, KindMemory)
			if got.baseID != ds.baseID {
				t.Fatalf("a small change rewrote the base file")
			}
		})
	}
	after, _ := os.ReadFile(f.c.docSetPath(KindMemory, "base"))
	if string(after) != string(base) {
		t.Fatal("the base file changed for changes the delta should hold")
	}
	if _, err := os.Stat(f.c.docSetPath(KindMemory, "delta")); err != nil {
		t.Fatalf("no delta file: %v", err)
	}
	t.Run("many changes fold the delta into a new base", func(t *testing.T) {
		corpus(f, r, compactAt(200)+10, 1000)
		f.sync()
		// The process that compacts keeps the old layout; the next one
		// reads the new base.
		checkDocSet(t, f.c, KindMemory)
		if got := checkDocSet(t, f.c, KindMemory); got.baseID == ds.baseID {
			t.Fatal("no compaction after more changes than compactAt allows")
		}
	})
}

func TestDocSetFilesThatCannotBeTrustedAreRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(c *Cache)
	}{
		{"a truncated base", func(c *Cache) { os.Truncate(c.docSetPath(KindMemory, "base"), 100) }},
		{"a base of garbage", func(c *Cache) {
			os.WriteFile(c.docSetPath(KindMemory, "base"), []byte(strings.Repeat("x", 4096)), 0o644)
		}},
		{"a truncated delta", func(c *Cache) { os.Truncate(c.docSetPath(KindMemory, "delta"), 70) }},
		{"a delta of another base", func(c *Cache) {
			b, _ := os.ReadFile(c.docSetPath(KindMemory, "delta"))
			b[30] ^= 0xff
			os.WriteFile(c.docSetPath(KindMemory, "delta"), b, 0o644)
		}},
		{"files of another database", func(c *Cache) {
			for _, ext := range []string{"base", "delta"} {
				b, _ := os.ReadFile(c.docSetPath(KindMemory, ext))
				b[10] ^= 0xff
				os.WriteFile(c.docSetPath(KindMemory, ext), b, 0o644)
			}
		}},
		{"a flipped bit inside the base's vectors", func(c *Cache) {
			b, _ := os.ReadFile(c.docSetPath(KindMemory, "base"))
			b[len(b)-64] ^= 0x40
			os.WriteFile(c.docSetPath(KindMemory, "base"), b, 0o644)
		}},
		{"a flipped bit inside the delta's vectors", func(c *Cache) {
			b, _ := os.ReadFile(c.docSetPath(KindMemory, "delta"))
			b[len(b)-64] ^= 0x40
			os.WriteFile(c.docSetPath(KindMemory, "delta"), b, 0o644)
		}},
		{"no files at all", func(c *Cache) {
			os.Remove(c.docSetPath(KindMemory, "base"))
			os.Remove(c.docSetPath(KindMemory, "delta"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			corpus(f, rand.New(rand.NewPCG(2, 2)), 120, 0)
			f.sync()
			checkDocSet(t, f.c, KindMemory)
			f.write("extra.md", "fact\nsomething added after the base")
			f.sync()
			checkDocSet(t, f.c, KindMemory) // writes the delta
			tt.damage(f.c)
			checkDocSet(t, f.c, KindMemory)
		})
	}
}

// bm25Top is the ranking Keyword must reproduce, by FTS5's own bm25():
// valid when the index holds only current documents.
func bm25Top(t *testing.T, c *Cache, words []string, k int) []Hit {
	t.Helper()
	rs, err := c.db.Query(`SELECT rowid, -bm25(fts_1, `+BM25Weights+`) AS s FROM fts_1 WHERE fts_1 MATCH ? ORDER BY s DESC, rowid LIMIT ?`,
		joinWords(words), k)
	hits, err := scanHits(rs, err)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestKeywordScoresAsFTS5BM25(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(3, 3))
	corpus(f, r, 300, 0)
	f.sync()
	ctx := context.Background()
	ds, err := f.c.docs(ctx, KindMemory)
	if err != nil {
		t.Fatal(err)
	}
	if !ds.common["servic"] {
		t.Fatalf("a word in 90%% of documents is not listed as common: %v", ds.common)
	}
	queries := []string{"alpha", "pool cache", "omega psi chi", "service pool", "retry upload token shard lock queue", "nothingmatches", "service"}
	for i := 0; i < 30; i++ {
		w := strings.Fields("alpha beta gamma delta pool cache retry upload token omega psi service")
		queries = append(queries, strings.Join(w[i%12:min(12, i%12+1+r.IntN(3))], " "))
	}
	for _, q := range queries {
		got, err := f.c.Keyword(ctx, KindMemory, q, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := bm25Top(t, f.c, ds.rankedWords(q), 10)
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, bm25() %d", q, len(got), len(want))
		}
		for i := range got {
			if got[i].Row != want[i].Row || math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
				t.Fatalf("%q: hit %d is %+v, bm25() says %+v", q, i, got[i], want[i])
			}
		}
	}
}

func TestWordsInMostDocumentsCarryNoWeight(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(4, 4)), 300, 0)
	f.sync()
	ctx := context.Background()
	both, _ := f.c.Keyword(ctx, KindMemory, "service pool", Filter{}, 10)
	pool, _ := f.c.Keyword(ctx, KindMemory, "pool", Filter{}, 10)
	if len(both) == 0 || !slices.Equal(both, pool) {
		t.Fatalf("'service pool' ranks %v, 'pool' %v: the common word should not count", both, pool)
	}
	if only, _ := f.c.Keyword(ctx, KindMemory, "service", Filter{}, 10); len(only) != 10 {
		t.Fatalf("a query of common words alone found %d, want 10", len(only))
	}
}

func TestAQueryOfCommonWordsRanksByAllItsWords(t *testing.T) {
	f := newFixture(t)
	// "alpha" and "beta" are in every document, "gamma" in a few; "should"
	// (a stop word) only in "target", whose common words are rarer than
	// in "repeats", of the same length.
	for i := range 100 {
		body := fmt.Sprintf("alpha beta filler%d filler%d filler%d filler%d", i, i, i, i)
		if i%10 == 0 {
			body += " gamma"
		}
		f.write(fmt.Sprintf("m%04d.md", i), "fact\n"+body)
	}
	f.write("repeats.md", "fact\nalpha beta alpha beta alpha beta")
	f.write("target.md", "fact\nalpha beta should should should should")
	f.sync()
	tests := []struct {
		name, query string
		words       []string // what bm25() is run with
		first       string
	}{
		{"every word common: the stop words rank too", "alpha should beta", []string{"alpha", "should", "beta"}, "target"},
		{"one word not common: it alone ranks", "alpha should beta gamma", []string{"gamma"}, "m0000"},
		{"stop words alone rank", "should", []string{"should"}, "target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := f.keyword(tt.query, Filter{})
			if len(got) == 0 || got[0] != tt.first {
				t.Fatalf("%q ranks %v, want %s first", tt.query, got, tt.first)
			}
			hits, err := f.c.Keyword(context.Background(), KindMemory, tt.query, Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := bm25Top(t, f.c, tt.words, 10)
			if len(hits) != len(want) {
				t.Fatalf("%q: %d hits, bm25() over %v %d", tt.query, len(hits), tt.words, len(want))
			}
			for i := range hits {
				if hits[i].Row != want[i].Row || math.Abs(hits[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
					t.Fatalf("%q: hit %d is %+v, bm25() over %v says %+v", tt.query, i, hits[i], tt.words, want[i])
				}
			}
		})
	}
}

func TestKeywordStatisticsIgnoreOldVersions(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(5, 5))
	corpus(f, r, 150, 0)
	f.sync()
	// Rewrite a third of the files: their old versions stay in the index.
	for i := 0; i < 150; i += 3 {
		f.write(fmt.Sprintf("m%04d.md", i), "fact\nretry pool rewritten "+strings.Repeat("alpha ", i%7))
	}
	f.sync()
	fresh := newFixture(t)
	fresh.root = f.root
	fresh.sync()
	// Rows are numbered in indexing order, so equal scores may come in
	// another order; the API breaks such ties by ID.
	ranked := func(f *fixture, q string) []string {
		hits, err := f.c.Keyword(context.Background(), KindMemory, q, Filter{}, 300)
		if err != nil {
			t.Fatal(err)
		}
		var rows []int64
		for _, h := range hits {
			rows = append(rows, h.Row)
		}
		byRow, _ := f.c.Rows(context.Background(), rows)
		var out []string
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%.12f %s", h.Score, byRow[h.Row].MID))
		}
		slices.SortFunc(out, func(a, b string) int { return -strings.Compare(a, b) })
		return out
	}
	for _, q := range []string{"alpha", "retry pool", "omega beta", "rewritten"} {
		if a, b := ranked(f, q), ranked(fresh, q); !slices.Equal(a, b) {
			t.Fatalf("%q: cache with history ranks\n%v\na fresh one\n%v", q, a, b)
		}
	}
}

// The keyword ranker finds each matching row's position by an index of
// rowids where they are dense and by search where they are not (most
// documents deleted): both must rank alike, with and without a type
// filter, query after query (the working arrays are reused).
func TestKeywordRanksAlikeWithSparseRowids(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(6, 6)), 2600, 0)
	f.sync()
	for i := 0; i < 2600; i++ {
		if i%13 != 0 {
			os.Remove(filepath.Join(f.root, fmt.Sprintf("m%04d.md", i)))
		}
	}
	f.sync()
	fresh := newFixture(t)
	fresh.root = f.root
	fresh.sync()
	ctx := context.Background()
	ranked := func(f *fixture, q string, flt Filter) []string {
		hits, err := f.c.Keyword(ctx, KindMemory, q, flt, 300)
		if err != nil {
			t.Fatal(err)
		}
		var rows []int64
		for _, h := range hits {
			rows = append(rows, h.Row)
		}
		byRow, _ := f.c.Rows(ctx, rows)
		var out []string
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%.12f %s", h.Score, byRow[h.Row].MID))
		}
		slices.SortFunc(out, func(a, b string) int { return -strings.Compare(a, b) })
		return out
	}
	for _, q := range []string{"alpha", "retry pool", "omega beta", "cache token upload", "alpha"} {
		for _, flt := range []Filter{{}, {Types: []string{"decision"}}, {Types: []string{"fact", "error"}}} {
			a, b := ranked(f, q, flt), ranked(fresh, q, flt)
			if len(a) == 0 || !slices.Equal(a, b) {
				t.Fatalf("%q %v: sparse rowids rank (%d)\n%v\ndense ones (%d)\n%v", q, flt.Types, len(a), a, len(b), b)
			}
		}
	}
	for _, tt := range []struct {
		f    *fixture
		want string
	}{{f, "search"}, {fresh, "index"}} {
		ds, err := tt.f.c.docs(ctx, KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		if got := ds.rank.lookup(); got != tt.want {
			t.Errorf("rows found by %q, want %q", got, tt.want)
		}
	}
}

// cosineTop is the exact semantic ranking by brute force over the tables.
func cosineTop(t *testing.T, c *Cache, q []float32, k int, skip map[int64]bool) []int64 {
	t.Helper()
	tr := groundTruth(t, c, KindMemory)
	var hits []Hit
	for r, v := range tr.vecs {
		if !skip[r] && len(v) == len(q) {
			hits = append(hits, Hit{Row: r, Score: float64(dot(q, v))})
		}
	}
	sortHits(hits)
	var out []int64
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.Row)
	}
	return out
}

func TestSemanticIsExactWhateverPathServesIt(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(6, 6))
	corpus(f, r, 400, 0)
	f.sync()
	ctx := context.Background()
	emb := embed.NewBuiltin()
	check := func(t *testing.T, label string) {
		t.Helper()
		for _, q := range []string{"pool cache retry", "omega", "service token shard"} {
			v, _ := emb.Embed(ctx, []string{q})
			hits, err := f.c.Semantic(ctx, KindMemory, v[0], Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			unit := slices.Clone(v[0])
			normalize(unit)
			want := cosineTop(t, f.c, unit, 10, nil)
			var got []int64
			for _, h := range hits {
				got = append(got, h.Row)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %q: got %v, brute force %v", label, q, got, want)
			}
		}
	}
	check(t, "first search (scan of the mapped file)")
	check(t, "second search")
	// Deletions make dead base rows; additions fill the delta.
	for i := 0; i < 40; i++ {
		os.Remove(filepath.Join(f.root, fmt.Sprintf("m%04d.md", i)))
	}
	corpus(f, r, 20, 5000)
	f.sync()
	check(t, "after changes, the old base plus the delta")
}

func TestConcurrentSearchesWhileSyncing(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(7, 7))
	corpus(f, r, 150, 0)
	f.sync()
	ctx := context.Background()
	v, _ := embed.NewBuiltin().Embed(ctx, []string{"pool cache"})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := f.c.Keyword(ctx, KindMemory, "pool cache retry", Filter{}, 10); err != nil {
					errs <- err
					return
				}
				if _, err := f.c.Semantic(ctx, KindMemory, v[0], Filter{}, 10); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 10; i++ {
		corpus(f, r, 5, 2000+10*i)
		os.Remove(filepath.Join(f.root, fmt.Sprintf("m%04d.md", i)))
		f.sync()
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkDocSet(t, f.c, KindMemory)
}

// The keyword ranker's working arrays are kept per process and shared by
// every cache and query (cfs_topk's scratch pool): queries running at
// once, on two caches of different sizes, with and without a type filter,
// must each rank as they do alone.
func TestConcurrentKeywordQueriesRankAsAlone(t *testing.T) {
	ctx := context.Background()
	small, large := newFixture(t), newFixture(t)
	corpus(small, rand.New(rand.NewPCG(10, 10)), 300, 0)
	corpus(large, rand.New(rand.NewPCG(11, 11)), 1500, 0)
	small.sync()
	large.sync()
	type query struct {
		f   *fixture
		q   string
		flt Filter
	}
	var qs []query
	for _, f := range []*fixture{small, large} {
		for _, q := range []string{"alpha", "retry pool", "omega beta", "cache token upload", "lock queue shard"} {
			for _, flt := range []Filter{{}, {Types: []string{"decision"}}, {Types: []string{"fact", "error"}}} {
				qs = append(qs, query{f, q, flt})
			}
		}
	}
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		hits, err := q.f.c.Keyword(ctx, KindMemory, q.q, q.flt, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatalf("%q %v: no hits", q.q, q.flt.Types)
		}
		want[i] = hits
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 6 {
		wg.Go(func() {
			for round := range 20 {
				i := (g*7 + round*5) % len(qs)
				got, err := qs[i].f.c.Keyword(ctx, KindMemory, qs[i].q, qs[i].flt, 50)
				if err != nil {
					errs <- err.Error()
					return
				}
				if !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("%q %v at once with others: %v, alone: %v", qs[i].q, qs[i].flt.Types, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// FuzzDocSetFiles feeds damaged base and delta files to a cache: loading
// must never panic, and whatever it accepts must be a consistent set.
func FuzzDocSetFiles(f *testing.F) {
	fx := newFixture(f)
	c := fx.c
	corpus(fx, rand.New(rand.NewPCG(8, 8)), 20, 0)
	if _, err := c.SyncFiles(context.Background(), KindMemory, fx.root, fx.entries(), analyze); err != nil {
		f.Fatal(err)
	}
	if _, err := c.docs(context.Background(), KindMemory); err != nil {
		f.Fatal(err)
	}
	base, _ := os.ReadFile(c.docSetPath(KindMemory, "base"))
	f.Add(base, []byte(nil))
	f.Add(base[:len(base)/2], []byte(deltaMagic+strings.Repeat("\xff", 80)))
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		os.WriteFile(c.docSetPath(KindMemory, "base"), base, 0o644)
		os.WriteFile(c.docSetPath(KindMemory, "delta"), delta, 0o644)
		c.docsMu.Lock()
		delete(c.sets, KindMemory)
		c.docsMu.Unlock()
		ds, err := c.docs(context.Background(), KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.lens) != len(ds.rows) || !slices.IsSorted(ds.rows) || math.IsNaN(ds.avgdl) {
			t.Fatalf("inconsistent docSet accepted: %d rows, %d lengths", len(ds.rows), len(ds.lens))
		}
		for _, r := range ds.rows {
			if v := ds.vector(r); len(v) != ds.dim {
				t.Fatalf("row %d: vector of %d, dim %d", r, len(v), ds.dim)
			}
		}
	})
}

func scanHits(rs interface {
	Next() bool
	Scan(...any) error
	Close() error
}, err error) ([]Hit, error) {
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []Hit
	for rs.Next() {
		var h Hit
		if err := rs.Scan(&h.Row, &h.Score); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// TestDamagedVectorsAreReportedAndRebuilt flips one bit in the vectors of
// a base file, which changes no structure: the checksum catches it, the
// cache says so and answers from a rebuild. The file had been verified
// before (its note written), so this also shows that a note does not
// outlive a write to the file.
func TestDamagedVectorsAreReportedAndRebuilt(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(3, 3)), 60, 0)
	f.sync()
	checkDocSet(t, f.c, KindMemory)
	c1, err := Open(context.Background(), f.c.Dir(), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c1.docs(context.Background(), KindMemory); err != nil {
		t.Fatal(err)
	}
	c1.Close()
	if _, err := os.Stat(f.c.docSetPath(KindMemory, "base") + verifiedSuffix); err != nil {
		t.Fatalf("no verification note after a load: %v", err)
	}
	b, _ := os.ReadFile(f.c.docSetPath(KindMemory, "base"))
	b[len(b)-100] ^= 0x01
	os.WriteFile(f.c.docSetPath(KindMemory, "base"), b, 0o644)
	c2, err := Open(context.Background(), f.c.Dir(), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	var notices []string
	c2.OnDamage = func(m string) { notices = append(notices, m) }
	if _, err := c2.docs(context.Background(), KindMemory); err != nil {
		t.Fatal(err)
	}
	checkDocSet(t, f.c, KindMemory)
	if len(notices) != 1 || !strings.Contains(notices[0], "checksum mismatch") {
		t.Fatalf("notices %q, want one about a checksum mismatch", notices)
	}
}

// BenchmarkChecksumVectors measures the CRC-32C of a base file's worth of
// vectors: 10,000 documents of 256 float32s.
func BenchmarkChecksumVectors(b *testing.B) {
	buf := make([]byte, 10000*256*4)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		crc32.Checksum(buf, castagnoli())
	}
}

// TestCheckConsistencyFindsDeletedDocuments deletes a document's rows
// behind the cache's back: the check must say so (as corruption, which
// callers rebuild), and pass on an intact cache.
func TestCheckConsistencyFindsDeletedDocuments(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(4, 4)), 50, 0)
	f.sync()
	ctx := context.Background()
	if err := f.c.CheckConsistency(ctx, KindMemory); err != nil {
		t.Fatalf("intact cache: %v", err)
	}
	if _, err := f.c.db.Exec(`DELETE FROM docs WHERE rowid = (SELECT max(rowid) FROM docs WHERE kind=?)`, int(KindMemory)); err != nil {
		t.Fatal(err)
	}
	err := f.c.CheckConsistency(ctx, KindMemory)
	if !errors.Is(err, ErrInconsistent) || !IsCorrupt(err) {
		t.Fatalf("after a deleted row: %v, want ErrInconsistent", err)
	}
}

// BenchmarkCheckConsistency measures the check on 3,000 memories.
func BenchmarkCheckConsistency(b *testing.B) {
	f := newFixture(b)
	corpus(f, rand.New(rand.NewPCG(5, 5)), 3000, 0)
	f.sync()
	for b.Loop() {
		if err := f.c.CheckConsistency(context.Background(), KindMemory); err != nil {
			b.Fatal(err)
		}
	}
}

// TestChecksumNoteSkipsOnlyTheFileItNames checks the note beside a base
// file: with the identity of the file it skips the checksum, with any
// other identity (another file, or the same one written since) the
// checksum runs and catches damage.
func TestChecksumNoteSkipsOnlyTheFileItNames(t *testing.T) {
	good := append([]byte("some vectors"), make([]byte, trailerLen)...)
	binary.LittleEndian.PutUint32(good[len(good)-trailerLen:], crc32.Checksum(good[:len(good)-trailerLen], castagnoli()))
	bad := slices.Clone(good)
	bad[0] ^= 1
	tests := []struct {
		name    string
		data    []byte
		note    string // "" for no note
		id      string
		wantErr bool
	}{
		{name: "no note, good file: verified", data: good, id: "1 2 3", wantErr: false},
		{name: "no note, damaged file: caught", data: bad, id: "1 2 3", wantErr: true},
		{name: "note for another identity, damaged file: caught", data: bad, note: "1 2 4", id: "1 2 3", wantErr: true},
		{name: "note for this identity: not read again", data: bad, note: "1 2 3", id: "1 2 3", wantErr: false},
		{name: "no identity (no mmap): always verified", data: bad, note: "", id: "", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			note := filepath.Join(t.TempDir(), "base"+verifiedSuffix)
			if tc.note != "" {
				os.WriteFile(note, []byte(tc.note), 0o644)
			}
			body, err := checkTrailerOnce(tc.data, note, tc.id)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && len(body) != len(tc.data)-trailerLen {
				t.Errorf("body is %d bytes, want %d", len(body), len(tc.data)-trailerLen)
			}
			if got, _ := os.ReadFile(note); !tc.wantErr && tc.id != "" && string(got) != tc.id {
				t.Errorf("note holds %q, want %q", got, tc.id)
			}
		})
	}
}
