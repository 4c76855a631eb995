package markdown

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// Inline parsing reduces a block's text to its plain text. goldmark builds
// a tree of inline nodes; the plain text is the text of the tree's leaves
// in order, and every change goldmark makes to the tree (wrapping a span
// in emphasis or a link, turning an unused delimiter back into text) keeps
// that order. So a flat list of leaves, each either kept, trimmed or
// dropped, gives the same text.

// Link labels: a shortcut or reference label may hold at most 999 bytes;
// goldmark gives up on a link when its open brackets span more than 998.
const (
	maxLinkLabel   = 999
	maxLabelLength = 998
)

const (
	leafText  = iota // source text, a space after it at a line break
	leafDelim        // a run of '*' or '_'; what no emphasis used is text
	leafLabel        // '[' or "![" opening a link; text unless a link formed
)

type leaf struct {
	kind        uint8
	brk         bool // leafText: a soft or hard line break follows
	image       bool // leafLabel: "!["
	used        bool // leafLabel: a link or image formed
	char        byte // leafDelim
	canOpen     bool // leafDelim
	canClose    bool // leafDelim
	start, stop int
	length      int // leafDelim: characters not used by emphasis
	orig        int // leafDelim: characters in the run
	prev, next  int // leafDelim: neighbours among delimiters still open
	bottom      int // leafLabel: the last open delimiter before it
}

// inlineParser extracts the plain text of one block.
type inlineParser struct {
	src        []byte
	refs       map[string]struct{}
	r          segReader
	leaves     []leaf
	firstDelim int
	lastDelim  int
	labels     []int // open link labels, innermost last
	lastLink   int   // offset of the rightmost link formed, -1 if none
	// Offsets from which a search is known to fail, so that unclosed
	// openers do not make the parse quadratic: code spans by the length
	// of their backtick run (offset+1, 0 unknown), raw HTML by closer.
	codeFail [32]int
	htmlFail [4]int
	buf      []byte
}

// plainText returns the plain text of a block made of lines: inline markup
// dropped, code spans, link text and image descriptions kept, white space
// folded to single spaces.
func plainText(src []byte, refs map[string]struct{}, lines []span) string {
	if len(lines) == 0 {
		return ""
	}
	size := 0
	for _, l := range lines {
		size += l.stop - l.start
	}
	ip := inlineParser{src: src, refs: refs, firstDelim: -1, lastDelim: -1, lastLink: -1}
	ip.leaves = make([]leaf, 0, 2*len(lines)+size/32)
	ip.r.reset(src, lines)
	ip.run()
	ip.processDelimiters(-1)
	b := make([]byte, 0, size+len(lines))
	for i := range ip.leaves {
		lf := &ip.leaves[i]
		switch lf.kind {
		case leafText:
			b = append(b, src[lf.start:lf.stop]...)
			if lf.brk {
				b = append(b, ' ')
			}
		case leafDelim:
			for range lf.length {
				b = append(b, lf.char)
			}
		case leafLabel:
			if !lf.used {
				b = append(b, src[lf.start:lf.stop]...)
			}
		}
	}
	return string(fold(b))
}

func (ip *inlineParser) text(start, stop int, brk bool) {
	ip.leaves = append(ip.leaves, leaf{kind: leafText, start: start, stop: stop, brk: brk})
}

// hasInlineParser reports the characters that may start inline markup.
func hasInlineParser(c byte) bool {
	switch c {
	case '`', '[', ']', '!', '<', '*', '_':
		return true
	}
	return false
}

