package markdown

import "bytes"

// span is a stretch of the source: bytes start to stop, preceded by pad
// columns of a tab that a container marker consumed only in part, which
// read as spaces.
type span struct {
	start, stop, pad int
}

// lineReader walks the source line by line for the block parser. A line
// runs to its '\n' inclusive; only '\n' ends a line, as in goldmark, so a
// lone '\r' is ordinary text.
type lineReader struct {
	src  []byte
	line int  // number of the current line, -1 before the first
	head int  // offset where the current line starts
	pos  span // position in the current line; stop is the line's end
	// peeked records that the current line was read and the position has
	// not moved since: goldmark moves by a count below the line's length
	// without walking it then, which matters only for a negative count.
	peeked bool
	buf    []byte // the current line with its padding spelled out
}

func newLineReader(src []byte) *lineReader {
	r := &lineReader{src: src, line: -1}
	r.advanceLine()
	return r
}

// peek returns the rest of the current line, padding first, or nil at the
// end of the source.
func (r *lineReader) peek() []byte {
	if r.pos.start < 0 || r.pos.start >= len(r.src) {
		return nil
	}
	r.peeked = true
	if r.pos.pad == 0 {
		return r.src[r.pos.start:r.pos.stop]
	}
	r.buf = r.buf[:0]
	for range r.pos.pad {
		r.buf = append(r.buf, ' ')
	}
	r.buf = append(r.buf, r.src[r.pos.start:r.pos.stop]...)
	return r.buf
}

// lineOffset returns the column of the position, counting tab stops from
// the line's start, less the padding.
func (r *lineReader) lineOffset() int {
	v := 0
	for i := r.head; i < r.pos.start; i++ {
		if r.src[i] == '\t' {
			v += tabWidth(v)
		} else {
			v++
		}
	}
	return v - r.pos.pad
}

func (r *lineReader) advance(n int) {
	peekLen := 0
	if r.peeked {
		peekLen = r.pos.pad + r.pos.stop - r.pos.start
	}
	r.peeked = false
	if n < peekLen && r.pos.pad == 0 || n < 0 && r.pos.pad == 0 {
		r.pos.start += n
		return
	}
	for ; n > 0 && r.pos.start < len(r.src); n-- {
		if r.pos.pad != 0 {
			r.pos.pad--
			continue
		}
		if r.src[r.pos.start] == '\n' {
			r.advanceLine()
			continue
		}
		r.pos.start++
	}
}

func (r *lineReader) advanceAndSetPadding(n, pad int) {
	r.advance(n)
	if pad > r.pos.pad {
		r.pos.pad = pad
	}
}

// advanceToEOL moves to the current line's '\n', or to the end of the
// source on a last line without one.
func (r *lineReader) advanceToEOL() {
	if r.pos.start >= len(r.src) {
		return
	}
	r.peeked = false
	if i := bytes.IndexByte(r.src[r.pos.start:], '\n'); i >= 0 {
		r.pos.start += i
	} else {
		r.pos.start = len(r.src)
	}
	r.pos.pad = 0
}

func (r *lineReader) advanceLine() {
	r.peeked = false
	r.pos.start = r.pos.stop
	r.head = r.pos.start
	if r.pos.start < 0 || r.pos.start >= len(r.src) {
		return
	}
	r.pos.stop = len(r.src)
	if i := bytes.IndexByte(r.src[r.pos.start:], '\n'); i >= 0 {
		r.pos.stop = r.pos.start + i + 1
	}
	r.line++
	r.pos.pad = 0
}

// skipBlankLines moves past blank lines; it reports whether a line is left.
func (r *lineReader) skipBlankLines() bool {
	for {
		line := r.peek()
		if line == nil {
			return false
		}
		if !isBlank(line) {
			return true
		}
		r.advanceLine()
	}
}

// eof is what segReader.peekByte returns past the end, as goldmark does.
const eof = 0xff

// segReader reads the lines of one block (a paragraph's or a heading's)
// as one text, skipping what lies between them in the source: container
// markers and trimmed indentation.
type segReader struct {
	src  []byte
	segs []span
	last int // stop of the last segment
	line int
	pos  span
	head int
	buf  []byte // the current line with its padding spelled out
}

func (r *segReader) reset(src []byte, segs []span) {
	r.src, r.segs = src, segs
	r.line, r.head, r.last = -1, 0, 0
	r.pos = span{-1, -1, 0}
	if len(segs) > 0 {
		r.last = segs[len(segs)-1].stop
	}
	r.advanceLine()
}

