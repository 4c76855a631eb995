package markdown

import (
	"bytes"
	"unicode/utf8"
)

// HTML block kinds, numbered as CommonMark numbers its start conditions.
const (
	htmlNone        = iota
	htmlRaw         // 1: <script>, <pre>, <style>, <textarea>, to their end tag
	htmlComment     // 2: <!-- to -->
	htmlInstruction // 3: <? to ?>
	htmlDeclaration // 4: <!X to >
	htmlCDATA       // 5: <![CDATA[ to ]]>
	htmlBlockTag    // 6: a known block-level tag, to a blank line
	htmlOtherTag    // 7: any complete tag alone on its line, to a blank line
)

// htmlBlockStart returns the kind of HTML block that line starts, or
// htmlNone. afterParagraph reports that the block would interrupt a
// paragraph, which only kinds 1 to 6 may do.
func htmlBlockStart(line []byte, afterParagraph bool) int {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || line[i] != '<' {
		return htmlNone
	}
	rest := line[i+1:]
	if n := matchRawTagName(rest); n > 0 && rawTagOpenEnds(rest[n:]) {
		return htmlRaw
	}
	switch {
	case bytes.HasPrefix(rest, []byte("!--")):
		return htmlComment
	case bytes.HasPrefix(rest, []byte("?")):
		return htmlInstruction
	case len(rest) > 1 && rest[0] == '!' && 'A' <= rest[1] && rest[1] <= 'Z':
		return htmlDeclaration
	case bytes.HasPrefix(rest, []byte("![CDATA[")):
		return htmlCDATA
	}
	// A complete tag alone on its line: kind 6 for a block-level name,
	// else kind 7 under conditions.
	if name, closing, attrs, ok := wholeLineTag(rest); ok {
		if isBlockTagName(name) {
			return htmlBlockTag
		}
		if !afterParagraph && !(closing && attrs) && !asciiEqualFold(name, "script") &&
			!asciiEqualFold(name, "style") && !asciiEqualFold(name, "pre") {
			return htmlOtherTag
		}
	}
	// A block-level tag name followed by a space, '>', "/>" or the end of
	// the line, whatever comes after.
	j := 0
	if j < len(rest) && rest[j] == '/' {
		j++
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
	}
	n := tagNameLen(rest[j:])
	if n == 0 {
		return htmlNone
	}
	name, after := rest[j:j+n], rest[j+n:]
	if (len(after) > 0 && (after[0] == ' ' || after[0] == '>') || bytes.HasPrefix(after, []byte("/>")) ||
		isLineEnd(after)) && isBlockTagName(name) {
		return htmlBlockTag
	}
	return htmlNone
}

// isLineEnd reports what may be left of a line at its end: nothing, or a
// line ending.
func isLineEnd(b []byte) bool {
	return len(b) == 0 || len(b) == 1 && b[0] == '\n' || len(b) == 2 && b[0] == '\r' && b[1] == '\n'
}

// tagNameLen returns the length of the tag name b starts with: a letter,
// then letters, digits and '-'.
func tagNameLen(b []byte) int {
	if len(b) == 0 || !isLetter(b[0]) {
		return 0
	}
	n := 1
	for n < len(b) && (isAlnum(b[n]) || b[n] == '-') {
		n++
	}
	return n
}

// matchRawTagName returns the length of the name of a kind 1 block's tag
// (script, pre, style, textarea: their contents may hold blank lines) that
// b starts with, or 0. Case is ignored as Go's regular expressions ignore
// it, so the long s 'ſ' matches 's'.
func matchRawTagName(b []byte) int {
	for _, name := range [...]string{"script", "pre", "style", "textarea"} {
		if n := foldPrefix(b, name); n > 0 {
			return n
		}
	}
	return 0
}

// foldPrefix returns the length of the prefix of b that matches the
// lower-case ASCII word ignoring case, or 0.
func foldPrefix(b []byte, word string) int {
	n := 0
	for i := 0; i < len(word); i++ {
		if n >= len(b) {
			return 0
		}
		c := b[n]
		if c|0x20 == word[i] && isLetter(c) {
			n++
			continue
		}
		// U+017F LATIN SMALL LETTER LONG S folds to 's', U+212A KELVIN
		// SIGN to 'k'.
		if word[i] == 's' && bytes.HasPrefix(b[n:], []byte("\u017f")) {
			n += len("\u017f")
			continue
		}
		if word[i] == 'k' && bytes.HasPrefix(b[n:], []byte("\u212a")) {
			n += len("\u212a")
			continue
		}
		return 0
	}
	return n
}

