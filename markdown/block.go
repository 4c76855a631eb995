package markdown

import (
	"bytes"
	"strconv"
)

// node is a block of the tree under construction. Nodes live in one slice
// and point at each other by index; -1 is none.
type node struct {
	lines               []span // Paragraph and Heading text; HTMLBlock's first line
	pos                 int    // offset where the block starts, -1 if unset
	parent, first, last int
	prev, next          int
	offset              int32 // ListItem: the column its content starts at
	fenceLen            int32 // FencedCode: the length of its opening fence
	kind                Kind
	level               uint8 // Heading
	marker              byte  // List: '-', '+', '*', '.' or ')'
	html                uint8 // HTMLBlock: its kind
	fenceChar           byte  // FencedCode
	setext              bool  // a Heading made from a paragraph and its underline
	tight               bool  // a Paragraph of a tight list's item
	blankPrev           bool  // a blank line came before the block
	listTight           bool  // List
}

// What an open or continued block tells the parser, as goldmark's block
// parsers answer: whether it goes on, whether blocks may open inside it on
// the same line, and (a setext heading) that the paragraph above is its.
const (
	stClose       = 0
	stNoChildren  = 0
	stContinue    = 1 << 0
	stHasChildren = 1 << 1
	stRequirePara = 1 << 2
)

// What opening blocks on a line came to.
const (
	resParaCont   = 1 + iota // the open paragraph took the line lazily
	resNewBlocks             // blocks opened
	resNoneOpened            // nothing opened
)

// root is the document's node.
const root = 0

// Block parsers in the order they are tried, goldmark's priorities.
const (
	bpSetext = iota
	bpThematic
	bpList
	bpListItem
	bpCode
	bpATX
	bpFenced
	bpQuote
	bpHTML
	bpParagraph
)

// parserList is a list of block parsers to try, in order.
type parserList struct {
	bp [6]int8
	n  int
}

func list(bps ...int8) parserList {
	var l parserList
	l.n = copy(l.bp[:], bps)
	return l
}

// candidates returns the block parsers to try on a line whose first
// non-space character is c (ok false: a line of white space).
func candidates(c byte, ok bool) parserList {
	if !ok {
		return list(bpCode, bpParagraph)
	}
	switch c {
	case '-':
		return list(bpSetext, bpThematic, bpList, bpListItem, bpCode, bpParagraph)
	case '=':
		return list(bpSetext, bpCode, bpParagraph)
	case '*':
		return list(bpThematic, bpList, bpListItem, bpCode, bpParagraph)
	case '_':
		return list(bpThematic, bpCode, bpParagraph)
	case '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return list(bpList, bpListItem, bpCode, bpParagraph)
	case '#':
		return list(bpATX, bpCode, bpParagraph)
	case '`', '~':
		return list(bpFenced, bpCode, bpParagraph)
	case '>':
		return list(bpQuote, bpCode, bpParagraph)
	case '<':
		return list(bpHTML, bpCode, bpParagraph)
	}
	return list(bpCode, bpParagraph)
}

func canInterruptParagraph(bp int8) bool { return bp != bpCode && bp != bpParagraph }

// lineStat records, for a line and a depth of open blocks, whether what was
// left of the line at that depth was blank. It tells a block whether a
// blank line came before it, which makes lists loose.
type lineStat struct {
	line, level int
	blank       bool
}

// blockParser builds the block tree. It follows goldmark's parser step by
// step, state included, because the chunker and the titles derived from
// notes must see exactly the blocks goldmark saw.
type blockParser struct {
	src   []byte
	r     *lineReader
	nodes []node
	open  []int // the open blocks, outermost first

	blockOffset int  // byte offset of the line's first non-space, or -1
	skipList    bool // a list item just ended at a new item's marker
	emptyItem   bool // an empty list item was followed by a blank line
	tbPos       int  // offset past the last line a list checked for a thematic break
	setextPara  int  // the paragraph an open setext heading takes its text from
	replaced    bool // openBlocks replaced the last open block
	stats       []lineStat
	refs        map[string]struct{}
	seg         segReader
}

func (p *blockParser) newNode(k Kind) int {
	p.nodes = append(p.nodes, node{kind: k, parent: -1, first: -1, last: -1, prev: -1, next: -1, pos: -1})
	return len(p.nodes) - 1
}

