package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/contextfs/contextfs/internal/porter"
	"github.com/contextfs/contextfs/internal/wordvec"
)

// builtinDim is the dimension of the built-in vector space. 256 float32s is
// 1 KiB a memory: small enough to keep every vector in RAM and compare by
// brute force, large enough that hashing collisions stay a minor source of
// noise for texts of a few hundred features.
const builtinDim = 256

// builtinModel names the built-in vector space. The version must change
// whenever a change to the features, weights or word lists would change any
// vector, so that vectors cached under the old name are recomputed.
const builtinModel = "builtin/hash-v1/256"

// Seeds keep the feature kinds apart: the word "cat" and the character
// trigram "cat" must not land in the same bucket with the same sign.
const (
	seedWord    uint64 = 0x9e3779b97f4a7c15
	seedConcept uint64 = 0xc2b2ae3d27d4eb4f
	seedNgram   uint64 = 0x165667b19e3779f9
	seedBigram  uint64 = 0x27d4eb2f165667c5
	seedNegated uint64 = 0x85ebca6b0b4f1a3d
)

// negation is the feature every negating word adds. It is computed once and
// never changed.
var negation = hashString(seedConcept, "negation")

// params are the built-in embedder's weights. They are a type rather than
// constants so that a tuning harness can vary them; NewBuiltin always uses
// defaultParams.
type params struct {
	stopWeight    float32 // weight of function words relative to content words
	commonLow     float32 // weight of the most common content word
	commonRank    int     // rank at which common words would weigh as much as rare ones
	conceptWeight float32 // weight of each concept feature relative to its word
	ngramWeight   float32 // total weight of a word's character n-grams relative to the word
	ngramMin      int     // shortest character n-gram, in runes, counting the word boundary marks
	ngramMax      int     // longest character n-gram
	bigramWeight  float32 // weight of a pair of adjacent content words
	identWeight   float32 // weight of a whole identifier relative to its parts
	negWeight     float32 // weight of the negation feature
	negScope      int     // content words after a negation that it marks ("not" + word features); 0 for none
	negScopeW     float32 // weight of a marked word's negated feature relative to the word
	deriveWeight  float32 // weight of the base word of an agent noun ("rider" -> "ride")
}

// defaultParams were chosen by coordinate descent on the even-numbered SICK
// pairs, keeping the odd-numbered ones for checking. What the search found:
// function words are best ignored outright; negation needs a weight
// comparable to a whole short sentence (it is worth about +0.11 Spearman);
// concepts, agent nouns and bigrams each add a little. Character n-grams
// neither help nor hurt SICK, whose words are spelled right, and are kept at
// a low weight for what SICK does not test: compounds, code identifiers and
// typos. The ranks in commonWordList stop near 600, so with commonRank 1000
// every listed word weighs less than an unlisted one. Like the word lists,
// these values define the vector space: changing one means bumping the
// version in builtinModel.
var defaultParams = params{
	stopWeight:    0,
	commonLow:     0.35,
	commonRank:    1000,
	conceptWeight: 0.5,
	ngramWeight:   0.15,
	ngramMin:      3,
	ngramMax:      5,
	bigramWeight:  0.3,
	identWeight:   0.5,
	deriveWeight:  0.75,
	negWeight:     3,
}

// builtin is the default embedder: feature hashing of words, stems,
// concepts, character n-grams and word bigrams. It holds no mutable state
// beyond a pool of scratch buffers, so it is safe for concurrent use.
type builtin struct {
	p       params
	load    sync.Once     // sets lex, weights and tf on first use
	lex     *lexiconTable // the shared table, once loaded
	weights []float32     // lex.entries index -> word weight
	tf      [64]float32   // tfScale of small counts
	pool    sync.Pool     // *scratch
	// wvSkip leaves words out of the word vectors that embedWords
	// counts (nil: none); see half.skip.
	wvSkip func(w []byte) bool
}

// NewBuiltin returns the built-in embedder, the default: word vectors
// learned from public technical text, shipped inside the binary, joined
// with the hashing embedder's features (see software). It needs no model
// file or network and gives the same vector for the same text every time.
// Being offline and deterministic, it is also the embedder to use in tests
// that need real vectors.
func NewBuiltin() Embedder {
	return newSoftware(docParams, queryParams, docMix, queryMix)
}

