package markdown

// transformParagraph takes the link reference definitions off the start of
// a closing paragraph, as blocks of their own before it, and records their
// labels. It reports whether nothing of the paragraph was left.
func (p *blockParser) transformParagraph(n int) bool {
	lines := p.nodes[n].lines
	r := &p.seg
	r.reset(p.src, lines)
	var removes [][2]int
	for {
		ok, start, end, pos := p.parseLinkRefDef(r)
		if !ok {
			break
		}
		ref := p.newNode(LinkDefinition)
		p.nodes[ref].pos = pos
		if start == 0 {
			p.nodes[ref].blankPrev = p.nodes[n].blankPrev
		}
		p.insertBefore(p.nodes[n].parent, n, ref)
		if start == end {
			end++
		}
		removes = append(removes, [2]int{start, end})
	}
	// goldmark counts the lines removed so far by the end of the last
	// definition, which is off when a definition left a line behind; the
	// same arithmetic keeps the same lines.
	offset := 0
	for _, rm := range removes {
		if len(lines) == 0 {
			break
		}
		hi, lo := rm[1]-offset, rm[0]-offset
		hi = min(max(hi, 0), len(lines))
		lo = min(max(lo, 0), hi)
		lines = append(lines[:lo], lines[hi:]...)
		offset = rm[1]
	}
	if len(lines) == 0 {
		p.remove(n)
		return true
	}
	p.nodes[n].lines = lines
	return false
}

// parseLinkRefDef reads one link reference definition at the reader's
// position: [label]: destination "title". It returns the lines it spans,
// as goldmark counts them, and its offset.
func (p *blockParser) parseLinkRefDef(r *segReader) (ok bool, startLine, endLine, pos int) {
	r.skipSpaces()
	line := r.peekLine()
	if line == nil {
		return false, -1, -1, -1
	}
	startLine, _ = r.position()
	width, i := indentWidth(line, 0)
	if width > 3 {
		return false, -1, -1, -1
	}
	if width != 0 {
		i++
	}
	if i >= len(line) || line[i] != '[' {
		return false, -1, -1, -1
	}
	_, startPos := r.position()
	r.advance(i + 1)
	label, found := r.findClosure('[', ']', true, nil)
	if !found || isBlank(label) {
		return false, -1, -1, -1
	}
	if r.peekByte() != ':' {
		return false, -1, -1, -1
	}
	r.advance(1)
	r.skipSpaces()
	if !parseLinkDestination(r) {
		return false, -1, -1, -1
	}
	line = r.peekLine()
	isNewLine := line == nil || isBlank(line)
	endLine, _ = r.position()
	spaces := r.skipSpaces()
	opener := r.peekByte()
	if opener != '"' && opener != '\'' && opener != '(' {
		if !isNewLine {
			return false, -1, -1, -1
		}
		p.addRef(label)
		return true, startLine, endLine + 1, startPos.start
	}
	if spaces == 0 {
		return false, -1, -1, -1
	}
	r.advance(1)
	closer := opener
	if opener == '(' {
		closer = ')'
	}
	if _, found := r.findClosure(opener, closer, false, nil); !found {
		if !isNewLine {
			return false, -1, -1, -1
		}
		p.addRef(label)
		r.advanceLine()
		return true, startLine, endLine + 1, startPos.start
	}
	line = r.peekLine()
	if line != nil && !isBlank(line) {
		if !isNewLine {
			return false, -1, -1, -1
		}
		p.addRef(label)
		return true, startLine, endLine, startPos.start
	}
	endLine, _ = r.position()
	p.addRef(label)
	return true, startLine, endLine + 1, startPos.start
}

func (p *blockParser) addRef(label []byte) {
	if p.refs == nil {
		p.refs = map[string]struct{}{}
	}
	p.refs[normalizeLabel(label)] = struct{}{}
}

// parseLinkDestination reads a link destination: <...> on one line, or
// text without white space and with its parentheses (goldmark does not
// require them balanced).
func parseLinkDestination(r *segReader) bool {
	r.skipSpaces()
	line := r.peekLine()
	if r.peekByte() == '<' {
		for i := 1; i < len(line); {
			c := line[i]
			if c == '\\' && i < len(line)-1 && isPunct(line[i+1]) {
				i += 2
				continue
			}
			if c == '>' {
				r.advance(i + 1)
				return true
			}
			i++
		}
		return false
	}
	opened, i := 0, 0
	for i < len(line) {
		c := line[i]
		if c == '\\' && i < len(line)-1 && isPunct(line[i+1]) {
			i += 2
			continue
		}
		if c == '(' {
			opened++
		} else if c == ')' {
			opened--
			if opened < 0 {
				break
			}
		} else if isSpace(c) {
			break
		}
		i++
	}
	r.advance(i)
	return i != 0
}

// parseLinkTitle reads a link title in quotes or parentheses, which may
// span lines.
func parseLinkTitle(r *segReader) bool {
	r.skipSpaces()
	opener := r.peekByte()
	if opener != '"' && opener != '\'' && opener != '(' {
		return false
	}
	r.advance(1)
	closer := opener
	if opener == '(' {
		closer = ')'
	}
	_, found := r.findClosure(opener, closer, false, nil)
	return found
}