func (p *blockParser) appendChild(parent, n int) {
	pn := &p.nodes[parent]
	c := &p.nodes[n]
	c.parent, c.prev, c.next = parent, pn.last, -1
	if pn.last >= 0 {
		p.nodes[pn.last].next = n
	} else {
		pn.first = n
	}
	pn.last = n
}

func (p *blockParser) insertBefore(parent, at, n int) {
	c := &p.nodes[n]
	c.parent, c.next, c.prev = parent, at, p.nodes[at].prev
	if c.prev >= 0 {
		p.nodes[c.prev].next = n
	} else {
		p.nodes[parent].first = n
	}
	p.nodes[at].prev = n
}

func (p *blockParser) insertAfter(parent, at, n int) {
	if nx := p.nodes[at].next; nx >= 0 {
		p.insertBefore(parent, nx, n)
		return
	}
	p.appendChild(parent, n)
}

func (p *blockParser) remove(n int) {
	c := &p.nodes[n]
	if c.parent < 0 {
		return
	}
	if c.prev >= 0 {
		p.nodes[c.prev].next = c.next
	} else {
		p.nodes[c.parent].first = c.next
	}
	if c.next >= 0 {
		p.nodes[c.next].prev = c.prev
	} else {
		p.nodes[c.parent].last = c.prev
	}
	c.parent, c.prev, c.next = -1, -1, -1
}

func (p *blockParser) lastOpened() int {
	if len(p.open) == 0 {
		return -1
	}
	return p.open[len(p.open)-1]
}

func (p *blockParser) isParagraph(n int) bool { return n >= 0 && p.nodes[n].kind == Paragraph }

// parse reads the whole source into the tree under the root node.
func (p *blockParser) parse() {
	// About a block for every two lines, most documents; growing past
	// that costs a copy or two.
	p.nodes = make([]node, 0, min(bytes.Count(p.src, []byte{'\n'})/2+8, 1<<14))
	p.newNode(0) // the document
	p.setextPara = -1
	r := p.r
	for {
		if !r.skipBlankLines() {
			return
		}
		if p.openBlocks(root, true) != resNewBlocks {
			return
		}
		r.advanceLine()
		p.stats = p.stats[:0]
		for {
			opened := p.open
			l := len(opened)
			if l == 0 {
				break
			}
			lastIndex := l - 1
			for i := range l {
				be := opened[i]
				line := r.peek()
				if line == nil {
					p.closeBlocks(lastIndex, 0)
					r.advanceLine()
					return
				}
				lineNum := r.line
				p.stats = append(p.stats, lineStat{lineNum, i, isBlank(line)})
				if p.nodes[be].kind != Paragraph {
					state := p.continueBlock(be)
					if state&stContinue != 0 {
						if state&stHasChildren != 0 && i == lastIndex {
							p.openBlocks(be, p.isBlankLine(lineNum-1, i+1))
							break
						}
						continue
					}
				}
				blank := p.isBlankLine(lineNum-1, i)
				thisParent := root
				if i != 0 {
					thisParent = opened[i-1]
				}
				p.replaced = false
				if p.openBlocks(thisParent, blank) != resParaCont {
					if p.replaced {
						lastIndex--
					}
					p.closeBlocks(lastIndex, i)
				}
				break
			}
			r.advanceLine()
		}
	}
}

// isBlankLine reports whether line was blank at depth level, going by the
// deepest record of it no deeper than level.
func (p *blockParser) isBlankLine(line, level int) bool {
	l := len(p.stats)
	if l == 0 {
		return true
	}
	for i := l - 1 - level; i >= 0; i-- {
		s := p.stats[i]
		if s.line == line && s.level <= level {
			return s.blank
		} else if s.line < line {
			break
		}
	}
	return false
}