// NewHashing returns the hashing embedder alone, the default before the
// word vectors (model "builtin/hash-v1/256"): features hashed into 256
// dimensions, more than 100,000 short sentences a second on one core. It
// is kept for comparison in the benchmarks.
func NewHashing() Embedder {
	return newBuiltin(defaultParams)
}

func newBuiltin(p params) *builtin {
	b := &builtin{p: p}
	b.pool.New = func() any { return new(scratch) }
	return b
}

// ready loads the lexicon and the word weights on the first embedding, so
// that constructing the embedder (every command that opens a store does)
// costs nothing.
func (b *builtin) ready() {
	b.load.Do(func() {
		b.lex = lexicon()
		b.weights = make([]float32, len(b.lex.entries))
		for i, e := range b.lex.entries {
			b.weights[i] = b.p.wordWeight(e)
		}
		for n := 1; n < len(b.tf); n++ {
			b.tf[n] = tfScale(int32(n))
		}
	})
}

// wordWeight is the weight of a known word before term frequency: low for
// function words, rising with the logarithm of frequency rank for common
// words (an inverse document frequency estimated from the rank, since
// Zipf's law makes frequency proportional to 1/rank), 1 for the rest.
func (p params) wordWeight(e lexEntry) float32 {
	switch {
	case e.stop:
		return p.stopWeight
	case e.rank > 0 && e.rank < p.commonRank:
		f := math.Log(float64(e.rank)+1) / math.Log(float64(p.commonRank)+1)
		return p.commonLow + (1-p.commonLow)*float32(f)
	}
	return 1
}

// Model names the built-in vector space; see builtinModel.
func (b *builtin) Model() string { return builtinModel }

// Dim is fixed, so vectors can be stored before any text is embedded.
func (b *builtin) Dim() int { return builtinDim }

// Embed returns one L2-normalised vector per text. A text with no words
// gets the zero vector, which is at cosine 0 from everything.
func (b *builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*builtinDim)
	sc := b.pool.Get().(*scratch)
	defer b.pool.Put(sc)
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("embed: builtin: %w", err)
			}
		}
		out[i] = flat[i*builtinDim : (i+1)*builtinDim : (i+1)*builtinDim]
		b.embed(sc, text, out[i])
	}
	return out, nil
}

// featGroup is a distinct feature of a text: its total weight and count.
type featGroup struct {
	h    uint64
	sum  float32
	n    int32
	slot int32 // in scratch.slots
}

// feature is one hashed feature occurrence and its weight.
type feature struct {
	h uint64
	w float32
}

// scratch holds the buffers one embedding needs, reused across calls so
// that embedding allocates nothing per token.
type scratch struct {
	feats  []feature
	slots  []int32 // open-addressing table of project, indexes into groups
	groups []featGroup
	raw    []rune // current token as written
	parts  []int  // identifier part boundaries in raw
	word   []byte // lower-cased word
	stem   []byte
	ident  []byte // lower-cased identifier without separators
	marked []byte // word between boundary marks, for n-grams
	offs   []int  // rune offsets in marked
	prev   uint64 // previous content word, for bigrams; 0 at a boundary
	neg    int    // content words still in the scope of a negation
	prevW  float32
	derive []byte // candidate base of an agent noun

	// words remembers the features each word added (a span of
	// wordFeats), so a word met again (identifiers repeat throughout
	// code) is not stemmed, looked up and split into n-grams again.
	words     map[string]wordMemo
	wordFeats []feature

	// The word-vector half's words, counted while the features are
	// collected (embedWords) so that a text is tokenised once: wv is the
	// table (nil when not counting), wvc the counts. wvMute stops the
	// counting inside a contraction, which the word vectors tokenise
	// their own way (wvTok); cjk marks a text with Han or kana, which
	// they also split differently, so it is tokenised again.
	wv     *wordvec.Table
	wvc    wordvec.Counter
	wvTok  wordvec.Tokenizer
	wvMute bool
	cjk    bool
}

// wordMemo is what word added for one word, apart from its bigram with
// the previous word: wordFeats[from:to], and for a content word its hash
// and weight, which the next bigram needs.
type wordMemo struct {
	from, to int32
	h        uint64
	ww       float32
	content  bool
	wv       int32 // the word's index in scratch.wv (wordvec.Table.Index), or wvUnknown
}

