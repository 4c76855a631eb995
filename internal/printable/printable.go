// Package printable makes file names safe to print on a terminal or in a
// line-based report. A repository is untrusted input: a memory file may be
// named with an escape sequence that recolours the terminal, moves the
// cursor or hides the rest of a line, or with a newline that forges a
// second line of output.
package printable

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Path returns p unchanged when it prints as itself, and otherwise p
// quoted as a Go string literal (strconv.Quote: "\x1b", "\n", "\u202e"):
// when it holds a control character, another rune that is not graphic
// (a bidirectional override, a zero-width format character), invalid
// UTF-8, or starts with a double quote, so that a quoted name is never
// mistaken for a plain one. Ordinary names, the vast majority, stay as
// they are, which keeps output readable and stable for scripts.
func Path(p string) string {
	if needsQuote(p) {
		return strconv.Quote(p)
	}
	return p
}

// needsQuote reports whether p would not print as itself.
func needsQuote(p string) bool {
	if strings.HasPrefix(p, `"`) || !utf8.ValidString(p) {
		return true
	}
	for _, r := range p {
		if !strconv.IsGraphic(r) {
			return true
		}
	}
	return false
}
