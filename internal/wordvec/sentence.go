package wordvec

import "math"

// Sentence adds the SIF vector of text to v (len Dim, zeroed by the
// caller): the sum over its words of a/(a+p(w)) times the word's vector,
// so that frequent words ("the", "use") weigh little and rare ones much
// (Arora, Liang and Ma 2017, "A simple but tough-to-beat baseline for
// sentence embeddings"), then the corpus's common component removed,
// which otherwise makes every sentence close to every other. A word met n
// times counts 1+ln n times, not n: in a long text a word repeated
// throughout would otherwise outweigh a passage that mentions something
// once. The result is not normalised. Words the table lacks add nothing,
// nor do negations ("not", "no", "never"): their vectors point the same
// way in every text, so they would make any two negative texts alike; the
// embedder marks what a negation applies to by other means. It returns
// the number of words found.
func (t *Table) Sentence(tok *Tokenizer, text string, v []float32) int {
	return t.SentenceSkipping(tok, text, v, nil)
}

// SentenceSkipping is Sentence leaving out, besides negations, the words
// for which skip (when not nil) is true.
func (t *Table) SentenceSkipping(tok *Tokenizer, text string, v []float32, skip func(w []byte) bool) int {
	if tok.counts == nil {
		tok.counts = map[int32]int32{}
	}
	clear(tok.counts)
	tok.order = tok.order[:0]
	found := 0
	tok.Each(text, func(w []byte) {
		if isNegation(w) || skip != nil && skip(w) {
			return
		}
		if i := t.Lookup(w); i >= 0 {
			if tok.counts[int32(i)] == 0 {
				tok.order = append(tok.order, int32(i))
			}
			tok.counts[int32(i)]++
			found++
		}
	}, nil)
	if found == 0 {
		return 0
	}
	// In order of first appearance: a map's order would change the sum's
	// rounding from one run to the next.
	for _, i := range tok.order {
		n := tok.counts[i]
		w := t.Weight(int(i))
		if n > 1 {
			w *= 1 + float32(math.Log(float64(n)))
		}
		t.AddTo(v, int(i), w)
	}
	t.RemoveCommon(v)
	return found
}

// RemoveCommon subtracts v's projection on the common component.
func (t *Table) RemoveCommon(v []float32) {
	var dot float32
	for j, c := range t.commonFs {
		dot += v[j] * c
	}
	for j, c := range t.commonFs {
		v[j] -= dot * c
	}
}

// Normalize scales v to unit length (a zero v stays zero).
func Normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
}

func isNegation(w []byte) bool {
	switch string(w) {
	case "not", "no", "never", "nor", "neither":
		return true
	}
	return false
}
