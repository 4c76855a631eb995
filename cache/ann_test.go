package cache

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

// topicCorpus writes n documents, each mostly of the words of one of a
// few dozen topics, as notes on one subsystem are: vectors that cluster,
// as real ones do, so that an index that cuts clusters is put to the test.
func topicCorpus(f *fixture, r *rand.Rand, n, from int) {
	words := strings.Fields(`pool connection database query index table row column schema migration
		cache redis memory eviction expiry token session cookie login password user account
		upload file bucket storage disk volume backup snapshot restore archive compress
		queue message broker consumer producer topic partition offset retry delay
		http request response header status route handler middleware proxy gateway
		build compile test release deploy pipeline docker image container cluster node
		metric alert dashboard trace span log latency error timeout deadline budget
		payment invoice refund card charge billing price tax currency ledger balance
		search ranking keyword vector embedding score recall precision relevance
		thread lock mutex channel goroutine worker scheduler job cron batch stream`)
	topics := 40
	for i := from; i < from+n; i++ {
		t := r.IntN(topics)
		var b strings.Builder
		for j := 0; j < 8+r.IntN(12); j++ {
			w := words[(t*7+r.IntN(12))%len(words)]
			if r.IntN(4) == 0 {
				w = words[r.IntN(len(words))]
			}
			b.WriteString(w + " ")
		}
		f.write(fmt.Sprintf("t%05d.md", i), "fact\n"+b.String())
	}
}

// annQueries are n queries of two to four words of the corpus vocabulary.
func annQueries(t *testing.T, r *rand.Rand, n int) [][]float32 {
	t.Helper()
	words := strings.Fields("pool cache upload queue http build metric payment search thread token retry index deploy lock trace refund vector stream session")
	var texts []string
	for range n {
		var q []string
		for range 2 + r.IntN(3) {
			q = append(q, words[r.IntN(len(words))])
		}
		texts = append(texts, strings.Join(q, " "))
	}
	// Half as search embeds a query, half as it embeds a text (a
	// different mix of the embedder's two halves: docs/EMBEDDER.md).
	emb := embed.NewBuiltin()
	qv, err := embed.EmbedQuery(context.Background(), emb, texts[:n/2])
	if err != nil {
		t.Fatal(err)
	}
	dv, err := emb.Embed(context.Background(), texts[n/2:])
	if err != nil {
		t.Fatal(err)
	}
	return append(qv, dv...)
}

