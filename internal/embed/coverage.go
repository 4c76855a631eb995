package embed

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/contextfs/contextfs/internal/wordvec"
)

// coverCosine is the cosine of two words' vectors from which the one
// counts as covering the other (Coverage): "database" and "sql" 0.55,
// "database" and "schema" 0.60, "feature" and "sql" 0.32. Chosen on the
// world-knowledge set and checked on the held-out sets, proposal and SICK
// (docs/EMBEDDER.md).
const coverCosine = 0.4

// Coverage returns, for each text, how much of the query's content words
// (function words and negations left out, the first 64) the text covers:
// (1+c)/(1+n) for c of n covered, so 1 for all and never 0. A text covers
// a word by containing it, or a word whose vector is within coverCosine of
// its ("database" is covered by "PostgreSQL"); a word the table lacks (a
// name, an identifier) only by its spelling. It is the coordination factor
// of classic Lucene, counted on meaning rather than spelling, so that a
// text answering more of a question ranks above one sharing a single word
// with it. ok is false for an embedder without word vectors (there is
// nothing to count with). A text is read in pieces until all the query's
// words are covered.
func Coverage(ctx context.Context, e Embedder, query string, texts []string) (cover []float64, ok bool, err error) {
	if !CanCover(e) {
		return nil, false, nil
	}
	t, err := wordTable()
	if err != nil {
		return nil, false, fmt.Errorf("embed: builtin word vectors: %w", err)
	}
	var tok wordvec.Tokenizer
	// The query's content words: each with its vector, nil for a word the
	// table lacks (a name, an identifier), which only its own spelling
	// covers.
	var q [][]float32
	words := map[string]int{}
	tok.Each(query, func(w []byte) {
		if wordvec.IsNegation(w) || isStopWord(w) || len(q) == 64 {
			return
		}
		if _, dup := words[string(w)]; dup {
			return
		}
		words[string(w)] = len(q)
		var v []float32
		if i := t.Lookup(w); i >= 0 {
			v = unitRow(t, i)
		}
		q = append(q, v)
	}, nil)
	cover = make([]float64, len(texts))
	if len(q) == 0 {
		for i := range cover {
			cover[i] = 1
		}
		return cover, true, nil
	}
	all := uint64(1)<<len(q) - 1
	if len(q) == 64 {
		all = ^uint64(0)
	}
	// covers is the set of query words each word of the texts covers,
	// shared by the texts: most words recur.
	covers := map[string]uint64{}
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, false, fmt.Errorf("embed: coverage: %w", err)
		}
		var got uint64
		for _, piece := range Pieces(text, coverPiece) {
			tok.Each(piece, func(w []byte) {
				m, ok := covers[string(w)]
				if !ok {
					if k, in := words[string(w)]; in {
						m |= 1 << k
					}
					if j := t.Index(w, isStopWord); j >= 0 {
						v := unitRow(t, j)
						for k, qv := range q {
							if qv != nil && unitDot(qv, v) >= coverCosine {
								m |= 1 << k
							}
						}
					}
					covers[string(w)] = m
				}
				got |= m
			}, nil)
			if got == all {
				break
			}
		}
		cover[i] = float64(1+bits.OnesCount64(got)) / float64(1+len(q))
	}
	return cover, true, nil
}

// CanCover says whether Coverage can count with e's word vectors.
func CanCover(e Embedder) bool {
	_, ok := e.(*software)
	return ok
}

// coverPiece is the size of the pieces Coverage reads a text in.
const coverPiece = 4096

// unitRow is word i's vector at unit length.
func unitRow(t *wordvec.Table, i int) []float32 {
	v := make([]float32, t.Dim())
	t.AddTo(v, i, 1)
	wordvec.Normalize(v)
	return v
}

// unitDot is the cosine of two unit vectors.
func unitDot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