// openBlocks opens the blocks that start at the position, under parent,
// containers and then what they contain, or continues the open paragraph
// lazily when nothing opens.
func (p *blockParser) openBlocks(parent int, blankLine bool) int {
	r := p.r
	result := resNoneOpened
	lastBlock := p.lastOpened()
	continuable := p.isParagraph(lastBlock)
retry:
	for {
		line := r.peek()
		w, pos := indentWidth(line, r.lineOffset())
		if w >= len(line) {
			p.blockOffset = -1
		} else {
			p.blockOffset = pos
		}
		if line == nil || line[0] == '\n' {
			break
		}
		var c byte
		if pos < len(line) {
			c = line[pos]
		}
		bps := candidates(c, pos < len(line))
		for _, bp := range bps.bp[:bps.n] {
			if continuable && result == resNoneOpened && !canInterruptParagraph(bp) {
				continue
			}
			if w > 3 && bp != bpCode {
				continue
			}
			lastBlock = p.lastOpened()
			last := lastBlock
			blockStart := r.pos.start
			n, state := p.openWith(bp, parent)
			if n < 0 {
				continue
			}
			p.nodes[n].pos = blockStart + max(p.blockOffset, 0)
			if state&stRequirePara != 0 && last == p.nodes[parent].last {
				// The paragraph becomes a setext heading's text: it closes
				// now, and if it was all link reference definitions, the
				// underline is read again as something else.
				p.closeNode(last)
				p.open = p.open[:len(p.open)-1]
				p.replaced = true
				if p.transformParagraph(last) {
					continuable = false
					continue retry
				}
			}
			p.nodes[n].blankPrev = blankLine
			if last >= 0 && p.nodes[last].parent < 0 && last != root {
				lastPos := len(p.open) - 1
				p.closeBlocks(lastPos, lastPos)
			}
			p.appendChild(parent, n)
			result = resNewBlocks
			p.open = append(p.open, n)
			if state&stHasChildren != 0 {
				parent = n
				continue retry
			}
			break
		}
		break
	}
	if result == resNoneOpened && continuable {
		if p.continueParagraph(lastBlock)&stContinue != 0 {
			result = resParaCont
		}
	}
	return result
}

// closeBlocks closes the open blocks from index from down to index to,
// deepest first, and drops them from the open list.
func (p *blockParser) closeBlocks(from, to int) {
	blocks := p.open
	for i := from; i >= to; i-- {
		n := blocks[i]
		if p.nodes[n].kind == Paragraph && p.nodes[n].parent >= 0 {
			p.transformParagraph(n)
		}
		if p.nodes[n].parent >= 0 {
			p.closeNode(n)
		}
	}
	if from == len(blocks)-1 {
		blocks = blocks[:to]
	} else {
		blocks = append(blocks[:to], blocks[from+1:]...)
	}
	p.open = blocks
}

func (p *blockParser) openWith(bp int8, parent int) (int, int) {
	switch bp {
	case bpSetext:
		return p.openSetext(parent)
	case bpThematic:
		if isThematicBreak(p.r.peek(), p.r.lineOffset()) {
			p.r.advanceToEOL()
			return p.newNode(ThematicBreak), stNoChildren
		}
	case bpList:
		return p.openList(parent)
	case bpListItem:
		return p.openListItem(parent)
	case bpCode:
		line := p.r.peek()
		pos, _ := indentPosition(line, p.r.lineOffset(), p.r.pos.pad, 4)
		if pos < 0 || isBlank(line) {
			return -1, 0
		}
		p.r.advanceToEOL()
		return p.newNode(CodeBlock), stNoChildren
	case bpATX:
		return p.openATX()
	case bpFenced:
		return p.openFenced()
	case bpQuote:
		if p.quoteMarker() {
			return p.newNode(BlockQuote), stHasChildren
		}
	case bpHTML:
		kind := htmlBlockStart(p.r.peek(), p.isParagraph(p.lastOpened()))
		if kind != htmlNone {
			s := p.r.pos
			p.r.advanceToEOL()
			n := p.newNode(HTMLBlock)
			p.nodes[n].html = uint8(kind)
			p.nodes[n].lines = append(p.nodes[n].lines, s)
			return n, stNoChildren
		}
	case bpParagraph:
		line := p.r.peek()
		if isBlank(line) {
			return -1, 0
		}
		n := p.newNode(Paragraph)
		p.nodes[n].lines = append(p.nodes[n].lines, p.r.pos)
		p.r.advanceToEOL()
		return n, stNoChildren
	}
	return -1, 0
}

