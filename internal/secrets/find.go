package secrets

import (
	"bytes"
	"regexp"
	"sync"
)

// This file holds the ways rules find candidates in a line: a regular
// expression for secrets with a distinctive shape, and small parsers for
// assignments and URLs. Those two are written by hand because names such as
// "token" and "key", colons and URLs are everywhere in Markdown: an
// expression that has to try every position of such lines, with a leading
// [a-z0-9_]* and case folding, cost most of a millisecond per 10 KB memory.

// findRegexp returns a finder reporting the matches of expr. The secret is
// the first capturing group that takes part in a match, or else the whole
// match.
//
// The expression is compiled on the finder's first use, not when the rules
// are built: most runs of the CLI scan nothing, and compiling every rule's
// expression in package initialisation cost each of them, and each git hook,
// a tenth of a millisecond.
func findRegexp(expr string) func(line []byte) []span {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	return func(line []byte) []span {
		var spans []span
		for _, loc := range re().FindAllSubmatchIndex(line, -1) {
			sp := span{start: loc[0], end: loc[1], secretStart: loc[0], secretEnd: loc[1]}
			for i := 2; i+1 < len(loc); i += 2 {
				if loc[i] >= 0 {
					sp.secretStart, sp.secretEnd = loc[i], loc[i+1]
					break
				}
			}
			spans = append(spans, sp)
		}
		return spans
	}
}

// findAssignments returns a finder reporting values assigned to names that
// contain one of words (in lower case), in the forms of configuration files,
// shells and most programming languages:
//
//	name = value    name: value    name := value    name => value
//	"name": "value"    NAME='value'    --name=value
//
// A name is a run of letters, digits and "_.-"; a value is quoted with ", '
// or `, or else runs up to white space or one of ",;&" and quotes. Markdown
// emphasis around the name or the operator is skipped, as in
// "**API key**: value". The span starts at the name, so a check can inspect
// it, and the secret is the value without its quotes.
//
// The finder starts from the operators, which are rarer than the letters
// the words start with, and looks back for the name.
func findAssignments(words ...string) func(line []byte) []span {
	ws := make([][]byte, len(words))
	for i, w := range words {
		ws[i] = []byte(w)
	}
	return func(line []byte) []span {
		var spans []span
		next := 0 // assignments do not overlap
		for i := 0; i < len(line); i++ {
			if c := line[i]; c != ':' && c != '=' {
				continue
			}
			end := skipMarkupBack(line, i, next)
			if end > next && isQuote(line[end-1]) {
				end-- // the closing quote of a quoted name, as in JSON
			}
			start := end
			for start > next && isNameByte(line[start-1]) {
				start--
			}
			if start == end || !containsWord(line[start:end], ws) {
				continue
			}
			if sp, ok := parseAssignment(line, start); ok {
				spans = append(spans, sp)
				next = sp.end
				i = sp.end - 1
			}
		}
		return spans
	}
}

// containsWord reports whether name, in ASCII lower case, contains one of
// words.
func containsWord(name []byte, words [][]byte) bool {
	var buf [64]byte
	if len(name) > len(buf) {
		name = name[len(name)-len(buf):] // the words end long names: api_key, _TOKEN
	}
	l := buf[:len(name)]
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		l[i] = c
	}
	for _, w := range words {
		if bytes.Contains(l, w) {
			return true
		}
	}
	return false
}

// parseAssignment parses the assignment whose name starts at line[start].
func parseAssignment(line []byte, start int) (span, bool) {
	i := start
	for i < len(line) && isNameByte(line[i]) {
		i++
	}
	if i < len(line) && isQuote(line[i]) {
		i++
	}
	i = skipMarkup(line, i)
	switch rest := line[i:]; {
	case bytes.HasPrefix(rest, []byte(":=")), bytes.HasPrefix(rest, []byte("=>")):
		i += 2
	case bytes.HasPrefix(rest, []byte("=")), bytes.HasPrefix(rest, []byte(":")):
		i++
	default:
		return span{}, false
	}
	i = skipMarkup(line, i)
	if i == len(line) {
		return span{}, false
	}
	if q := line[i]; isQuote(q) {
		// A search that fails finds no quote of this kind after i, so no
		// later assignment in the line can start one: searches stay linear.
		n := bytes.IndexByte(line[i+1:], q)
		if n < 0 {
			return span{}, false
		}
		return span{start: start, end: i + n + 2, secretStart: i + 1, secretEnd: i + 1 + n}, true
	}
	j := i
	for j < len(line) && !isSpace(line[j]) && !isQuote(line[j]) && line[j] != ',' && line[j] != ';' && line[j] != '&' {
		j++
	}
	if j == i {
		return span{}, false
	}
	return span{start: start, end: j, secretStart: i, secretEnd: j}, true
}

// findURLPasswords reports the passwords in URLs of the form
// scheme://user:password@host, where user may be empty. The span starts at
// the scheme, so that a check can compare user and password.
func findURLPasswords(line []byte) []span {
	var spans []span
	for off := 0; ; {
		i := bytes.Index(line[off:], []byte("://"))
		if i < 0 {
			return spans
		}
		i += off
		off = i + 3
		start := i
		for start > 0 && isSchemeByte(line[start-1]) {
			start--
		}
		for start < i && !isLetter(rune(line[start])) {
			start++ // a scheme starts with a letter
		}
		if start == i {
			continue
		}
		j := i + 3
		for j < len(line) && !isSpace(line[j]) && !isQuote(line[j]) && bytes.IndexByte([]byte(":/?#@"), line[j]) < 0 {
			j++
		}
		if j == len(line) || line[j] != ':' {
			continue
		}
		p := j + 1
		k := p
		for k < len(line) && !isSpace(line[k]) && !isQuote(line[k]) && bytes.IndexByte([]byte("/?#@"), line[k]) < 0 {
			k++
		}
		if k == p || k+1 >= len(line) || line[k] != '@' || !isAlnum(line[k+1]) {
			continue
		}
		spans = append(spans, span{start: start, end: k, secretStart: p, secretEnd: k})
		off = k
	}
}

func isNameByte(b byte) bool { return isAlnum(b) || b == '_' || b == '.' || b == '-' }

func isSchemeByte(b byte) bool { return isAlnum(b) || b == '+' || b == '.' || b == '-' }

func isQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }

// isSpace reports whether b is white space as \s means in package regexp.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

// skipMarkup returns the offset of the first byte at or after i that is not
// a space, a tab or the '*' of Markdown emphasis, as in "**Password:** x".
func skipMarkup(line []byte, i int) int {
	for i < len(line) && isMarkup(line[i]) {
		i++
	}
	return i
}

// skipMarkupBack returns the offset just after the last byte before i, and
// not before min, that is not a space, a tab or a '*'.
func skipMarkupBack(line []byte, i, min int) int {
	for i > min && isMarkup(line[i-1]) {
		i--
	}
	return i
}

func isMarkup(b byte) bool { return b == ' ' || b == '\t' || b == '*' }