// TestApproximateSearchFindsWhatTheExactScanFinds forces the IVF index
// on a small corpus and compares it with the exact scan: recall@10 of at
// least 0.95 on average, and every hit scored exactly as the scan scores
// it (the index only chooses which vectors to score).
func TestApproximateSearchFindsWhatTheExactScanFinds(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(37, 2))
	topicCorpus(f, r, 4000, 0)
	f.sync()
	f.c.SetVectorIndexFrom(1000)
	ctx := context.Background()
	if got := f.c.VectorIndex(ctx, KindMemory); got == "" {
		t.Fatalf("VectorIndex = %q, want the column scan above the threshold", got)
	}
	var sum float64
	qs := annQueries(t, r, 60)
	for _, q := range qs {
		got, err := f.c.Semantic(ctx, KindMemory, q, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, err := f.c.SemanticExact(ctx, KindMemory, q, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		exact := map[int64]float64{}
		all, _ := f.c.SemanticExact(ctx, KindMemory, q, Filter{}, 4000)
		for _, h := range all {
			exact[h.Row] = h.Score
		}
		for _, h := range got {
			if exact[h.Row] != h.Score {
				t.Fatalf("row %d scored %v by the index, %v by the scan", h.Row, h.Score, exact[h.Row])
			}
		}
		sum += Recall(got, want)
	}
	if rec := sum / float64(len(qs)); rec < 0.95 {
		t.Fatalf("mean recall@10 = %.3f, want >= 0.95", rec)
	} else {
		t.Logf("mean recall@10 = %.3f over %d queries", rec, len(qs))
	}
}

// TestExactScanBelowTheThreshold: a corpus below annMinRows is scanned,
// with no index built or written.
func TestExactScanBelowTheThreshold(t *testing.T) {
	f := newFixture(t)
	topicCorpus(f, rand.New(rand.NewPCG(1, 2)), 300, 0)
	f.sync()
	ctx := context.Background()
	if got := f.c.VectorIndex(ctx, KindMemory); got != "" {
		t.Fatalf("VectorIndex = %q at 300 documents, want the exact scan", got)
	}
	if _, err := os.Stat(f.c.docSetPath(KindMemory, "cols")); !os.IsNotExist(err) {
		t.Fatalf("an index file was written below the threshold (stat: %v)", err)
	}
}

// TestVectorIndexFollowsTheFiles: the index is disposable and kept true
// to the documents: deleted documents are never returned, new ones are
// found at once (from the delta), a missing or damaged index file is
// built again, and a new base gets a new index.
func TestVectorIndexFollowsTheFiles(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(5, 5))
	topicCorpus(f, r, 2000, 0)
	f.sync()
	f.c.SetVectorIndexFrom(500)
	ctx := context.Background()
	emb := embed.NewBuiltin()
	path := f.c.docSetPath(KindMemory, "cols")
	if err := f.c.Prepare(ctx, KindMemory); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Prepare wrote no index file: %v", err)
	}
	search := func(text string) []Hit {
		t.Helper()
		v, _ := emb.Embed(ctx, []string{text})
		hits, err := f.c.Semantic(ctx, KindMemory, v[0], Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	rowsOf := func(t *testing.T) map[string]int64 {
		rs, err := f.c.db.Query(`SELECT d.mid, d.rowid FROM docs d JOIN paths p ON p.oid=d.src AND p.kind=d.kind`)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		out := map[string]int64{}
		for rs.Next() {
			var mid string
			var row int64
			rs.Scan(&mid, &row)
			out[mid] = row
		}
		return out
	}
	steps := []struct {
		name  string
		do    func(t *testing.T) string // returns the query to run
		check func(t *testing.T, hits []Hit)
	}{
		{"deleted documents are not returned", func(t *testing.T) string {
			hits := search("payment invoice refund")
			for _, h := range hits[:5] {
				for mid, row := range rowsOf(t) {
					if row == h.Row {
						os.Remove(filepath.Join(f.root, mid+".md"))
					}
				}
			}
			f.sync()
			return "payment invoice refund"
		}, func(t *testing.T, hits []Hit) {
			cur := rowsOf(t)
			for _, h := range hits {
				if !slices.Contains(slices.Collect(maps.Values(cur)), h.Row) {
					t.Fatalf("row %d returned after its file was deleted", h.Row)
				}
			}
		}},
		{"a new document is found at once", func(t *testing.T) string {
			f.write("zz-new.md", "fact\nzebra giraffe okapi savanna")
			f.sync()
			return "zebra giraffe okapi savanna"
		}, func(t *testing.T, hits []Hit) {
			if len(hits) == 0 || hits[0].Row != rowsOf(t)["zz-new"] {
				t.Fatalf("the new document is not first: %v", hits)
			}
		}},
		{"a missing index file is built again", func(t *testing.T) string {
			os.Remove(path)
			f.c.cols = nil // as a new process
			return "queue broker retry"
		}, func(t *testing.T, hits []Hit) {
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("the index file was not written again: %v", err)
			}
		}},
		{"a damaged index file is built again", func(t *testing.T) string {
			raw, _ := os.ReadFile(path)
			raw[len(raw)/2] ^= 0xff
			os.WriteFile(path, raw, 0o600)
			f.c.cols = nil
			return "queue broker retry"
		}, func(t *testing.T, hits []Hit) {
			ds, _ := f.c.docs(ctx, KindMemory)
			if _, err := readCols(path, ds.baseID, len(ds.base.rows), ds.dim); err != nil {
				t.Fatalf("the damaged file was not replaced: %v", err)
			}
		}},
		{"a new base gets a new index", func(t *testing.T) string {
			topicCorpus(f, r, 1200, 10000) // past compactAt: a new base
			f.sync()
			return "cache redis eviction"
		}, func(t *testing.T, hits []Hit) {
			ds, _ := f.c.docs(ctx, KindMemory)
			if ix := f.c.colsFor(ds); ix == nil || ix.base != ds.baseID || ix.n != len(ds.base.rows) {
				t.Fatal("the index is not of the new base")
			}
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			q := s.do(t)
			hits := search(q)
			s.check(t, hits)
			v, _ := emb.Embed(ctx, []string{q})
			want, _ := f.c.SemanticExact(ctx, KindMemory, v[0], Filter{}, 10)
			if rec := Recall(hits, want); rec < 0.7 {
				t.Fatalf("recall@10 %.2f against the exact scan", rec)
			}
		})
	}
}