func (p *blockParser) continueBlock(n int) int {
	r := p.r
	switch p.nodes[n].kind {
	case Heading, ThematicBreak:
		return stClose
	case CodeBlock:
		line := r.peek()
		pos, _ := indentPosition(line, r.lineOffset(), r.pos.pad, 4)
		if pos < 0 && !isBlank(line) {
			return stClose
		}
		r.advanceToEOL()
		return stContinue | stNoChildren
	case FencedCode:
		line := r.peek()
		w, pos := indentWidth(line, r.lineOffset())
		if w < 4 {
			nd := &p.nodes[n]
			i := pos
			for i < len(line) && line[i] == nd.fenceChar {
				i++
			}
			if i-pos >= int(nd.fenceLen) && isBlank(line[i:]) {
				r.advanceToEOL()
				return stClose
			}
		}
		r.advanceToEOL()
		return stContinue | stNoChildren
	case HTMLBlock:
		return p.continueHTML(n)
	case BlockQuote:
		if p.quoteMarker() {
			return stContinue | stHasChildren
		}
		return stClose
	case List:
		return p.continueList(n)
	case ListItem:
		return p.continueListItem(n)
	}
	return stClose
}

func (p *blockParser) continueParagraph(n int) int {
	line := p.r.peek()
	if isBlank(line) {
		return stClose
	}
	p.nodes[n].lines = append(p.nodes[n].lines, p.r.pos)
	p.r.advanceToEOL()
	return stContinue | stNoChildren
}

// closeNode finishes a block that ends.
func (p *blockParser) closeNode(n int) {
	nd := &p.nodes[n]
	switch nd.kind {
	case Paragraph:
		if len(nd.lines) != 0 {
			for i, s := range nd.lines {
				nd.lines[i] = trimLeftSpan(p.src, s)
			}
			last := len(nd.lines) - 1
			nd.lines[last] = trimRightSpan(p.src, nd.lines[last])
		}
		if len(nd.lines) == 0 {
			p.remove(n)
		}
	case Heading:
		if nd.setext {
			p.closeSetext(n)
		}
	case List:
		p.closeList(n)
	}
}

func trimLeftSpan(src []byte, s span) span {
	l := trimLeftSpaceLength(src[s.start:s.stop])
	return span{s.start + l, s.stop, 0}
}

func trimRightSpan(src []byte, s span) span {
	v := src[s.start:s.stop]
	l := trimRightSpaceLength(v)
	if l == len(v) {
		return span{s.start, s.start, 0}
	}
	return span{s.start, s.stop - l, s.pad}
}

// quoteMarker consumes a block quote marker, '>' and one space or a tab's
// first column after it.
func (p *blockParser) quoteMarker() bool {
	r := p.r
	line := r.peek()
	w, pos := indentWidth(line, r.lineOffset())
	if w > 3 || pos >= len(line) || line[pos] != '>' {
		return false
	}
	pos++
	if pos >= len(line) || line[pos] == '\n' {
		r.advance(pos)
		return true
	}
	r.advance(pos)
	if line[pos] == ' ' || line[pos] == '\t' {
		pad := 0
		if line[pos] == '\t' {
			pad = tabWidth(r.lineOffset()) - 1
		}
		r.advanceAndSetPadding(1, pad)
	}
	return true
}

func isThematicBreak(line []byte, offset int) bool {
	w, pos := indentWidth(line, offset)
	if w > 3 {
		return false
	}
	var mark byte
	count := 0
	for i := pos; i < len(line); i++ {
		c := line[i]
		if isSpace(c) {
			continue
		}
		if mark == 0 {
			mark, count = c, 1
			if mark == '*' || mark == '-' || mark == '_' {
				continue
			}
			return false
		}
		if c != mark {
			return false
		}
		count++
	}
	return count > 2
}

