// Package wordvec holds the word vectors of the built-in embedder: the
// tokeniser that both the training corpus and the embedder use, the
// compact table format that ships inside the binaries, and the SIF
// sentence vectors computed from it (docs/EMBEDDER.md).
//
// The tokeniser must be the same at training and at embedding time: a word
// the corpus spelt one way and a query another would miss its vector. So
// scripts/model.sh runs text through Tokens (cmd/contextfs-model corpus)
// before fastText sees it, and the embedder runs queries and memories
// through it again.
package wordvec

import (
	"unicode"
	"unicode/utf8"
)

// Tokenizer turns text into lower-cased word tokens. Words are runs of
// letters, digits and combining marks, with inner underscores and
// apostrophes. Code identifiers are split at underscores, case changes and
// letter-digit changes ("parseHTTPHeader" gives parse, http, header) and
// also kept whole ("parsehttpheader"), so prose and code meet. English
// contractions are spelt out: "don't" gives do, not; "we'll" gives we,
// will; a possessive 's is dropped. A Tokenizer holds scratch buffers and
// is not safe for concurrent use; its zero value is ready.
type Tokenizer struct {
	// PartsOnly leaves out the whole of a split identifier: the training
	// corpus is made this way, so that the vocabulary is of words rather
	// than of the compounds of one code base (an identifier seen often
	// enough, such as "postgresql", is still learnt whole where it is
	// written so).
	PartsOnly bool

	raw     []rune
	parts   []int
	counter Counter // Table.Sentence's word counts
	word    []byte
	whole   []byte
}

// Each calls fn for every token of text, in order, with a lower-cased
// token that is valid only until fn returns. sep is called (if not nil)
// at the end of a clause (. , ; : ! ? newline, brackets and quotes), where
// adjacent words stop being a phrase.
func (t *Tokenizer) Each(text string, fn func(tok []byte), sep func()) {
	t.raw = t.raw[:0]
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
				t.raw = append(t.raw, rune(c))
			case (c == '_' || c == '\'') && len(t.raw) > 0:
				t.raw = append(t.raw, rune(c))
			default:
				t.flush(fn)
				if sep != nil && clauseBreak(rune(c)) {
					sep()
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			t.raw = append(t.raw, r)
		case r == '_' && len(t.raw) > 0:
			t.raw = append(t.raw, r)
		case (r == '\'' || r == '’') && len(t.raw) > 0:
			t.raw = append(t.raw, '\'')
		default:
			t.flush(fn)
			if sep != nil && (clauseBreak(r) || unicode.IsPunct(r)) {
				sep()
			}
		}
	}
	t.flush(fn)
}

func clauseBreak(r rune) bool {
	switch r {
	case '.', ',', ';', ':', '!', '?', '\n', '(', ')', '[', ']', '{', '}', '"', '|':
		return true
	}
	return false
}

// negated maps the auxiliary of a negative contraction, lower-cased and
// without its n't, to its full form: "do" (don't), "wo" (won't), "ca"
// (can't).
var negated = map[string]string{
	"do": "do", "does": "does", "did": "did", "is": "is", "are": "are", "was": "was", "were": "were",
	"has": "has", "have": "have", "had": "had", "wo": "will", "would": "would", "ca": "can", "could": "could",
	"sha": "shall", "should": "should", "must": "must", "need": "need", "might": "might", "ai": "is", "may": "may",
}

// clitics maps a contracted ending to its word; "" drops it (the
// possessive, or "is" which "'s" may also be).
var clitics = map[string]string{
	"s": "", "re": "are", "ve": "have", "ll": "will", "m": "am", "d": "would",
}

func (t *Tokenizer) flush(fn func([]byte)) {
	raw := t.raw
	t.raw = t.raw[:0]
	t.Token(raw, fn)
}