// wvUnknown marks a memo whose word-vector index was not looked up: it
// was made while no table was counting.
const wvUnknown = -2

// maxWordMemo bounds the words a scratch remembers (a few MB of
// features); past it the memo starts again.
const maxWordMemo = 1 << 13

// embed writes the vector of text into v (len builtinDim, zeroed).
func (b *builtin) embed(sc *scratch, text string, v []float32) {
	b.collect(sc, text)
	b.project(sc, sc.feats, v)
}

// embedWords writes the hashed vector of text into v (len builtinDim,
// zeroed, normalised as embed's) and adds its SIF vector from table t to
// w (len t.Dim(), zeroed, not normalised), with what t.SentenceSkipping
// (b.wvSkip) would give, bit for bit, from the one pass over the text
// that finds its features (TestEmbedWordsMatchesTwoPasses).
func (b *builtin) embedWords(sc *scratch, text string, v []float32, t *wordvec.Table, w []float32) {
	sc.wv, sc.cjk = t, false
	sc.wvc.Reset()
	b.collect(sc, text)
	sc.wv = nil
	b.project(sc, sc.feats, v)
	if sc.cjk {
		t.SentenceSkipping(&sc.wvTok, text, w, b.wvSkip)
		return
	}
	t.SumCounted(&sc.wvc, w)
}

// countWord counts word w, as the word vectors spell it, when a table is
// counting.
func (b *builtin) countWord(sc *scratch, w []byte) {
	if sc.wv != nil && !sc.wvMute {
		if i := sc.wv.Index(w, b.wvSkip); i >= 0 {
			sc.wvc.Add(i)
		}
	}
}

// collect gathers the features of text into sc.feats.
func (b *builtin) collect(sc *scratch, text string) {
	b.ready()
	sc.feats = sc.feats[:0]
	sc.raw = sc.raw[:0]
	sc.prev, sc.neg = 0, 0
	for i := 0; i < len(text); {
		// ASCII, most of any text and nearly all of code, takes a short
		// cut through the cases below.
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
				sc.raw = append(sc.raw, rune(c))
			case (c == '_' || c == '\'') && len(sc.raw) > 0:
				sc.raw = append(sc.raw, rune(c))
			default:
				b.flush(sc)
				if isClauseBreak(rune(c)) {
					sc.prev, sc.neg = 0, 0
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case isCJK(r):
			// Han and kana are written without spaces: each character is a
			// token, and the bigrams of adjacent ones carry the words.
			sc.cjk = true
			b.flush(sc)
			sc.raw = append(sc.raw, r)
			b.flush(sc)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			sc.raw = append(sc.raw, r)
		case r == '_' && len(sc.raw) > 0:
			sc.raw = append(sc.raw, r)
		case (r == '\'' || r == '’') && len(sc.raw) > 0:
			sc.raw = append(sc.raw, '\'')
		default:
			b.flush(sc)
			if isClauseBreak(r) {
				sc.prev, sc.neg = 0, 0
			}
		}
	}
	b.flush(sc)
}

// isCJK reports whether r is in a script written without spaces between
// words, where the tokeniser must split characters itself.
func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// isClauseBreak reports whether r ends a clause, across which adjacent
// words are not a phrase.
func isClauseBreak(r rune) bool {
	switch r {
	case '.', ',', ';', ':', '!', '?', '\n', '(', ')', '[', ']', '{', '}', '"', '|':
		return true
	}
	return false
}

// flush turns the pending raw token into features.
func (b *builtin) flush(sc *scratch) {
	raw := sc.raw
	sc.raw = sc.raw[:0]
	for len(raw) > 0 && (raw[len(raw)-1] == '\'' || raw[len(raw)-1] == '_') {
		raw = raw[:len(raw)-1]
	}
	if len(raw) == 0 {
		return
	}
	if i := slices.Index(raw, '\''); i >= 0 {
		b.contraction(sc, raw, i)
		return
	}
	b.identifier(sc, raw)
}

