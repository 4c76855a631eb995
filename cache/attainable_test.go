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
			unmatched := false
			for _, w := range ds.rankedWords(q) {
				best, err := f.c.Keyword(ctx, KindMemory, w, filter, 1)
				if err != nil {
					t.Fatal(err)
				}
				if len(best) > 0 {
					want += best[0].Score
				} else {
					unmatched = true
				}
			}
			switch {
			case len(hits) == 0:
				t.Errorf("%q %v: no hits", q, filter.Types)
			case unmatched && got <= want:
				// A word nothing matches counts too (Terms.Sum).
				t.Errorf("%q %v: attainable %v, want above %v, the matched words' best scores", q, filter.Types, got, want)
			case !unmatched && math.Abs(got-want) > 1e-9*want:
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

// TestKeywordTermsReportTheStatisticsAndRankWithGivenFrequencies: each
// ranked word comes back with the statistics a search across stores adds
// up (its IDF is IDF(matches, docs), its best score IDF times part), and
// ranking with given frequencies (Filter.IDF) scores each word by them:
// its own frequencies change nothing, twice them doubles every score.
func TestKeywordTermsReportTheStatisticsAndRankWithGivenFrequencies(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(7, 7)), 300, 0)
	f.sync()
	ctx := context.Background()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
	for _, q := range []string{"pool", "pool cache", "retry upload token shard lock queue", "pool nothingmatches"} {
		hits, terms, err := f.c.KeywordTerms(ctx, KindMemory, q, nil, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || len(terms) == 0 {
			t.Fatalf("%q: %d hits, %d terms; want some", q, len(hits), len(terms))
		}
		own, twice := map[string]float64{}, map[string]float64{}
		for _, w := range terms {
			if w.Docs != 300 || !near(w.IDF, IDF(w.Matches, w.Docs)) {
				t.Errorf("%q: %+v; want 300 documents and IDF(%d, %d) = %v", q, w, w.Matches, w.Docs, IDF(w.Matches, w.Docs))
			}
			own[w.Term], twice[w.Term] = w.IDF, 2*w.IDF
		}
		for _, c := range []struct {
			idf    map[string]float64
			factor float64
		}{{own, 1}, {twice, 2}} {
			got, gotTerms, err := f.c.KeywordTerms(ctx, KindMemory, q, nil, Filter{IDF: c.idf}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(hits) || !near(gotTerms.Sum(), c.factor*terms.Sum()) {
				t.Fatalf("%q with IDF ×%v: %d hits, attainable %v; want %d, %v", q, c.factor, len(got), gotTerms.Sum(), len(hits), c.factor*terms.Sum())
			}
			for i := range got {
				if got[i].Row != hits[i].Row || !near(got[i].Score, c.factor*hits[i].Score) {
					t.Errorf("%q with IDF ×%v: hit %d is %+v, want %+v scaled", q, c.factor, i, got[i], hits[i])
				}
			}
		}
	}
}

func TestAttainableCountsAWordThatMatchesNothing(t *testing.T) {
	tests := []struct {
		name  string
		terms Terms
		want  float64
	}{
		{"every word matched: the sum of the best scores",
			Terms{{Term: "a", IDF: 2, Part: 1, Matches: 1, Docs: 10}, {Term: "b", IDF: 1, Part: 3, Matches: 2, Docs: 10}}, 5},
		{"a word matching nothing counts at its idf times the matched words' mean part",
			Terms{{Term: "feature", IDF: 2, Part: 1, Matches: 1, Docs: 4}, {Term: "database", Matches: 0, Docs: 4}}, 2 + IDF(0, 4)*1},
		{"nothing matched: nothing attainable",
			Terms{{Term: "x", Matches: 0, Docs: 4}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.terms.Sum(); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Sum = %v, want %v", got, tt.want)
			}
		})
	}
}