// Token calls fn for every token of raw, one word as Each finds it (a run
// of letters, digits, combining marks, inner underscores and apostrophes,
// apostrophes as '\”): the parts and the whole of an identifier, the
// words of a contraction. It is Each for a caller that finds the words of
// a text itself; raw is not modified.
func (t *Tokenizer) Token(raw []rune, fn func([]byte)) {
	for len(raw) > 0 && (raw[len(raw)-1] == '\'' || raw[len(raw)-1] == '_') {
		raw = raw[:len(raw)-1]
	}
	if len(raw) == 0 {
		return
	}
	apos := -1
	for i, r := range raw {
		if r == '\'' {
			apos = i
			break
		}
	}
	if apos < 0 {
		t.identifier(raw, fn)
		return
	}
	head, tail := raw[:apos], raw[apos+1:]
	if len(tail) == 1 && (tail[0] == 't' || tail[0] == 'T') && len(head) > 1 && (head[len(head)-1] == 'n' || head[len(head)-1] == 'N') {
		t.word = AppendLower(t.word[:0], head[:len(head)-1])
		if full, ok := negated[string(t.word)]; ok {
			fn(append(t.word[:0], full...))
		} else {
			t.identifier(head[:len(head)-1], fn)
		}
		fn(append(t.word[:0], "not"...))
		return
	}
	t.word = AppendLower(t.word[:0], tail)
	if full, ok := clitics[string(t.word)]; ok {
		t.identifier(head, fn)
		if full != "" {
			fn(append(t.word[:0], full...))
		}
		return
	}
	t.identifier(head, fn)
	t.flushRest(tail, fn)
}

// flushRest tokenises what follows an apostrophe that is not a
// contraction ("O'Brien", "l'eau"): the pieces between apostrophes.
func (t *Tokenizer) flushRest(rest []rune, fn func([]byte)) {
	for len(rest) > 0 {
		j := -1
		for i, r := range rest {
			if r == '\'' {
				j = i
				break
			}
		}
		if j < 0 {
			t.identifier(rest, fn)
			return
		}
		t.identifier(rest[:j], fn)
		rest = rest[j+1:]
	}
}

// identifier emits the parts of a code identifier and then, if it had more
// than one part, the whole of it lower-cased without separators.
func (t *Tokenizer) identifier(raw []rune, fn func([]byte)) {
	if len(raw) == 0 {
		return
	}
	t.parts = append(t.parts[:0], 0)
	for i := 1; i < len(raw); i++ {
		prev, cur := raw[i-1], raw[i]
		var next rune
		if i+1 < len(raw) {
			next = raw[i+1]
		}
		if cur == '_' || prev == '_' ||
			IsLower(prev) && IsUpper(cur) ||
			IsUpper(prev) && IsUpper(cur) && IsLower(next) ||
			IsDigit(prev) != IsDigit(cur) {
			t.parts = append(t.parts, i)
		}
	}
	t.parts = append(t.parts, len(raw))
	if len(t.parts) == 2 {
		fn(AppendLower(t.word[:0], raw))
		return
	}
	words := 0
	t.whole = t.whole[:0]
	for k := 0; k+1 < len(t.parts); k++ {
		part := raw[t.parts[k]:t.parts[k+1]]
		if len(part) == 1 && part[0] == '_' {
			continue
		}
		words++
		t.word = AppendLower(t.word[:0], part)
		t.whole = append(t.whole, t.word...)
		fn(t.word)
	}
	if words > 1 && !t.PartsOnly {
		fn(t.whole)
	}
}

// IsLower is unicode.IsLower with ASCII decided inline (tokenizers call
// it on every rune; embed's hashing tokenizer shares it).
func IsLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

// IsUpper is unicode.IsUpper with ASCII decided inline.
func IsUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

// IsDigit is unicode.IsDigit with ASCII decided inline.
func IsDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

// AppendLower appends rs lower-cased to dst, as UTF-8.
func AppendLower(dst []byte, rs []rune) []byte {
	for _, r := range rs {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			dst = append(dst, byte(r))
			continue
		}
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}