func (p *blockParser) openATX() (int, int) {
	r := p.r
	line := r.peek()
	pos := p.blockOffset
	if pos < 0 {
		return -1, 0
	}
	i := pos
	for i < len(line) && line[i] == '#' {
		i++
	}
	level := i - pos
	if i == pos || level > 6 {
		return -1, 0
	}
	l := trimLeftSpaceLength(line[i:])
	if i < len(line) && l == 0 {
		return -1, 0 // "#5": no space after the hashes
	}
	n := p.newNode(Heading)
	p.nodes[n].level = uint8(level)
	if i == len(line) {
		return n, stNoChildren
	}
	start := min(i+l, len(line)-1)
	seg := r.pos
	hl := span{seg.start + start - seg.pad, seg.start + len(line) - seg.pad, 0}
	hl = trimRightSpan(p.src, hl)
	if hl.stop-hl.start+hl.pad == 0 {
		r.advanceToEOL()
		return n, stNoChildren
	}
	text := p.src[hl.start:hl.stop]
	stop := len(text)
	if stop != 0 {
		j := stop - 1
		for text[j] == '#' && j > 0 {
			j--
		}
		if j == 0 && text[0] == '#' {
			r.advanceToEOL()
			return n, stNoChildren
		}
		if j != stop-1 && isSpace(text[j]) {
			stop = j
			stop -= trimRightSpaceLength(text[:stop])
		}
	}
	hl.stop = hl.start + stop
	p.nodes[n].lines = append(p.nodes[n].lines, hl)
	r.advanceToEOL()
	return n, stNoChildren
}

func (p *blockParser) openSetext(parent int) (int, int) {
	last := p.lastOpened()
	if !p.isParagraph(last) || p.nodes[last].parent != parent {
		return -1, 0
	}
	c, ok := setextBar(p.r.peek())
	if !ok {
		return -1, 0
	}
	n := p.newNode(Heading)
	p.nodes[n].setext = true
	p.nodes[n].level = 1
	if c == '-' {
		p.nodes[n].level = 2
	}
	p.nodes[n].lines = append(p.nodes[n].lines, p.r.pos)
	p.setextPara = last
	return n, stNoChildren | stRequirePara
}

// setextBar reports whether line underlines a setext heading, and with
// which character.
func setextBar(line []byte) (byte, bool) {
	start, end := 0, len(line)
	for start < end && line[start] == ' ' {
		start++
	}
	if start > 3 {
		return 0, false
	}
	count := func(c byte) int {
		k := 0
		for start+k < end && line[start+k] == c {
			k++
		}
		return k
	}
	c := byte('=')
	level1, level2 := count('='), 0
	if level1 == 0 {
		c = '-'
		level2 = count('-')
	}
	if end > 0 && isSpace(line[end-1]) {
		end -= trimRightSpaceLength(line[start:end])
	}
	if !(level1 > 0 && start+level1 == end || level2 > 0 && start+level2 == end) {
		return 0, false
	}
	return c, true
}

func (p *blockParser) closeSetext(n int) {
	nd := &p.nodes[n]
	underline := nd.lines[0]
	nd.lines = nil
	tmp := p.setextPara
	p.setextPara = -1
	if tmp < 0 {
		return
	}
	if len(p.nodes[tmp].lines) == 0 {
		// Unreachable in practice (the paragraph keeps a line or is read
		// again), kept as goldmark has it: the underline becomes text.
		parent := nd.parent
		next := nd.next
		underline = trimLeftSpan(p.src, underline)
		if next < 0 || p.nodes[next].kind != Paragraph {
			para := p.newNode(Paragraph)
			p.nodes[para].lines = []span{underline}
			p.insertAfter(parent, n, para)
		} else {
			p.nodes[next].lines = append([]span{underline}, p.nodes[next].lines...)
		}
		p.remove(n)
		return
	}
	nd = &p.nodes[n]
	nd.pos = p.nodes[tmp].lines[0].start
	nd.lines = p.nodes[tmp].lines
	nd.blankPrev = p.nodes[tmp].blankPrev
	p.remove(tmp)
}

func (p *blockParser) openFenced() (int, int) {
	line := p.r.peek()
	pos := p.blockOffset
	if pos < 0 || line[pos] != '`' && line[pos] != '~' {
		return -1, 0
	}
	fc := line[pos]
	i := pos
	for i < len(line) && line[i] == fc {
		i++
	}
	if i-pos < 3 {
		return -1, 0
	}
	if i < len(line)-1 {
		rest := line[i:]
		left, right := trimLeftSpaceLength(rest), trimRightSpaceLength(rest)
		if left < len(rest)-right {
			info := rest[left : len(rest)-right]
			if fc == '`' && bytes.IndexByte(info, '`') >= 0 {
				return -1, 0
			}
		}
	}
	n := p.newNode(FencedCode)
	nd := &p.nodes[n]
	nd.fenceChar, nd.fenceLen = fc, int32(i-pos)
	return n, stNoChildren
}

