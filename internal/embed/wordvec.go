package embed

import (
	"context"
	_ "embed" // the word-vector table
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/contextfs/contextfs/internal/wordvec"
)

// wordvecData is the word-vector table scripts/model.sh builds from Debian's
// documentation packages (docs/EMBEDDER.md). It is part of the binary's
// data and never copied: the operating system reads the pages of the words
// a text uses when it first uses them, so a command that embeds nothing
// (--version, list, a save without checks) never reads it.
//
//go:embed wordvec.bin
var wordvecData []byte

// wordTable opens the table on the first vector. Opening checks the header
// and reads the common component: microseconds.
var wordTable = sync.OnceValues(func() (*wordvec.Table, error) {
	return wordvec.Open(wordvecData, sifA)
})

// sifA is SIF's a: a word of corpus frequency p weighs a/(a+p), so "the"
// (p ≈ 0.05) weighs 0.006 and a word seen once in 100,000 0.97. It must
// match the -sif-a of make model, with which the common component was
// found.
const sifA = 3e-4

// softwareModel names the default vector space: SIF sentence vectors from
// the word table (identified by the first 12 hex digits of its SHA-256,
// wordvecSum, which TestWordvecSum checks) joined with the hashing
// embedder's vector. A new table or a change to either half or to the
// mixing weight must change the name, so that cached vectors are
// recomputed.
func softwareModel(dim int) string {
	return fmt.Sprintf("builtin/sif-%s+hash-v2-%.2f/%d", wordvecSum[:12], docMix, dim)
}

// The vector is [√m·sif, √(1-m)·hash], both halves unit length, so the
// cosine of two texts embedded with one m is m·cos_sif + (1-m)·cos_hash.
// Texts (memories, code, a save's duplicate check, SICK) are embedded
// with docMix; search queries with queryMix, which makes the cosine of a
// query and a text √(qm·dm)·cos_sif + √((1-qm)(1-dm))·cos_hash: between
// texts the hashing half leads (it knows negation and exact wording, which
// is what tells a duplicate from a neighbour, and what SICK rewards), from
// a question the word vectors do (they know that PostgreSQL is a
// database). Chosen on SICK and the world-knowledge set
// (docs/EMBEDDER.md).
//
// The queries of a code search (search --type code) are embedded with
// codeMix = 0: the hashing half alone, the exact words, identifier parts
// and character n-grams a commit subject shares with the file it changed.
// Measured on the code sets of make bench-quality (hybrid MRR@10, go-git,
// requests, ky): m = 0.15 0.717, 0.406, 0.401; 0.05 0.719, 0.407, 0.406;
// 0.02 0.723, 0.409, 0.408; 0 0.734, 0.403, 0.408 (the best mean).
const (
	docMix   = 0.15
	queryMix = 0.95
	codeMix  = 0
)

// docParams are the hashing half's weights for texts: the hashing
// embedder's own (defaultParams), whose heavy negation feature is what
// makes a sentence and its negation no paraphrases. queryParams drop that
// shared feature from queries: "why don't we ..." asks about the rest of
// the sentence, and with it every memory that says "not" about anything
// ranked high.
var (
	docParams   = defaultParams
	queryParams = func() params {
		p := defaultParams
		p.negWeight = 0
		return p
	}()
)

// software is the default embedder: word vectors learned from technical
// text (what "database" and "PostgreSQL" have in common) joined with
// hashed features (exact words, identifiers, character n-grams).
type software struct {
	doc, query half
	code       half // the queries of a code search: see codeMix
	// cover keeps the words of the texts Coverage has read.
	cover coverMemo
}

// half is how one side (texts or queries) is embedded.
type half struct {
	hash *builtin
	mix  float32
	// skip leaves words out of the word-vector half (nil: none).
	skip func(w []byte) bool
}

func newSoftware(doc, query params, docM, queryM float32) *software {
	s := &software{doc: half{hash: newBuiltin(doc), mix: docM}, query: half{hash: newBuiltin(query), mix: queryM, skip: isStopWord}}
	s.query.hash.wvSkip = s.query.skip
	s.code = half{hash: s.doc.hash, mix: codeMix}
	return s
}

// Model names the vector space; see softwareModel.
func (s *software) Model() string { return softwareModel(s.Dim()) }

// Dim is the table's dimension plus the hashing half's.
func (s *software) Dim() int { return wordvecDim + builtinDim }

// queryScale is the cosine of a query and the same text: both halves
// agree fully, so it is √(qm·dm) + √((1-qm)(1-dm)).
func (s *software) queryScale() float64 {
	q, d := float64(s.query.mix), float64(s.doc.mix)
	return math.Sqrt(q*d) + math.Sqrt((1-q)*(1-d))
}

// Embed returns one unit vector per text.
func (s *software) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return s.embed(ctx, texts, s.doc)
}

// EmbedCodeQuery returns one unit vector per query of a code search.
func (s *software) EmbedCodeQuery(ctx context.Context, texts []string) ([][]float32, error) {
	return s.embed(ctx, texts, s.code)
}

// codeQueryScale is the cosine of a code query and the same text.
func (s *software) codeQueryScale() float64 {
	q, d := float64(s.code.mix), float64(s.doc.mix)
	return math.Sqrt(q*d) + math.Sqrt((1-q)*(1-d))
}

// EmbedQuery returns one unit vector per search query.
func (s *software) EmbedQuery(ctx context.Context, texts []string) ([][]float32, error) {
	return s.embed(ctx, texts, s.query)
}

func (s *software) embed(ctx context.Context, texts []string, h half) ([][]float32, error) {
	t, err := wordTable()
	if err != nil {
		return nil, fmt.Errorf("embed: builtin word vectors: %w", err)
	}
	if t.Dim() != wordvecDim {
		return nil, fmt.Errorf("embed: builtin word vectors: dimension %d, want %d", t.Dim(), wordvecDim)
	}
	dim := s.Dim()
	flat := make([]float32, len(texts)*dim)
	out := make([][]float32, len(texts))
	sc := h.hash.pool.Get().(*scratch)
	defer h.hash.pool.Put(sc)
	a := float32(math.Sqrt(float64(h.mix)))
	b := float32(math.Sqrt(float64(1 - h.mix)))
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("embed: builtin: %w", err)
			}
		}
		v := flat[i*dim : (i+1)*dim : (i+1)*dim]
		w, hv := v[:wordvecDim], v[wordvecDim:]
		// One pass over the text gives both halves.
		h.hash.embedWords(sc, text, hv, t, w)
		wordvec.Normalize(w)
		for j := range w {
			w[j] *= a
		}
		for j := range hv {
			hv[j] *= b
		}
		wordvec.Normalize(v)
		out[i] = v
	}
	return out, nil
}

// stopWords are the function words of stopWordList, as the word-vector
// tokeniser spells them.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopWordList) {
		m[w] = true
	}
	return m
})

// isStopWord says whether w is a function word. A query's word-vector half
// leaves them out: SIF weighs a word by its rarity in the training corpus,
// reference documentation, which seldom asks anything, so that a
// question's own words weighed more than its subject ("what" 0.50 and
// "should" 0.25 against "database" 0.25 in "What database should I use
// ...?"), and pulled every question towards the texts that share them.
// The hashing half gives them no weight either (stopWeight).
func isStopWord(w []byte) bool { return stopWords()[string(w)] }