// rawTagOpenEnds reports whether what follows a kind 1 tag name ends the
// name: white space, '>', "/>" or the end of the line.
func rawTagOpenEnds(b []byte) bool {
	if isLineEnd(b) {
		return true
	}
	switch b[0] {
	case ' ', '\t', '\n', '\f', '\r', '>':
		return true
	}
	return bytes.HasPrefix(b, []byte("/>"))
}

// containsRawEndTag reports whether line holds the end tag of a kind 1
// block, in any case.
func containsRawEndTag(line []byte) bool {
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '<' || line[i+1] != '/' {
			continue
		}
		rest := line[i+2:]
		if n := matchRawTagName(rest); n > 0 && n < len(rest) && rest[n] == '>' {
			return true
		}
	}
	return false
}

// wholeLineTag matches an open or closing tag that is all of what is left
// of the line (but trailing spaces), b starting after its '<'. It returns
// the tag's name, whether it closes, and whether it has attributes.
func wholeLineTag(b []byte) (name []byte, closing, attrs, ok bool) {
	i := 0
	if i < len(b) && b[i] == '/' {
		i++
		closing = true
		for i < len(b) && b[i] == ' ' {
			i++
			closing = false // "</ x": goldmark tells a closing tag by a bare "/"
		}
	}
	n := tagNameLen(b[i:])
	if n == 0 {
		return nil, false, false, false
	}
	name = b[i : i+n]
	i += n
	a := i
	for {
		j := skipTagSpace(b, i)
		if j == i || j >= len(b) || !isAttrNameStart(b[j]) {
			break
		}
		k, ok := attribute(b, j)
		if !ok {
			return nil, false, false, false
		}
		i = k
	}
	attrs = i != a
	for i < len(b) && b[i] == ' ' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '>':
		i++
	case i+1 < len(b) && b[i] == '/' && b[i+1] == '>':
		i += 2
	default:
		return nil, false, false, false
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if !isLineEnd(b[i:]) {
		return nil, false, false, false
	}
	return name, closing, attrs, true
}

func skipTagSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func isAttrNameStart(c byte) bool { return isLetter(c) || c == '_' || c == ':' }

func isAttrNameChar(c byte) bool { return isAlnum(c) || c == '_' || c == ':' || c == '.' || c == '-' }

// isUnquotedValueChar reports what an unquoted attribute value may hold.
func isUnquotedValueChar(c byte) bool {
	switch c {
	case '"', '\'', '=', '<', '>', '`':
		return false
	}
	return c > ' '
}

// attribute matches an attribute of a single-line tag at b[i:]: a name and
// an optional value. It reports false for a '=' without a valid value,
// which no tag can recover from.
func attribute(b []byte, i int) (int, bool) {
	i++
	for i < len(b) && isAttrNameChar(b[i]) {
		i++
	}
	j := skipTagSpace(b, i)
	if j >= len(b) || b[j] != '=' {
		return i, true
	}
	j = skipTagSpace(b, j+1)
	if j >= len(b) {
		return 0, false
	}
	switch q := b[j]; q {
	case '"', '\'':
		k := bytes.IndexByte(b[j+1:], q)
		if k < 0 {
			return 0, false
		}
		return j + 1 + k + 1, true
	}
	k := j
	for k < len(b) && isUnquotedValueChar(b[k]) {
		k++
	}
	if k == j {
		return 0, false
	}
	return k, true
}

// isBlockTagName reports the tags of kind 6 blocks.
func isBlockTagName(name []byte) bool {
	if len(name) > len("blockquote") {
		return false
	}
	var buf [10]byte
	n := copy(buf[:], name)
	for i := range n {
		buf[i] |= 0x20 // ASCII letters and digits only: lower case, digits unchanged
	}
	switch string(buf[:n]) {
	case "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption",
		"center", "col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt",
		"fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset",
		"h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "iframe",
		"legend", "li", "link", "main", "menu", "menuitem", "meta", "nav", "noframes",
		"ol", "optgroup", "option", "p", "param", "search", "section", "summary",
		"table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul":
		return true
	}
	return false
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if b[i]|0x20 != s[i] {
			return false
		}
	}
	return true
}

