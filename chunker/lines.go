package chunker

import "bytes"

// lines indexes the rows of a file so that line ranges can be measured and
// cut in constant time. Rows are 0-based and, like tree-sitter's, separated
// by '\n' only; a final newline does not start another row.
type lines struct {
	src    []byte
	starts []int // byte offset where each row begins
}

func newLines(src []byte) lines {
	li := lines{src: src}
	if len(src) == 0 {
		return li
	}
	li.starts = make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// count reports the number of rows.
func (li lines) count() int { return len(li.starts) }

// end returns the offset just past row r, excluding its '\n'.
func (li lines) end(r int) int {
	if r+1 < len(li.starts) {
		return li.starts[r+1] - 1
	}
	if n := len(li.src); n > 0 && li.src[n-1] == '\n' {
		return n - 1
	}
	return len(li.src)
}

// size reports the bytes in rows s through e.
func (li lines) size(s, e int) int { return li.end(e) - li.starts[s] }

// text returns the exact source of rows s through e.
func (li lines) text(s, e int) string { return string(li.src[li.starts[s]:li.end(e)]) }

// blank reports whether row r holds only white space.
func (li lines) blank(r int) bool {
	return len(bytes.TrimSpace(li.src[li.starts[r]:li.end(r)])) == 0
}

// trim narrows rows s through e to exclude leading and trailing blank rows;
// ok is false if nothing but blank rows remain.
func (li lines) trim(s, e int) (ts, te int, ok bool) {
	for s <= e && li.blank(s) {
		s++
	}
	for e >= s && li.blank(e) {
		e--
	}
	return s, e, s <= e
}

// paragraph reports whether a window may preferably start at row r: the
// first non-blank row after a blank one.
func (li lines) paragraph(r int) bool {
	return r > 0 && !li.blank(r) && li.blank(r-1)
}

// split cuts rows s through e into windows of at most maxBytes and, when
// maxLines > 0, maxLines rows. A window that would overflow ends before the
// last row for which prefer reports true, if that keeps it at least half
// full; otherwise it ends at the limit. A single row longer than maxBytes
// is a window of its own: chunks never split a line. Windows are trimmed of
// blank rows, and all-blank ones are dropped.
func (li lines) split(s, e, maxBytes, maxLines int, prefer func(int) bool) [][2]int {
	var out [][2]int
	for s <= e {
		end := s
		for end < e && li.size(s, end+1) <= maxBytes && (maxLines <= 0 || end+1-s < maxLines) {
			end++
		}
		if end < e {
			for r := end; r > s+(end-s)/2; r-- {
				if prefer(r + 1) {
					end = r
					break
				}
			}
		}
		if ts, te, ok := li.trim(s, end); ok {
			out = append(out, [2]int{ts, te})
		}
		s = end + 1
	}
	return out
}
