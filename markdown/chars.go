package markdown

import (
	"unicode"
	"unicode/utf8"
)

// isSpace reports the white space of Markdown's line structure: space,
// tab, '\n' and '\r' (not '\v' or '\f').
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isPunct reports ASCII punctuation, the characters a backslash escapes.
func isPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isBlank reports a line of nothing but white space (or nothing).
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// tabWidth returns how many columns a tab at column col spans.
func tabWidth(col int) int { return 4 - col%4 }

// indentWidth measures the leading spaces and tabs of b, whose first byte
// is at column col: their width in columns and their length in bytes.
func indentWidth(b []byte, col int) (width, n int) {
	for _, c := range b {
		switch c {
		case ' ':
			width++
		case '\t':
			width += tabWidth(col + width)
		default:
			return width, n
		}
		n++
	}
	return width, n
}

// indentPosition finds where width columns of indentation end in b, whose
// first byte is at column col and which starts with pad columns of
// padding: the byte offset (padding excluded) and the columns of a tab
// left over past it. It returns -1, -1 if b is indented less.
func indentPosition(b []byte, col, pad, width int) (pos, padding int) {
	if width == 0 {
		return 0, pad
	}
	w, i := 0, 0
	p := pad
	for ; i < len(b); i++ {
		if p > 0 {
			p--
			w++
			continue
		}
		if b[i] == '\t' && w < width {
			w += tabWidth(col + w)
		} else if b[i] == ' ' && w < width {
			w++
		} else {
			break
		}
	}
	if w >= width {
		return i - pad, w - width
	}
	return -1, -1
}

func trimLeftSpaceLength(b []byte) int {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func trimRightSpaceLength(b []byte) int {
	i := len(b)
	for i > 0 && isSpace(b[i-1]) {
		i--
	}
	return len(b) - i
}

// isPunctRune and isSpaceRune classify the characters that flank an
// emphasis delimiter run. Symbols count as punctuation, and so does the
// replacement character that invalid UTF-8 decodes to.
func isPunctRune(r rune) bool { return unicode.IsSymbol(r) || unicode.IsPunct(r) }

func isSpaceRune(r rune) bool { return r <= 256 && isSpace(byte(r)) || unicode.IsSpace(r) }

func runeStart(c byte) bool { return utf8.RuneStart(c) }

func decodeRune(b []byte) rune {
	r, _ := utf8.DecodeRune(b)
	return r
}

// runeAt decodes the character at or, for a byte inside a character,
// before offset i of b.
func runeAt(b []byte, i int) rune {
	for ; i >= 0; i-- {
		if runeStart(b[i]) {
			break
		}
	}
	if i < 0 {
		i = 0
	}
	return decodeRune(b[i:])
}

// isEmailLocal reports the characters of the local part of an e-mail
// autolink.
func isEmailLocal(c byte) bool {
	switch c {
	case '.', '!', '#', '$', '%', '&', '\'', '*', '+', '/', '=', '?', '^', '_', '`', '{', '|', '}', '~', '-':
		return true
	}
	return isAlnum(c)
}

// emailEnd returns the length of the e-mail address b starts with, or -1:
// a local part of at most 64 characters, '@', and a domain of labels that
// start and end alphanumeric, of at most 63 characters each, together at
// most 255. Each label is the longest that fits, as a greedy regular
// expression reads it.
func emailEnd(b []byte) int {
	i := 0
	for lim := min(len(b), 64); i < lim && isEmailLocal(b[i]); i++ {
	}
	if i == 0 || i >= len(b) || b[i] != '@' {
		return -1
	}
	i++
	if i >= len(b) {
		return -1
	}
	d := b[i:min(len(b), i+256)]
	n := domainLabel(d)
	if n < 0 {
		return -1
	}
	for n+1 < len(d) && d[n] == '.' {
		m := domainLabel(d[n+1:])
		if m < 0 {
			break
		}
		n += 1 + m
	}
	if n > 255 {
		return -1
	}
	return i + n
}

// domainLabel returns the length of the domain label b starts with, or -1.
func domainLabel(b []byte) int {
	if len(b) == 0 || !isAlnum(b[0]) {
		return -1
	}
	end := 1 // longest prefix so far that ends alphanumeric
	for j := 1; j < len(b) && j < 63 && (isAlnum(b[j]) || b[j] == '-'); j++ {
		if isAlnum(b[j]) {
			end = j + 1
		}
	}
	return end
}

// urlEnd returns the length of the absolute URI b starts with, or -1: a
// scheme of 2 to 33 letters, digits, '+', '-' and '.', starting with a
// letter, then ':' and anything but white space, controls, '<' and '>'.
func urlEnd(b []byte) int {
	if len(b) == 0 || !isLetter(b[0]) {
		return -1
	}
	i := 1
	for i < len(b) && (isAlnum(b[i]) || b[i] == '+' || b[i] == '-' || b[i] == '.') {
		i++
	}
	if i == 1 || i > 33 || i >= len(b) || b[i] != ':' {
		return -1
	}
	for i++; i < len(b) && b[i] > ' ' && b[i] != '<' && b[i] != '>'; i++ {
	}
	return i
}

// asciiSpace is ASCII white space as strings.Fields sees it.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