// run scans the block line by line, as goldmark's parseBlock does, trying
// inline markup at each punctuation character that may start some.
func (ip *inlineParser) run() {
	r := &ip.r
	escaped := false
retry:
	for {
		line := r.peekLine()
		if line == nil {
			break
		}
		n := len(line)
		// A line break, hard or soft, reads as a space. What makes a hard
		// one is not scanned: a backslash is not text, and a backslash
		// before two spaces escapes the next line's first character.
		nl := line[n-1] == '\n'
		switch {
		case nl && (n >= 3 && line[n-2] == '\\' && line[n-3] != '\\' || n == 2 && line[0] == '\\'):
			n -= 2
		case nl && (n >= 4 && line[n-3] == '\\' && line[n-2] == '\r' && line[n-4] != '\\' ||
			n == 3 && line[0] == '\\' && line[1] == '\r'):
			n -= 3
		case nl && n >= 3 && line[n-3] == ' ' && line[n-2] == ' ':
			n -= 3
		case nl && n >= 4 && line[n-4] == ' ' && line[n-3] == ' ' && line[n-2] == '\r':
			n -= 4
		}
		l, startPos := r.position()
		k := 0
		for i := range n {
			c := line[i]
			if c == '\n' {
				break
			}
			// A punctuation character may start markup unless escaped;
			// at a line's start goldmark tries it even when escaped.
			if isPunct(c) && (!escaped || i == 0) && hasInlineParser(c) {
				r.advance(k)
				k = 0
				saveLine, savePos := r.position()
				if i != 0 {
					ip.text(startPos.start, savePos.start, false)
					startPos = savePos
				}
				if ip.inline(c) {
					continue retry
				}
				r.setPosition(saveLine, savePos)
			}
			if escaped {
				escaped = false
				k++
				continue
			}
			if c == '\\' {
				escaped = true
				k++
				continue
			}
			k++
		}
		if k != 0 {
			r.advance(k)
		}
		if curLine, _ := r.position(); curLine != l {
			continue
		}
		ip.text(startPos.start, r.pos.start, nl)
		r.advanceLine()
	}
}

// inline tries the markup that c may start; it reports whether some was
// read, leaving the position after it.
func (ip *inlineParser) inline(c byte) bool {
	switch c {
	case '`':
		ip.codeSpan()
		return true
	case '[', ']', '!':
		return ip.link()
	case '<':
		saveLine, savePos := ip.r.position()
		if ip.autoLink() {
			return true
		}
		ip.r.setPosition(saveLine, savePos)
		return ip.rawHTML()
	case '*', '_':
		ip.delimiter()
		return true
	}
	return false
}

// codeSpan reads a code span: its text is kept as it is, line ends
// included. An opener without a closer of the same length is text.
func (ip *inlineParser) codeSpan() {
	r := &ip.r
	line := r.peekLine()
	start := r.pos.start
	opener := 0
	for opener < len(line) && line[opener] == '`' {
		opener++
	}
	r.advance(opener)
	l, pos := r.position()
	if opener < len(ip.codeFail) && ip.codeFail[opener] != 0 && ip.codeFail[opener]-1 <= pos.start {
		ip.text(start, start+opener, false)
		return
	}
	mark := len(ip.leaves)
	for {
		line := r.peekLine()
		seg := r.pos
		if line == nil {
			ip.leaves = ip.leaves[:mark]
			if opener < len(ip.codeFail) {
				ip.codeFail[opener] = pos.start + 1
			}
			r.setPosition(l, pos)
			ip.text(start, start+opener, false)
			return
		}
		for i := 0; i < len(line); i++ {
			if line[i] != '`' {
				continue
			}
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			if j-i == opener {
				if i > 0 {
					ip.text(seg.start, seg.start+i, false)
				}
				r.advance(j)
				ip.trimCode(ip.leaves[mark:])
				return
			}
			i = j
		}
		ip.text(seg.start, seg.stop, false)
		r.advanceLine()
	}
}

// trimCode drops one space or line end from each end of a code span's
// text when both ends have one, unless it is all white space: the
// difference shows where the span touches other text.
func (ip *inlineParser) trimCode(code []leaf) {
	if len(code) == 0 {
		return
	}
	blank := true
	for _, lf := range code {
		if !isBlank(ip.src[lf.start:lf.stop]) {
			blank = false
			break
		}
	}
	first, last := &code[0], &code[len(code)-1]
	isEdge := func(c byte) bool { return c == ' ' || c == '\n' }
	if blank || first.start >= first.stop || !isEdge(ip.src[first.start]) ||
		last.start >= last.stop || !isEdge(ip.src[last.stop-1]) {
		return
	}
	first.start++
	last.stop--
}