// TestColsumAgreesWithGo: the C column sums are the weighted sums of the
// codes, for any block start and length (the vector loop and its tail).
func TestColsumAgreesWithGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const stride, ncol = 192, 5
	codes := make([]int8, stride*ncol)
	for i := range codes {
		codes[i] = int8(r.IntN(255) - 127)
	}
	cols := []int32{0, 2, 4}
	w := []float32{0.5, -1.25, 0.01}
	for _, c := range []struct{ lo, n int }{{0, 192}, {3, 17}, {64, 8}, {100, 1}, {5, 0}} {
		out := make([]float32, c.n)
		colsum(codes, stride, cols, w, c.lo, out)
		for i := range out {
			var want float32
			for tt, col := range cols {
				want += w[tt] * float32(codes[int(col)*stride+c.lo+i])
			}
			if d := out[i] - want; d > 1e-4 || d < -1e-4 {
				t.Fatalf("lo %d, doc %d: colsum %v, Go %v", c.lo, i, out[i], want)
			}
		}
	}
}

// TestRebuildStreamsTheVectors: a docSet built from the tables (a new
// process after a reindex) maps its base file rather than holding its
// vectors: twice the documents keep far less than twice the vectors'
// bytes on the heap. Without streaming, the docSet holds every vector.
func TestRebuildStreamsTheVectors(t *testing.T) {
	ctx := context.Background()
	rebuild := func(n int) (alloc uint64, vecBytes int) {
		f := newFixture(t)
		topicCorpus(f, rand.New(rand.NewPCG(8, 8)), n, 0)
		f.sync()
		// Edited files get new rows: rowid order is then not the order of
		// the IDs, in which the kind's index hands rows over.
		topicCorpus(f, rand.New(rand.NewPCG(9, 9)), 100, 0)
		f.sync()
		os.Remove(f.c.docSetPath(KindMemory, "base"))
		c, err := Open(ctx, f.c.dir, embed.NewBuiltin())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ds, err := c.docs(ctx, KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if ds.file == nil {
			t.Fatal("the rebuilt docSet does not map its base file")
		}
		// And it holds what the tables hold.
		compareDocSet(t, c, ds, KindMemory)
		return after.HeapAlloc - before.HeapAlloc, len(ds.rows) * ds.dim * 4
	}
	a1, v1 := rebuild(2000)
	a2, v2 := rebuild(4000)
	if grow, vgrow := int64(a2)-int64(a1), v2-v1; grow > int64(vgrow/4) {
		t.Fatalf("2,000 more documents kept %d more bytes of heap after a rebuild; their vectors are %d", grow, vgrow)
	}
}

// TestUnfilteredKeywordSearchLeavesHiddenMemoriesOut: a plain keyword
// search (no filter but the default) drops superseded memories and the
// targets of a current memory's supersedes, and still returns k of the
// others; with All it keeps them, in the ranker's order.
func TestUnfilteredKeywordSearchLeavesHiddenMemoriesOut(t *testing.T) {
	f := newFixture(t)
	// Every memory says "ledger" once more than the next, so the ranking
	// is known: m00 first.
	for i := range 20 {
		f.write(fmt.Sprintf("m%02d.md", i), fmt.Sprintf("%d\n%s", i, strings.Repeat("ledger ", 21-i)+"filler words"))
	}
	withStatus := func(path string, raw []byte) Analysis {
		a := analyze(path, raw)
		d := &a.Docs[0]
		d.Type = "fact"
		switch d.MID {
		case "m00":
			d.Status = "superseded"
		case "m05":
			d.Supersedes = []string{"m01", "m02"}
		}
		return a
	}
	if _, err := f.c.SyncFiles(context.Background(), KindMemory, f.root, f.entries(), withStatus); err != nil {
		t.Fatal(err)
	}
	mids := func(flt Filter) []string {
		hits, err := f.c.Keyword(context.Background(), KindMemory, "ledger", flt, 5)
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := f.c.Rows(context.Background(), func() []int64 {
			var r []int64
			for _, h := range hits {
				r = append(r, h.Row)
			}
			return r
		}())
		var out []string
		for _, h := range hits {
			out = append(out, rows[h.Row].MID)
		}
		return out
	}
	if got, want := mids(Filter{}), []string{"m03", "m04", "m05", "m06", "m07"}; !slices.Equal(got, want) {
		t.Fatalf("default search: %v, want %v", got, want)
	}
	if got, want := mids(Filter{All: true}), []string{"m00", "m01", "m02", "m03", "m04"}; !slices.Equal(got, want) {
		t.Fatalf("search with All: %v, want %v", got, want)
	}
}

// TestKeptTermListsRankAsCfsTopk: a query of plain words ranked from the
// kept term lists (first read and again from the lists) gives cfs_topk's
// hits, scores equal to the bit, in its order.
func TestKeptTermListsRankAsCfsTopk(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(11, 12))
	topicCorpus(f, r, 1500, 0)
	corpus(f, r, 500, 20000)
	f.sync()
	ctx := context.Background()
	ds, err := f.c.docs(ctx, KindMemory)
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"pool", "cache redis eviction", "omega alpha", "upload bucket token retry", "service", "zebra", "queue queue broker"}
	for round := range 2 {
		for _, q := range queries {
			words := ds.rankedWords(q)
			want, wantBests, err := f.c.topk(ctx, ds, joinWords(words), 40, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, gotBests, err := f.c.topkWords(ctx, ds, words, 40)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, %q: from the lists %v\ncfs_topk %v", round, q, got, want)
			}
			if len(gotBests) != len(wantBests) {
				t.Fatalf("round %d, %q: (idf, best part, matches) from the lists %v, cfs_topk %v", round, q, gotBests, wantBests)
			}
			for i := range wantBests {
				if math.Abs(gotBests[i]-wantBests[i]) > 1e-9*max(1, math.Abs(wantBests[i])) {
					t.Fatalf("round %d, %q: (idf, best part, matches) from the lists %v, cfs_topk %v", round, q, gotBests, wantBests)
				}
			}
		}
	}
	if n := len(ds.terms.lists); n == 0 {
		t.Fatal("no term list was kept")
	}
}

// TestConcurrentSearchesShareOneColumnIndex: searches running at once
// in one Cache, before and after the column file exists, build it once
// and each get what a search alone gets.
func TestConcurrentSearchesShareOneColumnIndex(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(21, 21))
	topicCorpus(f, r, 1500, 0)
	f.sync()
	f.c.SetVectorIndexFrom(500)
	ctx := context.Background()
	qs := annQueries(t, r, 8)
	alone := make([][]Hit, len(qs))
	other := newFixture(t) // the same corpus in a second cache, searched serially
	topicCorpus(other, rand.New(rand.NewPCG(21, 21)), 1500, 0)
	other.sync()
	other.c.SetVectorIndexFrom(500)
	for i, q := range qs {
		var err error
		if alone[i], err = other.c.Semantic(ctx, KindMemory, q, Filter{}, 10); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 4*len(qs))
	var wg sync.WaitGroup
	for range 4 {
		for i, q := range qs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := f.c.Semantic(ctx, KindMemory, q, Filter{}, 10)
				if err == nil && !slices.Equal(got, alone[i]) {
					err = fmt.Errorf("query %d: %v at once, %v alone", i, got, alone[i])
				}
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
