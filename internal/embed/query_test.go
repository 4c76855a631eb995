package embed

import (
	"context"
	"testing"
)

// TestQueryVectorsLeaveOutFunctionWords: a question's wording ("what",
// "should", "I", "this") does not move its vector; only what it asks about
// does. Reference text seldom asks, so SIF weighed such words above the
// subject of the question.
func TestQueryVectorsLeaveOutFunctionWords(t *testing.T) {
	e := NewBuiltin().(QueryEmbedder)
	vs, err := e.EmbedQuery(context.Background(), []string{
		"What database should I use for this new feature?",
		"database use new feature",
		"Which broker carries order events?",
		"broker carries order events",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(vs); i += 2 {
		if c := cosine(vs[i], vs[i+1]); c < 0.999 {
			t.Errorf("query %d: cosine %.4f of the question with its content words alone, want 1", i/2, c)
		}
	}
}

// TestCodeQueryIsTheHashingHalf: a code search's query is matched by its
// exact words and identifier parts (codeMix 0): its vector is the hashing
// embedder's, in the hashing half of the space.
func TestCodeQueryIsTheHashingHalf(t *testing.T) {
	const q = "plumbing: format/packfile, fix delta base offset"
	cv, err := EmbedCodeQuery(context.Background(), NewBuiltin(), []string{q})
	if err != nil {
		t.Fatal(err)
	}
	hv, err := NewHashing().Embed(context.Background(), []string{q})
	if err != nil {
		t.Fatal(err)
	}
	for j, x := range cv[0][:wordvecDim] {
		if x != 0 {
			t.Fatalf("word-vector dimension %d is %v, want 0", j, x)
		}
	}
	if c := cosine(cv[0][wordvecDim:], hv[0]); c < 0.9999 {
		t.Errorf("cosine %.5f with the hashing embedder's vector, want 1", c)
	}
	if s := CodeQueryScale(NewBuiltin()); s < 0.92 || s > 0.923 {
		t.Errorf("CodeQueryScale %.4f, want √0.85", s)
	}
}
