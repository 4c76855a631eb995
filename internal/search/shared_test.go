package search

import (
	"math"
	"testing"

	"github.com/contextfs/contextfs/cache"
)

// TestShareOfOneStoreIsThatStoresOwnScale: Share's doc promises that the
// scale of one store alone is its own attainable score (cache.Terms.Sum),
// with a word the query repeats and a word that matches nothing.
func TestShareOfOneStoreIsThatStoresOwnScale(t *testing.T) {
	for _, tc := range []struct {
		name  string
		terms cache.Terms
	}{
		{"every word matches", cache.Terms{
			{Term: "pool", Matches: 3, Docs: 50, Part: 1.2},
			{Term: "gateway", Matches: 10, Docs: 50, Part: 0.8},
		}},
		{"a repeated word and one that matches nothing", cache.Terms{
			{Term: "database", Matches: 0, Docs: 50},
			{Term: "x", Matches: 2, Docs: 50, Part: 2.5},
			{Term: "x", Matches: 2, Docs: 50, Part: 2.5},
			{Term: "y", Matches: 20, Docs: 50, Part: 0.4},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.terms {
				tc.terms[i].IDF = cache.IDF(tc.terms[i].Matches, tc.terms[i].Docs)
			}
			sh := Share(Attainable{cache.KindMemory: tc.terms})
			if want := tc.terms.Sum(); math.Abs(sh.Scale-want) > 1e-12 {
				t.Errorf("Share's scale %v, the store's own %v", sh.Scale, want)
			}
		})
	}
}
