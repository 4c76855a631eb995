package wordvec

import (
	"slices"
	"strings"
	"testing"
)

func tokens(text string) []string {
	var tok Tokenizer
	var out []string
	tok.Each(text, func(b []byte) { out = append(out, string(b)) }, nil)
	return out
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"words are lower-cased, case changes split", "We use PostgreSQL", "we use postgre sql postgresql"},
		{"identifiers are split and kept whole", "parseHTTPHeader user_id", "parse http header parsehttpheader user id userid"},
		{"negative contractions are spelt out", "don't won't can't isn't", "do not will not can not is not"},
		{"clitics are spelt out, possessives dropped", "we'll they're the team's", "we will they are the team"},
		{"curly apostrophes count", "don’t", "do not"},
		{"other apostrophes separate words", "O'Brien", "o brien"},
		{"letters of any script", "Größe café", "größe café"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(tokens(tt.text), " "); got != tt.want {
				t.Errorf("tokens(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestTableRoundTrip(t *testing.T) {
	b := &Builder{Dim: 3, Words: []string{"alpha", "beta", "gamma"},
		Vecs: [][]float32{{1, 0, 0}, {0, 2, 0}, {0, 0, -1}},
		Freq: []float32{1, 0, 3}, Common: []float32{0, 0, 1}}
	tab, err := Open(b.Encode(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range b.Words {
		if got := tab.Lookup([]byte(w)); got != i {
			t.Errorf("Lookup(%q) = %d, want %d", w, got, i)
		}
	}
	if got := tab.Lookup([]byte("delta")); got != -1 {
		t.Errorf("Lookup(delta) = %d, want -1", got)
	}
	v := make([]float32, 3)
	var tok Tokenizer
	if n := tab.Sentence(&tok, "Alpha, beta and delta", v); n != 2 {
		t.Errorf("found %d words, want 2", n)
	}
	// 0.5*alpha + 1*beta, the common component (gamma's axis) removed.
	if want := []float32{0.5, 2, 0}; !slices.EqualFunc(v, want, func(a, b float32) bool { return a-b < 0.02 && b-a < 0.02 }) {
		t.Errorf("sentence vector %v, want %v", v, want)
	}
	for _, bad := range [][]byte{nil, []byte("CFWV"), b.Encode()[:40]} {
		if _, err := Open(bad, 1); err == nil {
			t.Errorf("Open(%d bytes) succeeded", len(bad))
		}
	}
}