// delimiter reads a run of '*' or '_' and whether it may open or close
// emphasis, by what flanks it.
func (ip *inlineParser) delimiter() {
	r := &ip.r
	before := r.precedingRune()
	line := r.peekLine()
	c := line[0]
	j := 0
	for j < len(line) && line[j] == c {
		j++
	}
	after := ' '
	if j != len(line) {
		after = runeAt(line, j)
	}
	beforePunct, beforeSpace := isPunctRune(before), isSpaceRune(before)
	afterPunct, afterSpace := isPunctRune(after), isSpaceRune(after)
	left := !afterSpace && (!afterPunct || beforeSpace || beforePunct)
	right := !beforeSpace && (!beforePunct || afterSpace || afterPunct)
	canOpen, canClose := left, right
	if c == '_' {
		canOpen = left && (!right || beforePunct)
		canClose = right && (!left || afterPunct)
	}
	start := r.pos.start
	ip.leaves = append(ip.leaves, leaf{kind: leafDelim, char: c, canOpen: canOpen, canClose: canClose,
		start: start, stop: start + j, length: j, orig: j, prev: ip.lastDelim, next: -1})
	d := len(ip.leaves) - 1
	if ip.lastDelim >= 0 {
		ip.leaves[ip.lastDelim].next = d
	} else {
		ip.firstDelim = d
	}
	ip.lastDelim = d
	r.advance(j)
}

func (ip *inlineParser) removeDelim(d int) {
	lf := &ip.leaves[d]
	if lf.prev >= 0 {
		ip.leaves[lf.prev].next = lf.next
	} else {
		ip.firstDelim = lf.next
	}
	if lf.next >= 0 {
		ip.leaves[lf.next].prev = lf.prev
	} else {
		ip.lastDelim = lf.prev
	}
	lf.prev, lf.next = -1, -1
}

// processDelimiters matches the open delimiters after bottom (all of them
// for -1) into emphasis, closers in order each with the nearest opener of
// its character, and closes the rest as text.
func (ip *inlineParser) processDelimiters(bottom int) {
	if ip.lastDelim < 0 {
		return
	}
	closer := -1
	if bottom >= 0 {
		if bottom != ip.lastDelim {
			if c := ip.leaves[bottom].next; c != ip.lastDelim {
				closer = c
			}
		}
	} else {
		closer = ip.firstDelim
	}
	for closer >= 0 {
		cl := &ip.leaves[closer]
		if !cl.canClose {
			closer = cl.next
			continue
		}
		consume, found, maybeOpener := 0, false, false
		opener := cl.prev
		for ; opener >= 0 && opener != bottom; opener = ip.leaves[opener].prev {
			op := &ip.leaves[opener]
			if op.canOpen && op.char == cl.char {
				maybeOpener = true
				consume = consumption(op, cl)
				if consume > 0 {
					found = true
					break
				}
			}
		}
		if !found {
			next := cl.next
			if !maybeOpener && !cl.canOpen {
				ip.removeDelim(closer)
			}
			closer = next
			continue
		}
		op := &ip.leaves[opener]
		op.length -= consume
		cl.length -= consume
		for c := op.next; c >= 0 && c != closer; {
			next := ip.leaves[c].next
			ip.removeDelim(c)
			c = next
		}
		if op.length == 0 {
			ip.removeDelim(opener)
		}
		if cl.length == 0 {
			next := cl.next
			ip.removeDelim(closer)
			closer = next
		}
	}
	// What is left after bottom stays text.
	if bottom >= 0 {
		for d := ip.leaves[bottom].next; d >= 0; {
			next := ip.leaves[d].next
			ip.removeDelim(d)
			d = next
		}
	} else {
		ip.firstDelim, ip.lastDelim = -1, -1
	}
}

// consumption returns how many characters of each run an emphasis takes:
// two for strong emphasis where both runs have them, else one, and none
// where CommonMark's rule of three forbids the pair.
func consumption(opener, closer *leaf) int {
	if (opener.canClose || closer.canOpen) && (opener.orig+closer.orig)%3 == 0 && closer.orig%3 != 0 {
		return 0
	}
	if opener.length >= 2 && closer.length >= 2 {
		return 2
	}
	return 1
}