func (r *segReader) advanceLine() {
	r.line++
	if r.line < len(r.segs) {
		r.pos = r.segs[r.line]
		r.head = r.pos.start
	}
	r.head = r.pos.start
}

func (r *segReader) valid() bool {
	return r.line < len(r.segs) && r.pos.start >= 0 && r.pos.start < r.last
}

// peekLine returns the rest of the current line, padding first, or nil
// past the end.
func (r *segReader) peekLine() []byte {
	if !r.valid() {
		return nil
	}
	if r.pos.pad == 0 {
		return r.src[r.pos.start:r.pos.stop]
	}
	r.buf = appendSpaces(r.buf[:0], r.pos.pad)
	r.buf = append(r.buf, r.src[r.pos.start:r.pos.stop]...)
	return r.buf
}

func (r *segReader) peekByte() byte {
	if !r.valid() {
		return eof
	}
	if r.pos.pad != 0 {
		return ' '
	}
	return r.src[r.pos.start]
}

func (r *segReader) advance(n int) {
	if n < r.pos.stop-r.pos.start && r.pos.pad == 0 {
		r.pos.start += n
		return
	}
	for ; n > 0; n-- {
		if r.pos.pad != 0 {
			r.pos.pad--
			continue
		}
		if r.pos.start >= r.pos.stop-1 && r.pos.stop < r.last {
			r.advanceLine()
			continue
		}
		r.pos.start++
	}
}

func (r *segReader) position() (int, span) { return r.line, r.pos }

func (r *segReader) setPosition(line int, pos span) {
	r.line, r.pos = line, pos
	if line < len(r.segs) {
		r.head = r.segs[line].start
	}
}

// precedingRune returns the character before the position in the source,
// or '\n' at the block's start; emphasis asks it to decide whether a
// delimiter run is flanked by white space or punctuation.
func (r *segReader) precedingRune() rune {
	if r.pos.pad != 0 {
		return ' '
	}
	if len(r.segs) == 0 || r.line == 0 && r.pos.start <= r.segs[0].start {
		return '\n'
	}
	i := r.pos.start - 1
	for ; i >= 0 && i < len(r.src); i-- {
		if runeStart(r.src[i]) {
			break
		}
	}
	if i < 0 || i >= len(r.src) {
		return '\n'
	}
	return decodeRune(r.src[i:])
}

// skipSpaces moves past white space, across lines; it returns how many
// characters it skipped.
func (r *segReader) skipSpaces() int {
	chars := 0
	for {
		if !r.valid() {
			return chars
		}
		n := r.pos.pad + r.pos.stop - r.pos.start
		line := r.src[r.pos.start:r.pos.stop]
		pad := r.pos.pad
		for i := range n {
			c := byte(' ')
			if i >= pad {
				c = line[i-pad]
			}
			if isSpace(c) {
				chars++
				r.advance(1)
				continue
			}
			return chars
		}
	}
}

// findClosure looks for closer from the position on, across lines, with
// backslash escapes skipped; meeting opener first fails, as link labels
// and titles do not nest. It leaves the position past the closer, or where
// the search stopped. With collect, it appends to text what lies between,
// as the block reads it.
func (r *segReader) findClosure(opener, closer byte, collect bool, text []byte) ([]byte, bool) {
	for {
		if !r.valid() {
			return text, false
		}
		seg := r.pos
		bs := r.src[seg.start:seg.stop]
		if collect {
			text = appendSpaces(text, seg.pad)
		}
		for i := 0; i < len(bs); i++ {
			c := bs[i]
			if c == '\\' && i < len(bs)-1 && isPunct(bs[i+1]) {
				i++
				continue
			}
			if c == closer {
				if collect {
					text = append(text, bs[:i]...)
				}
				r.advance(seg.pad + i + 1)
				return text, true
			}
			if c == opener {
				return text, false
			}
		}
		if collect {
			text = append(text, bs...)
		}
		r.advanceLine()
	}
}

// value returns the text of the block from offset start to offset stop:
// the parts of its lines that fall between them, joined.
func (r *segReader) value(start, stop int) []byte {
	line := len(r.segs) - 1
	for ; line >= 0; line-- {
		if start >= r.segs[line].start {
			break
		}
	}
	if line < 0 {
		line = 0
	}
	var out []byte
	i := start
	for ; line < len(r.segs); line++ {
		s := r.segs[line]
		if i < 0 {
			i = s.start
		}
		out = appendSpaces(out, s.pad)
		if hi := min(stop, s.stop); i < hi {
			out = append(out, r.src[i:hi]...)
		}
		i = -1
		if s.stop > stop {
			break
		}
	}
	return out
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}
