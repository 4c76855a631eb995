package embed

import (
	"context"
	"strings"
	"testing"
)

func TestPiecesCoverTheWholeText(t *testing.T) {
	para := strings.Repeat("word ", 60) // 300 bytes
	tests := []struct {
		name, text string
		window     int
		want       int
	}{
		{"a short text is one piece", "hello", 100, 1},
		{"paragraphs are cut at blank lines", para + "\n\n" + para + "\n\n" + para, 700, 2},
		{"a text without spaces is cut at runes", strings.Repeat("é", 500), 300, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := Pieces(tt.text, tt.window)
			if len(ps) != tt.want {
				t.Fatalf("%d pieces, want %d", len(ps), tt.want)
			}
			for _, p := range ps {
				if len(p) > tt.window {
					t.Errorf("piece of %d bytes > window %d", len(p), tt.window)
				}
			}
			squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
			if squash(strings.Join(ps, "")) != squash(tt.text) {
				t.Error("the pieces do not hold the whole text")
			}
		})
	}
}

// Two long texts differ only in their last sentence: cut to the first
// window they would embed alike; embedded whole, the one whose end
// matches the query is nearer to it.
func TestEmbedLongCountsTheEnd(t *testing.T) {
	ctx := context.Background()
	filler := strings.Repeat("The scheduler assigns goroutines to threads and balances the run queues. ", 80)
	query := "garbage collector compacts the heap of the penguin colony"
	texts := []string{
		filler + "\n\nFinally, the garbage collector compacts the heap of the penguin colony.",
		filler + "\n\nFinally, the linker writes the symbol table of the binary file.",
		query,
	}
	vs, err := EmbedLong(ctx, NewHashing(), texts, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if match, other := dot(vs[0], vs[2]), dot(vs[1], vs[2]); match <= other+0.02 {
		t.Errorf("cosine of the matching end %.3f, of the other %.3f: the end of a long text is lost", match, other)
	}
}

func dot(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}