// link reads '[' or "![" as a link label's opener, or ']' as its closer,
// forming a link (or image) when an inline destination, a reference or a
// shortcut to a defined reference follows.
func (ip *inlineParser) link() bool {
	r := &ip.r
	line := r.peekLine()
	seg := r.pos
	switch line[0] {
	case '!':
		if len(line) > 1 && line[1] == '[' {
			r.advance(1)
			ip.openLabel(seg.start+1, true)
			return true
		}
		return false
	case '[':
		ip.openLabel(seg.start, false)
		return true
	}
	if len(ip.labels) == 0 {
		return false
	}
	last := ip.labels[len(ip.labels)-1]
	r.advance(1)
	ip.labels = ip.labels[:len(ip.labels)-1]
	// goldmark measures from the first open label to the last one left,
	// not the label being closed.
	if n := len(ip.labels); n > 0 && ip.leaves[ip.labels[n-1]].stop-ip.leaves[ip.labels[0]].start > maxLabelLength {
		return false
	}
	lb := ip.leaves[last]
	if !lb.image && ip.lastLink > lb.start {
		return false // a link inside a link's text
	}
	l, pos := r.position()
	formed := false
	switch r.peekByte() {
	case '(':
		formed = ip.inlineLink(last)
	case '[':
		var hasValue bool
		formed, hasValue = ip.referenceLink(last)
		if !formed && hasValue {
			return false
		}
	}
	if !formed {
		r.setPosition(l, pos)
		label := r.value(lb.stop, seg.start)
		if len(label) > maxLinkLabel || !ip.isRef(label) {
			return false
		}
		ip.formLink(last)
	}
	return true
}

func (ip *inlineParser) openLabel(pos int, image bool) {
	start := pos
	if image {
		start--
	}
	ip.leaves = append(ip.leaves, leaf{kind: leafLabel, image: image, start: start, stop: pos + 1, bottom: ip.lastDelim})
	ip.labels = append(ip.labels, len(ip.leaves)-1)
	ip.r.advance(1)
}

func (ip *inlineParser) isRef(label []byte) bool {
	if ip.refs == nil {
		return false
	}
	_, ok := ip.refs[normalizeLabel(label)]
	return ok
}

// formLink makes a link (or image) of the label opened at leaf last: its
// emphasis is settled inside it, and its opener is dropped.
func (ip *inlineParser) formLink(last int) {
	ip.processDelimiters(ip.leaves[last].bottom)
	lb := &ip.leaves[last]
	lb.used = true
	if !lb.image {
		ip.lastLink = max(ip.lastLink, lb.start)
	}
}

// inlineLink reads (destination "title") after a label.
func (ip *inlineParser) inlineLink(last int) bool {
	r := &ip.r
	r.advance(1)
	r.skipSpaces()
	if r.peekByte() == ')' {
		r.advance(1)
	} else {
		if !parseLinkDestination(r) {
			return false
		}
		r.skipSpaces()
		if r.peekByte() == ')' {
			r.advance(1)
		} else {
			if !parseLinkTitle(r) {
				return false
			}
			r.skipSpaces()
			if r.peekByte() != ')' {
				return false
			}
			r.advance(1)
		}
	}
	ip.formLink(last)
	return true
}

// referenceLink reads [ref] after a label, or [] which reuses the label.
// hasValue reports a bracketed reference, right or wrong.
func (ip *inlineParser) referenceLink(last int) (formed, hasValue bool) {
	r := &ip.r
	_, org := r.position()
	r.advance(1)
	label, found := r.findClosure('[', ']', true, ip.buf[:0])
	ip.buf = label
	if !found {
		return false, false
	}
	if isBlank(label) {
		label = r.value(ip.leaves[last].stop, org.start-1)
	}
	if len(label) > maxLinkLabel || !ip.isRef(label) {
		return false, true
	}
	ip.formLink(last)
	return true, true
}