func (p *blockParser) continueHTML(n int) int {
	r := p.r
	nd := &p.nodes[n]
	line := r.peek()
	switch nd.html {
	case htmlRaw:
		if len(nd.lines) == 1 && containsRawEndTag(p.spanValue(nd.lines[0])) {
			return stClose
		}
		if containsRawEndTag(line) {
			r.advanceToEOL()
			return stClose
		}
	case htmlComment, htmlInstruction, htmlDeclaration, htmlCDATA:
		closer := htmlBlockCloser(int(nd.html))
		if len(nd.lines) == 1 && bytes.Contains(p.spanValue(nd.lines[0]), closer) {
			return stClose
		}
		if bytes.Contains(line, closer) {
			r.advanceToEOL()
			return stClose
		}
	case htmlBlockTag, htmlOtherTag:
		if isBlank(line) {
			return stClose
		}
	}
	nd.lines = append(nd.lines, r.pos)
	r.advanceToEOL()
	return stContinue | stNoChildren
}

// spanValue returns a span's text, its padding as spaces.
func (p *blockParser) spanValue(s span) []byte {
	if s.pad == 0 {
		return p.src[s.start:s.stop]
	}
	return append(appendSpaces(nil, s.pad), p.src[s.start:s.stop]...)
}

// listMarker is a list item's marker as parseListItem finds it.
type listMarker struct {
	indent    int // spaces before the marker
	start     int // offset of the marker
	end       int // offset past the marker
	content   int // offset of what follows the marker, -1 at the line's end
	stop      int // offset of the line's end, less a final '\n'; -1 with content
	ordered   bool
	markerVal byte
}

// parseListItem reads a list item marker at the start of line.
func parseListItem(line []byte) (m listMarker, ok bool) {
	i, l := 0, len(line)
	for i < l && line[i] == ' ' {
		i++
	}
	if i > 3 {
		return m, false
	}
	m.indent, m.start = i, i
	switch {
	case i < l && (line[i] == '-' || line[i] == '*' || line[i] == '+'):
		i++
	case i < l:
		for i < l && isDigit(line[i]) {
			i++
		}
		if i == m.start || i-m.start > 9 {
			return m, false
		}
		if i < l && (line[i] == '.' || line[i] == ')') {
			i++
		} else {
			return m, false
		}
		m.ordered = true
	default:
		return m, false
	}
	m.end = i
	m.markerVal = line[i-1]
	if i < l && line[i] != '\n' {
		if w, _ := indentWidth(line[i:], 0); w == 0 {
			return m, false
		}
	}
	if i >= l {
		m.content, m.stop = -1, -1
		return m, true
	}
	m.content, m.stop = i, l
	if line[l-1] == '\n' && line[i] != '\n' {
		m.stop--
	}
	return m, true
}

// emptyContent reports an item with nothing after its marker.
func (m listMarker) emptyContent(line []byte) bool {
	return m.content < 0 || isBlank(line[m.content:m.stop])
}

// contentOffset returns the columns from the marker's end to the item's
// content: 1 when the item starts blank or with indented code.
func (m listMarker) contentOffset(line []byte) int {
	if m.content < 0 || isBlank(line[m.content:]) {
		return 1
	}
	off, _ := indentWidth(line[m.content:], m.content)
	if off > 4 {
		return 1
	}
	return off
}

func (p *blockParser) lastItemOffset(list int) int {
	if c := p.nodes[list].last; c >= 0 {
		return int(p.nodes[c].offset)
	}
	return 0
}

func (p *blockParser) openList(parent int) (int, int) {
	last := p.lastOpened()
	if last >= 0 && p.nodes[last].kind == List || p.skipList {
		p.skipList = false
		return -1, 0
	}
	line := p.r.peek()
	m, ok := parseListItem(line)
	if !ok {
		return -1, 0
	}
	start := -1
	if m.ordered {
		start, _ = strconv.Atoi(string(line[m.start : m.end-1]))
	}
	if p.isParagraph(last) && p.nodes[last].parent == parent {
		if m.ordered && start != 1 {
			return -1, 0
		}
		if m.emptyContent(line) {
			return -1, 0
		}
	}
	n := p.newNode(List)
	p.nodes[n].marker = m.markerVal
	p.nodes[n].listTight = true
	p.emptyItem = false
	return n, stHasChildren
}

