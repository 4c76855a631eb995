package embed

import (
	"context"
	"strings"
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

// TestCoverageReadsEachTextOnce: the words of a text are kept between
// calls (a server re-ranks the same memories for task after task), so a
// text is tokenised once, however many queries ask about it; a text that
// changed is read again, and its coverage is the new text's, never the
// words kept for the old one.
func TestCoverageReadsEachTextOnce(t *testing.T) {
	ctx := context.Background()
	e := NewBuiltin()
	sw := e.(*software)
	// The same length and the same start: only the words differ.
	const before = "Notes: feature flags"
	const after = "Notes: PostgreSQL 16"
	texts := []string{before, "Releases are cut from main on Tuesdays."}
	cover := func(query string, texts []string) []float64 {
		t.Helper()
		got, ok, err := Coverage(ctx, e, query, texts)
		if err != nil || !ok {
			t.Fatalf("Coverage: %v, %v", ok, err)
		}
		return got
	}
	first := cover("database release", texts)
	if n := sw.cover.read.Load(); n != 2 {
		t.Fatalf("first call tokenised %d texts, want 2", n)
	}
	for _, q := range []string{"database release", "feature flags", "when are releases cut"} {
		cover(q, texts)
	}
	if n := sw.cover.read.Load(); n != 2 {
		t.Fatalf("after three more queries %d texts tokenised, want still 2", n)
	}
	texts[0] = after // the memory changed
	changed := cover("database release", texts)
	if n := sw.cover.read.Load(); n != 3 {
		t.Fatalf("after a text changed %d texts tokenised, want 3", n)
	}
	fresh, _, _ := Coverage(ctx, NewBuiltin(), "database release", texts)
	if changed[0] != fresh[0] || changed[0] == first[0] {
		t.Errorf("coverage of the changed text %v, want %v as a fresh embedder counts it (was %v)", changed[0], fresh[0], first[0])
	}
}

// TestCoverageKeptWordsAreBounded: the kept texts start again once they
// pass coverMemoBytes, and what Coverage returns does not change.
func TestCoverageKeptWordsAreBounded(t *testing.T) {
	ctx := context.Background()
	e := NewBuiltin()
	sw := e.(*software)
	long := strings.Repeat("database connections pooling ", coverMemoBytes/(3*29))
	texts := []string{long + "a", long + "b", long + "c", long + "d"}
	want, _, _ := Coverage(ctx, NewBuiltin(), "database feature", texts)
	got, _, _ := Coverage(ctx, e, "database feature", texts)
	if sw.cover.bytes > coverMemoBytes {
		t.Errorf("kept %d bytes of texts, more than %d", sw.cover.bytes, coverMemoBytes)
	}
	if len(sw.cover.texts) == len(texts) {
		t.Errorf("kept all %d texts of %d bytes each", len(texts), len(long))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("coverage %v, want %v", got, want)
			break
		}
	}
}
