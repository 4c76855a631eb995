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
	c := &tok.counter
	c.Reset()
	tok.Each(text, func(w []byte) {
		if i := t.Index(w, skip); i >= 0 {
			c.Add(i)
		}
	}, nil)
	return t.SumCounted(c, v)
}

// Index is the index of word w as a sentence counts it: -1 for a word the
// table lacks, a negation, or a word for which skip (when not nil) is
// true.
func (t *Table) Index(w []byte, skip func(w []byte) bool) int {
	if isNegation(w) || skip != nil && skip(w) {
		return -1
	}
	return t.Lookup(w)
}

// Counter counts the words of one text, by table index, in order of first
// appearance, for SumCounted. It lets a caller that tokenises text for
// its own purposes (the embedder's hashing half) count the words as it
// goes instead of tokenising the text again. Its zero value is ready; it
// is not safe for concurrent use.
type Counter struct {
	counts []int32 // by word index, grown on demand
	order  []int32 // the words counted, in order of first appearance
	found  int
}

// Reset empties c, in time proportional to the words it counted.
func (c *Counter) Reset() {
	for _, i := range c.order {
		c.counts[i] = 0
	}
	c.order = c.order[:0]
	c.found = 0
}

// Add counts word i (an index from Index, not -1) once more.
func (c *Counter) Add(i int) {
	if i >= len(c.counts) {
		c.counts = append(c.counts, make([]int32, i+1-len(c.counts)+len(c.counts)/2)...)
	}
	if c.counts[i] == 0 {
		c.order = append(c.order, int32(i))
	}
	c.counts[i]++
	c.found++
}

// SumCounted adds the SIF vector of the words c counted to v, as Sentence
// does for a text, and returns the number of words counted.
func (t *Table) SumCounted(c *Counter, v []float32) int {
	if c.found == 0 {
		return 0
	}
	// In order of first appearance: any other order would change the
	// sum's rounding from one run (or one caller) to the next.
	for _, i := range c.order {
		n := c.counts[i]
		w := t.Weight(int(i))
		if n > 1 {
			w *= sublinear(n)
		}
		t.AddTo(v, int(i), w)
	}
	t.RemoveCommon(v)
	return c.found
}

// sublinear is 1+ln n, the weight of a word met n times, looked up for
// the small counts most words have (the same float32 as computed).
func sublinear(n int32) float32 {
	if n < int32(len(sublinearTable)) {
		return sublinearTable[n]
	}
	return 1 + float32(math.Log(float64(n)))
}

// sublinearTable holds sublinear's small values; it is filled once, when
// the package is initialised, and never changed.
var sublinearTable = func() (t [256]float32) {
	for n := range t {
		t[n] = 1 + float32(math.Log(float64(n)))
	}
	return t
}()

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

// IsNegation reports whether w is a negation, which sentence vectors leave
// out.
func IsNegation(w []byte) bool { return isNegation(w) }
