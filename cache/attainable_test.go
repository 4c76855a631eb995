package cache

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAttainableIsTheSumOfEachWordsBestScore: a keyword search's
// attainable score is what a document matching every word of the query as
// well as the best match of that word would score: the sum over the
// query's words of the best BM25 score of the word alone; with a type
// filter, of the best among the documents of those types.
func TestAttainableIsTheSumOfEachWordsBestScore(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(5, 5)), 300, 0)
	f.sync()
	ctx := context.Background()
	ds, err := f.c.docs(ctx, KindMemory)
	if err != nil {
		t.Fatal(err)
	}
	partials := 0
	for _, filter := range []Filter{{}, {Types: []string{"fact"}}} {
		for _, q := range []string{"pool", "pool cache", "retry upload token shard lock queue", "pool nothingmatches"} {
			// No document of the corpus has all six words of the long query.
			partial := len(ds.rankedWords(q)) == 6
			if partial {
				partials++
			}
			hits, got, err := f.c.KeywordAttainable(ctx, KindMemory, q, nil, filter, 10)
			if err != nil {
				t.Fatal(err)
			}
			var want float64
			for _, w := range ds.rankedWords(q) {
				best, err := f.c.Keyword(ctx, KindMemory, w, filter, 1)
				if err != nil {
					t.Fatal(err)
				}
				if len(best) > 0 {
					want += best[0].Score
				}
			}
			if len(hits) == 0 || math.Abs(got-want) > 1e-9*want {
				t.Errorf("%q %v: attainable %v, want %v (the sum of each word's best score); %d hits", q, filter.Types, got, want, len(hits))
			}
			if partial && got <= hits[0].Score {
				t.Errorf("%q %v: attainable %v not above the best match's %v, which matches only some words", q, filter.Types, got, hits[0].Score)
			}
		}
	}
	if partials == 0 {
		t.Error("the test is void: no query of six ranked words")
	}
}
