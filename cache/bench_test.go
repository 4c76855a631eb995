package cache

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/contextfs/contextfs/embed"
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