// contraction handles a token with an apostrophe at i. A negated auxiliary
// ("don't", "won't") is dropped: it is a function word, and stemming its
// pieces would invent content words ("won" is not "win"). Clitics and the
// possessive ("he's", "we'll", "dog's") leave the word before them. Other
// apostrophes ("O'Brien", "l'eau") separate two words.
func (b *builtin) contraction(sc *scratch, raw []rune, i int) {
	if sc.wv != nil && !sc.wvMute {
		// The word vectors spell contractions out ("don't": do, not):
		// their tokeniser counts this one, and the features below do not.
		sc.wvTok.Token(raw, func(w []byte) { b.countWord(sc, w) })
		sc.wvMute = true
		defer func() { sc.wvMute = false }()
	}
	suffix := raw[i+1:]
	if len(suffix) == 1 && (suffix[0] == 't' || suffix[0] == 'T') && i > 0 && (raw[i-1] == 'n' || raw[i-1] == 'N') {
		b.negate(sc)
		return
	}
	switch string(suffix) {
	case "s", "S", "re", "ve", "ll", "d", "m", "RE", "VE", "LL", "D", "M":
		b.identifier(sc, raw[:i])
		return
	}
	b.identifier(sc, raw[:i])
	for len(suffix) > 0 {
		j := slices.Index(suffix, '\'')
		if j < 0 {
			b.identifier(sc, suffix)
			return
		}
		b.identifier(sc, suffix[:j])
		suffix = suffix[j+1:]
	}
}

// identifier splits a token into words at underscores, lower-to-upper case
// changes and letter-digit changes ("parseHTTPHeader2" -> parse, http,
// header, 2), so that code identifiers match prose about them. When it
// splits, the whole identifier, lower-cased and without separators, is kept
// as an extra feature so that "user_id", "userId" and "UserID" match each
// other better than they match "user" alone.
func (b *builtin) identifier(sc *scratch, raw []rune) {
	if len(raw) == 0 {
		return
	}
	sc.parts = append(sc.parts[:0], 0)
	for i := 1; i < len(raw); i++ {
		prev, cur := raw[i-1], raw[i]
		var next rune
		if i+1 < len(raw) {
			next = raw[i+1]
		}
		split := cur == '_' || prev == '_' ||
			wordvec.IsLower(prev) && wordvec.IsUpper(cur) ||
			wordvec.IsUpper(prev) && wordvec.IsUpper(cur) && wordvec.IsLower(next) ||
			wordvec.IsDigit(prev) != wordvec.IsDigit(cur)
		if split {
			sc.parts = append(sc.parts, i)
		}
	}
	sc.parts = append(sc.parts, len(raw))

	words := 0
	sc.ident = sc.ident[:0]
	for k := 0; k+1 < len(sc.parts); k++ {
		part := raw[sc.parts[k]:sc.parts[k+1]]
		if len(part) == 1 && part[0] == '_' {
			continue
		}
		words++
		sc.word = wordvec.AppendLower(sc.word[:0], part)
		sc.ident = append(sc.ident, sc.word...)
		b.word(sc, sc.word)
	}
	if words > 1 {
		b.add(sc, hashBytes(seedWord, sc.ident), b.p.identWeight)
		b.countWord(sc, sc.ident)
	}
}

// word adds the features of one lower-cased word: its canonical stem, its
// concepts, its character n-grams, and its bigram with the previous content
// word.
func (b *builtin) word(sc *scratch, w []byte) {
	if m, ok := sc.words[string(w)]; ok {
		if sc.wv != nil && !sc.wvMute {
			if m.wv == wvUnknown {
				m.wv = int32(sc.wv.Index(w, b.wvSkip))
				sc.words[string(w)] = m
			}
			if m.wv >= 0 {
				sc.wvc.Add(int(m.wv))
			}
		}
		sc.feats = append(sc.feats, sc.wordFeats[m.from:m.to]...)
		if m.content {
			b.negated(sc, m.h, m.ww)
			b.bigram(sc, m.h, m.ww)
		}
		return
	}
	start := len(sc.feats)
	h, ww, content := b.wordFeatures(sc, w)
	if sc.words == nil || len(sc.words) >= maxWordMemo {
		sc.words, sc.wordFeats = make(map[string]wordMemo), sc.wordFeats[:0]
	}
	from := len(sc.wordFeats)
	sc.wordFeats = append(sc.wordFeats, sc.feats[start:]...)
	wv := int32(wvUnknown)
	if sc.wv != nil {
		wv = int32(sc.wv.Index(w, b.wvSkip))
		if wv >= 0 && !sc.wvMute {
			sc.wvc.Add(int(wv))
		}
	}
	sc.words[string(w)] = wordMemo{from: int32(from), to: int32(len(sc.wordFeats)), h: h, ww: ww, content: content, wv: wv}
	if content {
		b.negated(sc, h, ww)
		b.bigram(sc, h, ww)
	}
}

