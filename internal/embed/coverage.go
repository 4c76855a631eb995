package embed

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

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
// nothing to count with).
//
// What a text's words are (coverWord) does not depend on the query, and
// a search re-ranks the same candidate memories for query after query (a
// long-lived server's get_context for task after task): the embedder keeps
// each text's words, keyed by the text itself, so that a text is
// tokenised once, never with stale words (coverMemo).
func Coverage(ctx context.Context, e Embedder, query string, texts []string) (cover []float64, ok bool, err error) {
	cv, ok, err := NewCoverer(e, query)
	if err != nil || !ok {
		return nil, ok, err
	}
	cover, err = cv.Cover(ctx, texts)
	return cover, err == nil, err
}

// Coverer counts, text after text, how much of one query's content words
// each text covers (see Coverage), so that a caller can read texts in
// batches and stop once the rest cannot matter. Not safe for concurrent
// use.
type Coverer struct {
	sw  *software
	t   *wordvec.Table
	tok wordvec.Tokenizer
	// q are the query's content words' vectors, nil for a word the table
	// lacks (a name, an identifier), which only its own spelling covers;
	// words their positions in q.
	q     [][]float32
	words map[string]int
	// covers is the set of query words each word of the texts covers,
	// shared by the texts: most words recur.
	covers map[string]uint64
	v      []float32 // one text word's unit vector, reused
	seen   map[string]bool
}

// NewCoverer is the Coverer of query; ok is false for an embedder
// without word vectors.
func NewCoverer(e Embedder, query string) (cv *Coverer, ok bool, err error) {
	sw, ok := e.(*software)
	if !ok {
		return nil, false, nil
	}
	t, err := wordTable()
	if err != nil {
		return nil, false, fmt.Errorf("embed: builtin word vectors: %w", err)
	}
	cv = &Coverer{sw: sw, t: t, words: map[string]int{}, covers: map[string]uint64{}, seen: map[string]bool{}, v: make([]float32, t.Dim())}
	cv.tok.Each(query, func(w []byte) {
		if wordvec.IsNegation(w) || isStopWord(w) || len(cv.q) == 64 {
			return
		}
		if _, dup := cv.words[string(w)]; dup {
			return
		}
		cv.words[string(w)] = len(cv.q)
		var v []float32
		if i := t.Lookup(w); i >= 0 {
			v = unitRowInto(make([]float32, t.Dim()), t, i)
		}
		cv.q = append(cv.q, v)
	}, nil)
	return cv, true, nil
}

// Cover returns the coverage of each text (see Coverage).
func (cv *Coverer) Cover(ctx context.Context, texts []string) ([]float64, error) {
	cover := make([]float64, len(texts))
	if len(cv.q) == 0 {
		for i := range cover {
			cover[i] = 1
		}
		return cover, nil
	}
	all := uint64(1)<<len(cv.q) - 1
	if len(cv.q) == 64 {
		all = ^uint64(0)
	}
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed: coverage: %w", err)
		}
		var got uint64
		for _, w := range cv.sw.cover.words(cv.t, &cv.tok, cv.seen, text) {
			m, ok := cv.covers[w.word]
			if !ok {
				if k, in := cv.words[w.word]; in {
					m |= 1 << k
				}
				if w.row >= 0 {
					v := unitRowInto(cv.v, cv.t, int(w.row))
					for k, qv := range cv.q {
						if qv != nil && unitDot(qv, v) >= coverCosine {
							m |= 1 << k
						}
					}
				}
				cv.covers[w.word] = m
			}
			got |= m
			if got == all { // the rest of the text cannot add a word
				break
			}
		}
		cover[i] = float64(1+bits.OnesCount64(got)) / float64(1+len(cv.q))
	}
	return cover, nil
}

// coverWord is one distinct word of a text as Coverage reads it: its
// spelling (lower-cased) and its row in the word table (-1: a word the
// table lacks, a function word or a negation, covered by spelling only).
type coverWord struct {
	word string
	row  int32
}

// coverMemo keeps the distinct words of the texts Coverage has read,
// keyed by the whole text: a text that changes is another key, so what
// it returns is always the words of the text asked about. It holds up to
// coverMemoBytes of texts and then starts again empty. The zero value is
// ready; it is safe for concurrent use.
type coverMemo struct {
	mu    sync.Mutex
	texts map[string][]coverWord
	bytes int
	// read counts the texts tokenised (not found in the memo), for tests.
	read atomic.Int64
}

// coverMemoBytes bounds the texts a coverMemo keeps (their words take
// about as much again): at about 1 KB a memory, the candidates of
// thousands of searches.
const coverMemoBytes = 16 << 20

// words returns the distinct words of text, in order of first
// appearance, tokenising it (in pieces of coverPiece, as it always was)
// only if the memo lacks it; seen is scratch space, emptied first.
func (cm *coverMemo) words(t *wordvec.Table, tok *wordvec.Tokenizer, seen map[string]bool, text string) []coverWord {
	cm.mu.Lock()
	ws, ok := cm.texts[text]
	cm.mu.Unlock()
	if ok {
		return ws
	}
	cm.read.Add(1)
	clear(seen)
	for _, piece := range Pieces(text, coverPiece) {
		tok.Each(piece, func(w []byte) {
			if seen[string(w)] {
				return
			}
			word := string(w)
			seen[word] = true
			ws = append(ws, coverWord{word: word, row: int32(t.Index(w, isStopWord))})
		}, nil)
	}
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if cm.texts == nil || cm.bytes+len(text) > coverMemoBytes {
		cm.texts, cm.bytes = map[string][]coverWord{}, 0
	}
	if _, dup := cm.texts[text]; !dup {
		cm.texts[text] = ws
		cm.bytes += len(text)
	}
	return ws
}

// coverPiece is the size of the pieces Coverage reads a text in.
const coverPiece = 4096

// unitRowInto is word i's vector at unit length, in dst (of the table's
// dimension), which it returns.
func unitRowInto(dst []float32, t *wordvec.Table, i int) []float32 {
	clear(dst)
	t.AddTo(dst, i, 1)
	wordvec.Normalize(dst)
	return dst
}

// unitDot is the cosine of two unit vectors.
func unitDot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
