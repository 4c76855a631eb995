package embed

import (
	"context"
	"testing"
)

// TestCoverageCountsMeaningAndSpelling: a text covers a query's content
// word by containing it or a word of like meaning; function words and
// negations are not the query's content; a word the vectors lack (a
// product name) is covered by its own spelling only.
func TestCoverageCountsMeaningAndSpelling(t *testing.T) {
	const decision = "We use PostgreSQL with connection pooling, max 20 connections per instance."
	const flags = "Feature flags are managed in LaunchDarkly; remove a flag within two sprints of full rollout."
	for _, tc := range []struct {
		name, query string
		texts       []string
		want        []float64
	}{
		{"a word of like meaning covers (database: PostgreSQL)", "database", []string{decision, flags}, []float64{1, 0.5}},
		{"the same word covers", "rollout", []string{decision, flags}, []float64{0.5, 1}},
		{"function words and negations are not content", "what should I not use", []string{decision, flags}, []float64{1, 0.5}},
		{"a query of function words alone leaves every text alike", "what is it", []string{decision, flags}, []float64{1, 1}},
		{"a name the vectors lack is covered by its spelling (launch, darkly, launchdarkly)", "LaunchDarkly", []string{decision, flags}, []float64{0.25, 1}},
		{"the seeds' question: the decision covers more than the flags", "What database should I use for this new feature?", []string{decision, flags}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := Coverage(context.Background(), NewBuiltin(), tc.query, tc.texts)
			if err != nil || !ok {
				t.Fatalf("Coverage: %v, %v", ok, err)
			}
			if tc.want == nil {
				if got[0] <= got[1] {
					t.Errorf("coverage %v: want the decision's above the flags'", got)
				}
				return
			}
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("coverage %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// TestCoverageNeedsWordVectors: an embedder without word vectors gives
// nothing to re-rank by.
func TestCoverageNeedsWordVectors(t *testing.T) {
	if _, ok, err := Coverage(context.Background(), NewHashing(), "database", []string{"PostgreSQL"}); ok || err != nil {
		t.Fatalf("hashing embedder: ok %v, err %v; want no coverage", ok, err)
	}
}