// autoLink reads <scheme:...> or <address@domain>. Its text is dropped,
// as goldmark keeps it outside the tree's text nodes.
func (ip *inlineParser) autoLink() bool {
	r := &ip.r
	line := r.peekLine()
	stop := emailEnd(line[1:])
	if stop < 0 {
		stop = urlEnd(line[1:])
	}
	if stop < 0 {
		return false
	}
	stop++
	if stop >= len(line) || line[stop] != '>' {
		return false
	}
	r.advance(stop + 1)
	return true
}

// rawHTML reads inline HTML: a tag, a comment, a processing instruction, a
// declaration or a CDATA section. Its text is dropped.
func (ip *inlineParser) rawHTML() bool {
	r := &ip.r
	line := r.peekLine()
	switch {
	case len(line) > 1 && isAlnum(line[1]):
		if n := inlineTag(r, false); n > 0 {
			r.advance(n)
			return true
		}
		return false
	case len(line) > 2 && line[1] == '/' && isAlnum(line[2]):
		if n := inlineTag(r, true); n > 0 {
			r.advance(n)
			return true
		}
		return false
	case bytes.HasPrefix(line, []byte("<!--")):
		return ip.comment()
	case bytes.HasPrefix(line, []byte("<?")):
		return ip.until([]byte("?>"), 0)
	case len(line) > 2 && line[1] == '!' && 'A' <= line[2] && line[2] <= 'Z':
		return ip.until([]byte(">"), 1)
	case bytes.HasPrefix(line, []byte("<![CDATA[")):
		return ip.until([]byte("]]>"), 2)
	}
	return false
}

func (ip *inlineParser) comment() bool {
	r := &ip.r
	line := r.peekLine()
	for _, empty := range []string{"<!-->", "<!--->"} {
		if bytes.HasPrefix(line, []byte(empty)) {
			r.advance(len(empty))
			return true
		}
	}
	saveLine, savePos := r.position()
	if f := ip.htmlFail[3]; f != 0 && savePos.start < f-1 {
		return false
	}
	offset := len("<!--")
	line = line[offset:]
	lastStop := 0
	for {
		if i := bytes.Index(line, []byte("-->")); i >= 0 {
			r.advance(offset + i + len("-->"))
			return true
		}
		offset = 0
		lastStop = r.pos.stop
		r.advanceLine()
		line = r.peekLine()
		if line == nil {
			break
		}
	}
	ip.htmlFail[3] = lastStop + 1
	r.setPosition(saveLine, savePos)
	return false
}

// until reads from the position through the first closer, across lines.
func (ip *inlineParser) until(closer []byte, cache int) bool {
	r := &ip.r
	saveLine, savePos := r.position()
	f := ip.htmlFail[cache]
	lastStop := 0
	for {
		line := r.peekLine()
		if line == nil {
			break
		}
		if f != 0 && r.pos.start < f-1 {
			r.setPosition(saveLine, savePos)
			return false
		}
		if i := bytes.Index(line, closer); i >= 0 {
			r.advance(i + len(closer))
			return true
		}
		lastStop = r.pos.stop
		r.advanceLine()
	}
	ip.htmlFail[cache] = lastStop + 1
	r.setPosition(saveLine, savePos)
	return false
}

// fold joins the white-space-separated fields of b with single spaces, as
// strings.Fields sees white space, in place. It folds the whole text at
// once, not piece by piece: invalid UTF-8 in two pieces may join into a
// character, a space even.
func fold(b []byte) []byte {
	out := b[:0]
	space := false
	for i := 0; i < len(b); {
		c := b[i]
		j := i + 1
		if c < utf8.RuneSelf {
			if asciiSpace(c) {
				space = true
				i++
				continue
			}
			for j < len(b) && b[j] < utf8.RuneSelf && !asciiSpace(b[j]) {
				j++
			}
		} else {
			r, n := utf8.DecodeRune(b[i:])
			if unicode.IsSpace(r) {
				space = true
				i += n
				continue
			}
			j = i + n
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, b[i:j]...)
		i = j
	}
	return out
}
