package embed

import (
	"context"
	"os"
	"testing"
)

// codeTexts are pieces of about 2,000 bytes of this repository's own Go
// source, the size of the code chunks the index embeds.
func codeTexts(b *testing.B) []string {
	src, err := os.ReadFile("../search/search.go")
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for len(src) > 2000 {
		out = append(out, string(src[:2000]))
		src = src[2000:]
	}
	return out
}

// BenchmarkEmbedCode reports each embedder's throughput on code chunks
// (MB/s): most of what a full index embeds.
func BenchmarkEmbedCode(b *testing.B) {
	texts := codeTexts(b)
	var n int
	for _, t := range texts {
		n += len(t)
	}
	for _, e := range []struct {
		name string
		e    Embedder
	}{{"builtin", NewBuiltin()}, {"hash", NewHashing()}} {
		b.Run(e.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := e.e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
