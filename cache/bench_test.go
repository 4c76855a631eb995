package cache

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

// benchFixture is a cache of 10,000 synthetic documents, built once.
func benchFixture(b *testing.B) *fixture {
	b.Helper()
	f := newFixture(b)
	corpus(f, rand.New(rand.NewPCG(9, 9)), 10000, 0)
	if _, err := f.c.SyncFiles(context.Background(), KindMemory, f.root, f.entries(), analyze); err != nil {
		b.Fatal(err)
	}
	if err := f.c.Prepare(context.Background(), KindMemory); err != nil {
		b.Fatal(err)
	}
	return f
}

var benchQueries = []string{"pool cache", "omega", "retry upload token", "alpha beta", "shard lock queue"}

// BenchmarkKeyword is Keyword (cfs_topk, then the filters on the window);
// BenchmarkKeywordFTS5BM25 is the same ranking by FTS5's bm25(), the
// baseline it replaced, in the same run.
func BenchmarkKeyword(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := f.c.Keyword(ctx, KindMemory, benchQueries[i%len(benchQueries)], Filter{}, 30); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKeywordFTS5BM25(b *testing.B) {
	f := benchFixture(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		rs, err := f.c.db.Query(`SELECT rowid, -bm25(fts_1, `+BM25Weights+`) AS s FROM fts_1 WHERE fts_1 MATCH ? ORDER BY s DESC LIMIT 120`,
			MatchQuery(benchQueries[i%len(benchQueries)]))
		if err != nil {
			b.Fatal(err)
		}
		for rs.Next() {
		}
		rs.Close()
	}
}

func BenchmarkSemantic(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	v, _ := embed.NewBuiltin().Embed(ctx, benchQueries)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := f.c.Semantic(ctx, KindMemory, v[i%len(v)], Filter{}, 30); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeywordOneType is Keyword filtered by one memory type (a third
// of the documents), as a save's duplicate check asks: cfs_topk with its
// row filter, rowid index and reused working arrays.
func BenchmarkKeywordOneType(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	flt := Filter{Types: []string{"decision"}}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := f.c.Keyword(ctx, KindMemory, benchQueries[i%len(benchQueries)], flt, 30); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScoreOneType scores the vectors of one memory type (a third of
// the documents) in place, scattered over the base, and from a slab, as a
// long-lived process does from its second scan (slab.go).
func BenchmarkScoreOneType(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	ds, err := f.c.docs(ctx, KindMemory)
	if err != nil {
		b.Fatal(err)
	}
	flt := Filter{Types: []string{"decision"}}
	rows, t, err := f.c.filteredBy(ctx, ds, flt)
	if err != nil {
		b.Fatal(err)
	}
	var sl *slab
	for range 2 {
		sl = f.c.slabFor(ds, t)
	}
	if sl == nil {
		b.Fatal("no slab on the second scan")
	}
	v, _ := embed.NewBuiltin().Embed(ctx, benchQueries)
	for i := range v {
		normalize(v[i])
	}
	b.Run("in-place", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ds.score(v[i%len(v)], rows, 30)
		}
	})
	b.Run("slab", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ds.scoreSlab(v[i%len(v)], rows, sl, 30)
		}
	})
}