// htmlBlockCloser returns what ends an HTML block of kinds 2 to 5.
func htmlBlockCloser(kind int) []byte {
	switch kind {
	case htmlComment:
		return []byte("-->")
	case htmlInstruction:
		return []byte("?>")
	case htmlDeclaration:
		return []byte(">")
	case htmlCDATA:
		return []byte("]]>")
	}
	return nil
}

// runeStream reads a block's text a character at a character across its
// lines, as goldmark's regular expressions read it for inline HTML: it
// ends at the block's end or at the first invalid or replacement
// character.
type runeStream struct {
	r *segReader
	n int // bytes read
}

func (s *runeStream) peek() (rune, int) {
	line := s.r.peekLine()
	if line == nil {
		return -1, 0
	}
	c, size := rune(line[0]), 1
	if c >= utf8.RuneSelf {
		c, size = utf8.DecodeRune(line)
		if c == utf8.RuneError {
			return -1, 0
		}
	}
	return c, size
}

func (s *runeStream) next() rune {
	c, size := s.peek()
	if size > 0 {
		s.r.advance(size)
		s.n += size
	}
	return c
}

// inlineTag matches an open or closing tag at the position (on its '<')
// and returns the number of bytes it spans, line ends included, or 0.
func inlineTag(r *segReader, closing bool) int {
	saveLine, savePos := r.position()
	defer r.setPosition(saveLine, savePos)
	s := runeStream{r: r}
	s.next() // '<'
	if closing {
		s.next() // '/'
	}
	if c, _ := s.peek(); c < 0 || c >= utf8.RuneSelf || !isLetter(byte(c)) {
		return 0
	}
	for {
		c, _ := s.peek()
		if c < 0 || c >= utf8.RuneSelf || !(isAlnum(byte(c)) || c == '-') {
			break
		}
		s.next()
	}
	if !closing {
		for {
			line, pos := r.position()
			n := s.n
			ws := 0
			for c, _ := s.peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c, _ = s.peek() {
				s.next()
				ws++
			}
			c, _ := s.peek()
			if ws == 0 || c < 0 || c >= utf8.RuneSelf || !isAttrNameStart(byte(c)) {
				r.setPosition(line, pos)
				s.n = n
				break
			}
			if !inlineAttribute(&s) {
				return 0
			}
		}
	}
	// White space, where a '\r' must come before a '\n'.
	for {
		c, _ := s.peek()
		if c == ' ' || c == '\t' || c == '\n' {
			s.next()
			continue
		}
		if c == '\r' {
			line, pos := r.position()
			n := s.n
			s.next()
			if c2, _ := s.peek(); c2 == '\n' {
				s.next()
				continue
			}
			r.setPosition(line, pos)
			s.n = n
		}
		break
	}
	c := s.next()
	if c == '/' && !closing {
		c = s.next()
	}
	if c != '>' {
		return 0
	}
	return s.n
}

// inlineAttribute matches an attribute at the stream's position, a value
// and its white space possibly spanning lines.
func inlineAttribute(s *runeStream) bool {
	s.next()
	for {
		c, _ := s.peek()
		if c < 0 || c >= utf8.RuneSelf || !isAttrNameChar(byte(c)) {
			break
		}
		s.next()
	}
	line, pos := s.r.position()
	n := s.n
	isWS := func(c rune) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	c, _ := s.peek()
	for isWS(c) {
		s.next()
		c, _ = s.peek()
	}
	if c != '=' {
		s.r.setPosition(line, pos)
		s.n = n
		return true
	}
	s.next()
	c, _ = s.peek()
	for isWS(c) {
		s.next()
		c, _ = s.peek()
	}
	switch c {
	case '"', '\'':
		q := c
		s.next()
		for {
			c := s.next()
			if c < 0 {
				return false
			}
			if c == q {
				return true
			}
		}
	}
	count := 0
	for {
		c, _ := s.peek()
		if c < 0 || c < utf8.RuneSelf && !isUnquotedValueChar(byte(c)) {
			break
		}
		s.next()
		count++
	}
	return count > 0
}