// negate adds the negation feature and opens the scope of a negation: the
// next negScope content words in the clause also add a negated feature of
// their own ("not"+word), so that "not cached" differs from "cached"
// without making every negated text alike.
func (b *builtin) negate(sc *scratch) {
	b.add(sc, negation, b.p.negWeight)
	sc.neg = b.p.negScope
}

// negated adds the negated feature of a content word in a negation's
// scope.
func (b *builtin) negated(sc *scratch, h uint64, ww float32) {
	if sc.neg > 0 {
		sc.neg--
		b.add(sc, mix64(h^seedNegated), b.p.negScopeW*ww)
	}
}

// bigram adds the bigram of the previous content word with this one (hash
// h, weight ww), which becomes the previous one.
func (b *builtin) bigram(sc *scratch, h uint64, ww float32) {
	if sc.prev != 0 {
		bw := b.p.bigramWeight * float32(math.Sqrt(float64(sc.prevW*ww)))
		b.add(sc, mix64(sc.prev*31^h^seedBigram), bw)
	}
	sc.prev, sc.prevW = h, ww
}

// wordFeatures adds the features of w that do not depend on its
// neighbours, and returns its hash and weight; content is false for a
// function word, which takes no part in bigrams.
func (b *builtin) wordFeatures(sc *scratch, w []byte) (h uint64, ww float32, content bool) {
	s := w
	ascii := isASCII(w)
	if ascii { // the stemmer and the word lists are English
		if base, ok := b.lex.irregular[string(w)]; ok {
			sc.stem = append(sc.stem[:0], base...)
		} else {
			sc.stem = append(sc.stem[:0], w...)
		}
		s = porter.Stem(sc.stem)
	}

	i, known := b.lex.index[string(s)]
	if known && b.lex.entries[i].stop {
		if b.lex.entries[i].neg {
			b.negate(sc)
		}
		if ww := b.weights[i]; ww > 0 {
			b.add(sc, b.lex.entries[i].word, ww)
		}
		return 0, 0, false // function words take no part in concepts, n-grams or bigrams
	}

	h, ww, cw := hashBytes(seedWord, s), float32(1), b.p.conceptWeight
	var concepts []uint64
	if known {
		e := &b.lex.entries[i]
		h, ww, concepts = e.word, b.weights[i], e.concepts
	} else if ascii {
		if j, ok := b.agentBase(sc, s); ok {
			e := &b.lex.entries[j]
			b.add(sc, e.word, b.p.deriveWeight)
			concepts, cw = e.concepts, cw*b.p.deriveWeight
		}
	}
	b.add(sc, h, ww)
	if n := len(concepts); n > 0 {
		// Spread over the concepts so that a word in many categories does
		// not outweigh the word itself.
		cw *= ww / float32(math.Sqrt(float64(n)))
		for _, c := range concepts {
			b.add(sc, c, cw)
		}
	}
	b.ngrams(sc, s, ww*b.p.ngramWeight)
	return h, ww, true
}

// agentBase finds the verb or noun an unknown agent noun is derived from:
// "rider" -> "ride", "swimmer" -> "swim", "cyclist" -> "cycle", "musician"
// -> "music". The base must be a word the lexicon knows, which keeps
// coincidences such as "corner" -> "corn" to words the lexicon lacks.
func (b *builtin) agentBase(sc *scratch, s []byte) (int32, bool) {
	var base []byte
	switch {
	case len(s) > 4 && string(s[len(s)-2:]) == "er":
		base = s[:len(s)-2]
	case len(s) > 5 && string(s[len(s)-3:]) == "ist":
		base = s[:len(s)-3]
	case len(s) > 6 && string(s[len(s)-4:]) == "ician":
		base = s[:len(s)-3]
	default:
		return 0, false
	}
	// Stemming base+"ing" restores what the suffix took: a final e
	// ("rid" -> "ride") or a doubled consonant ("swimm" -> "swim").
	sc.derive = append(append(sc.derive[:0], base...), "ing"...)
	i, ok := b.lex.index[string(porter.Stem(sc.derive))]
	return i, ok
}

