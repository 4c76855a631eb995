// Package query parses the search syntax contextfs accepts on top of plain
// words: "exact phrase", prefix*, -exclude (a word or a "phrase") and OR
// between required parts. Plain words stay the default: any of them
// matching ranks a result, by keyword and by meaning.
//
// Rules: a quoted phrase is required (a result contains it); parts joined
// by OR are alternatives, one of which is required; a part after "-" is
// excluded; a word ending in "*" matches every word it begins; other words
// rank but are not required. The parser never fails: an unclosed quote
// runs to the end of the text, and a lone "-", "*" or "OR" is ignored.
package query

import (
	"strings"
	"unicode"
)

// Part is a word or a phrase of the query.
type Part struct {
	Words  []string // lower-cased, without punctuation
	Prefix bool     // the last word matches every word it begins
}

// FTS is the part as an FTS5 phrase: `"exact phrase"`, or `"pre" *`.
func (p Part) FTS() string {
	s := `"` + strings.Join(p.Words, " ") + `"`
	if p.Prefix {
		s += " *"
	}
	return s
}

// Parsed is a query taken apart.
type Parsed struct {
	// Plain is the text without operators, for the embedder and snippets.
	Plain string
	// Rank are the parts that rank results (every part not excluded).
	Rank []Part
	// Require are groups of alternatives: a result must match at least
	// one part of every group.
	Require [][]Part
	// Exclude are parts a result must not match.
	Exclude []Part
}

// Syntax reports whether the query uses any operator, so that callers can
// keep plain queries on their unchanged path.
func (q Parsed) Syntax() bool {
	if len(q.Require) > 0 || len(q.Exclude) > 0 {
		return true
	}
	for _, p := range q.Rank {
		if p.Prefix || len(p.Words) > 1 {
			return true
		}
	}
	return false
}

// Match is the FTS5 expression a result must satisfy, or "" when nothing
// is required or excluded. Exclusions alone are expressed against every
// document by the caller (FTS5's NOT needs a left side).
func (q Parsed) Match() (require, exclude string) {
	var groups []string
	for _, g := range q.Require {
		alts := make([]string, len(g))
		for i, p := range g {
			alts[i] = p.FTS()
		}
		groups = append(groups, "("+strings.Join(alts, " OR ")+")")
	}
	var ex []string
	for _, p := range q.Exclude {
		ex = append(ex, p.FTS())
	}
	return strings.Join(groups, " AND "), strings.Join(ex, " OR ")
}

// token is a lexical piece: a part, a "-" before it, or the OR keyword.
type token struct {
	part    Part
	quoted  bool
	negated bool
	or      bool
}

// Parse takes text apart.
func Parse(text string) Parsed {
	var toks []token
	rs := []rune(text)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
			continue
		}
		neg := false
		if r == '-' && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) && (i == 0 || unicode.IsSpace(rs[i-1])) {
			neg = true
			i++
		}
		if i < len(rs) && rs[i] == '"' {
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			p := Part{Words: words(string(rs[i+1 : min(j, len(rs))]))}
			i = j + 1
			if i < len(rs) && rs[i] == '*' {
				p.Prefix = true
				i++
			}
			if len(p.Words) > 0 {
				toks = append(toks, token{part: p, quoted: true, negated: neg})
			}
			continue
		}
		j := i
		for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '"' {
			j++
		}
		raw := string(rs[i:j])
		i = j
		if raw == "OR" && !neg {
			toks = append(toks, token{or: true})
			continue
		}
		prefix := strings.HasSuffix(raw, "*")
		ws := words(raw)
		if len(ws) == 0 {
			continue
		}
		// A word with inner punctuation ("doc/util.go") is its words.
		for k, w := range ws {
			p := Part{Words: []string{w}, Prefix: prefix && k == len(ws)-1}
			toks = append(toks, token{part: p, negated: neg})
		}
	}
	var q Parsed
	var plain []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.or {
			continue
		}
		if t.negated {
			q.Exclude = append(q.Exclude, t.part)
			continue
		}
		plain = append(plain, t.part.Words...)
		q.Rank = append(q.Rank, t.part)
		// Gather an OR chain: t OR u OR v.
		group := []Part{t.part}
		required := t.quoted
		for i+2 < len(toks) && toks[i+1].or && !toks[i+2].or && !toks[i+2].negated {
			u := toks[i+2]
			group = append(group, u.part)
			plain = append(plain, u.part.Words...)
			q.Rank = append(q.Rank, u.part)
			required = true
			i += 2
		}
		if required {
			q.Require = append(q.Require, group)
		}
	}
	q.Plain = strings.Join(plain, " ")
	return q
}

// words splits s into lower-cased words of letters, digits and "_".
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// Normalize spells out English contractions and drops possessive "'s", so
// that a question's "can't" or "didn't" does not reach the rankers as
// fragments: split at the apostrophe, "t" matched t.Run with a keyword
// score of 1.0 and "didn" became a rare, decisive word. Both apostrophes,
// ' and ’, are read. "can't" and "won't" become "cannot" and "will not";
// other n't forms "<verb> not"; 're, 've, 'll, 'd and 'm become are, have,
// will, would and am; "it's", "that's", "there's", "what's" and "let's"
// become "it is", "that is", "there is", "what is" and "let us"; any other
// 's is a possessive and goes. Text without an apostrophe is returned as
// it is.
func Normalize(text string) string {
	if !strings.ContainsAny(text, "'’") {
		return text
	}
	var b strings.Builder
	rs := []rune(text)
	for i := 0; i < len(rs); {
		// A word: letters and digits, with apostrophes inside.
		if !isWordRune(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && (isWordRune(rs[j]) || isApostrophe(rs[j]) && j+1 < len(rs) && isWordRune(rs[j+1]) && j > i) {
			j++
		}
		b.WriteString(expand(string(rs[i:j])))
		i = j
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// irregular contractions, lower-cased with a plain apostrophe.
var irregular = map[string]string{
	"can't": "cannot", "won't": "will not", "shan't": "shall not", "ain't": "is not",
	"it's": "it is", "that's": "that is", "there's": "there is", "what's": "what is",
	"here's": "here is", "who's": "who is", "where's": "where is", "let's": "let us",
	"he's": "he is", "she's": "she is",
}

// expand spells out one word's contraction, keeping its case where it can.
func expand(w string) string {
	i := strings.IndexFunc(w, isApostrophe)
	if i < 0 {
		return w
	}
	plain := strings.ToLower(strings.ReplaceAll(w, "’", "'"))
	if full, ok := irregular[plain]; ok {
		return full
	}
	stem, suffix := w[:i], plain[strings.IndexByte(plain, '\'')+1:]
	switch {
	case suffix == "t" && strings.HasSuffix(strings.ToLower(stem), "n"):
		return stem[:len(stem)-1] + " not"
	case suffix == "re":
		return stem + " are"
	case suffix == "ve":
		return stem + " have"
	case suffix == "ll":
		return stem + " will"
	case suffix == "d":
		return stem + " would"
	case suffix == "m":
		return stem + " am"
	case suffix == "s":
		return stem // a possessive: the team's → team
	}
	return w
}