func (p *blockParser) openListItem(parent int) (int, int) {
	if p.nodes[parent].kind != List {
		return -1, 0
	}
	offset := p.lastItemOffset(parent)
	line := p.r.peek()
	m, ok := parseListItem(line)
	if !ok || m.indent-offset > 3 {
		return -1, 0
	}
	p.emptyItem = false
	itemOffset := m.contentOffset(line)
	n := p.newNode(ListItem)
	p.nodes[n].offset = int32(m.end + itemOffset)
	if m.emptyContent(line) {
		return n, stNoChildren
	}
	pos, pad := indentPosition(line[m.content:], m.content, 0, itemOffset)
	p.r.advanceAndSetPadding(m.end+pos, pad)
	return n, stHasChildren
}

func isOrderedMarker(c byte) bool { return c == '.' || c == ')' }

func (p *blockParser) continueList(n int) int {
	r := p.r
	line := r.peek()
	lastItem := p.nodes[n].last
	if isBlank(line) {
		if lastItem >= 0 && p.nodes[lastItem].first < 0 {
			p.emptyItem = true
		}
		return stContinue | stHasChildren
	}
	offset := p.lastItemOffset(n)
	lastIsEmpty := lastItem >= 0 && p.nodes[lastItem].first < 0
	indent, _ := indentWidth(line, r.lineOffset())
	if indent < offset || lastIsEmpty {
		if indent < 4 {
			if m, ok := parseListItem(line); ok && m.indent-offset < 4 {
				marker := p.nodes[n].marker
				if m.markerVal != marker || m.ordered != isOrderedMarker(marker) {
					return stClose
				}
				isTB := false
				if r.pos.stop > p.tbPos {
					isTB = isThematicBreak(line[m.end-1:], 0)
					p.tbPos = r.pos.stop
				}
				if isTB {
					isHeading := false
					if p.isParagraph(p.lastOpened()) {
						if c, ok := setextBar(line[m.end-1:]); ok && c == '-' {
							isHeading = true
						}
					}
					if !isHeading {
						return stClose
					}
				}
				return stContinue | stHasChildren
			}
		}
		if !lastIsEmpty {
			return stClose
		}
	}
	if lastIsEmpty && indent < offset {
		return stClose
	}
	if p.emptyItem {
		return stClose
	}
	return stContinue | stHasChildren
}

func (p *blockParser) continueListItem(n int) int {
	r := p.r
	line := r.peek()
	if isBlank(line) {
		r.advanceToEOL()
		return stContinue | stHasChildren
	}
	offset := p.lastItemOffset(p.nodes[n].parent)
	isEmpty := p.nodes[n].first < 0 && p.emptyItem
	indent, _ := indentWidth(line, r.lineOffset())
	if (isEmpty || indent < offset) && indent < 4 {
		if _, ok := parseListItem(line); ok {
			p.skipList = true
			return stClose
		}
		if !isEmpty {
			return stClose
		}
	}
	pos, pad := indentPosition(line, r.lineOffset(), 0, offset)
	r.advanceAndSetPadding(pos, pad)
	return stContinue | stHasChildren
}

// closeList decides whether a list is tight: no blank line between its
// items or between the blocks of an item. A tight list's paragraphs are
// not paragraphs to Derive (goldmark makes them TextBlocks).
func (p *blockParser) closeList(n int) {
	nd := &p.nodes[n]
	for c := nd.first; c >= 0 && nd.listTight; c = p.nodes[c].next {
		cn := &p.nodes[c]
		if cn.first >= 0 && cn.first != cn.last {
			for c1 := p.nodes[cn.first].next; c1 >= 0; c1 = p.nodes[c1].next {
				if p.nodes[c1].blankPrev {
					nd.listTight = false
					break
				}
			}
		}
		if c != nd.first && cn.blankPrev {
			nd.listTight = false
		}
	}
	if nd.listTight {
		for c := nd.first; c >= 0; c = p.nodes[c].next {
			for gc := p.nodes[c].first; gc >= 0; gc = p.nodes[gc].next {
				if p.nodes[gc].kind == Paragraph {
					p.nodes[gc].tight = true
				}
			}
		}
	}
}