// ngrams adds the character n-grams of "<w>", the boundary marks letting
// prefixes and suffixes count as such. They give partial credit to
// inflections and compounds the stemmer and lexicon miss ("dataset" and
// "data set", "kubectl" and "kube"). Their weights are scaled so that the
// n-grams of one word together weigh total, however long the word.
func (b *builtin) ngrams(sc *scratch, w []byte, total float32) {
	sc.marked = append(append(append(sc.marked[:0], '<'), w...), '>')
	sc.offs = sc.offs[:0]
	for i := range string(sc.marked) {
		sc.offs = append(sc.offs, i)
	}
	sc.offs = append(sc.offs, len(sc.marked))
	runes := len(sc.offs) - 1
	lo, hi := b.p.ngramMin, min(b.p.ngramMax, runes)
	if lo > hi {
		return
	}
	count := 0
	for n := lo; n <= hi; n++ {
		count += runes - n + 1
	}
	nw := total / float32(math.Sqrt(float64(count)))
	for n := lo; n <= hi; n++ {
		for i := 0; i+n <= runes; i++ {
			b.add(sc, hashBytes(seedNgram, sc.marked[sc.offs[i]:sc.offs[i+n]]), nw)
		}
	}
}

func (b *builtin) add(sc *scratch, h uint64, w float32) {
	if w > 0 {
		sc.feats = append(sc.feats, feature{h, w})
	}
}

// project sums the features into v with sublinear term frequency and signed
// hashing, then L2-normalises v. A feature seen c times counts 1+ln(c)
// times its mean weight rather than c times, so a word repeated in a long
// note does not drown the rest. The sign taken from the hash makes
// colliding features cancel on average instead of adding up, which keeps
// inner products unbiased.
func (b *builtin) project(sc *scratch, feats []feature, v []float32) {
	// Aggregate repeated features in an open-addressing table, in order of
	// first appearance: a sort by hash cost a quarter of a rebuild.
	size := 16
	for size < 2*len(feats) {
		size <<= 1
	}
	if len(sc.slots) < size {
		sc.slots = make([]int32, size) // all empty
	}
	// A slot holds a group's index plus one, 0 when empty. The slots a
	// text used are emptied again at the end, which costs less than
	// clearing a table sized for every feature.
	slots := sc.slots[:size]
	groups := sc.groups[:0]
	mask := uint64(size - 1)
	for _, f := range feats {
		for i := f.h & mask; ; i = (i + 1) & mask {
			g := slots[i] - 1
			if g < 0 {
				slots[i] = int32(len(groups)) + 1
				groups = append(groups, featGroup{h: f.h, sum: f.w, n: 1, slot: int32(i)})
				break
			}
			if groups[g].h == f.h {
				groups[g].sum += f.w
				groups[g].n++
				break
			}
		}
	}
	sc.groups = groups
	for _, g := range groups {
		slots[g.slot] = 0
	}
	for _, g := range groups {
		sum := g.sum
		if g.n > 1 {
			sum *= b.tfScale(g.n)
		}
		m := mix64(g.h)
		if m>>63 == 1 {
			sum = -sum
		}
		v[m%builtinDim] += sum
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
}

// tfScale is (1+ln n)/n, the sublinear term frequency over the count.
// Small counts, most of them, are looked up in the table ready fills, of
// values computed the same way.
func (b *builtin) tfScale(n int32) float32 {
	if n < int32(len(b.tf)) {
		return b.tf[n]
	}
	return tfScale(n)
}

func tfScale(n int32) float32 {
	return (1 + float32(math.Log(float64(n)))) / float32(n)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hashBytes is 64-bit FNV-1a with a seed for the feature kind. FNV is short
// enough to inline in spirit and good enough once mix64 spreads its bits.
func hashBytes(seed uint64, b []byte) uint64 {
	h := seed ^ 0xcbf29ce484222325
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

func hashString(seed uint64, s string) uint64 {
	h := seed ^ 0xcbf29ce484222325
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// mix64 is the SplitMix64 finaliser: it makes every output bit depend on
// every input bit, so the bucket and sign bits of a feature are independent.
func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
