package chunker

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/contextfs/contextfs/internal/mdtext"
)

// markdown chunks a Markdown file into sections, one per heading.
func (c *Chunker) markdown(li lines) []piece {
	if li.count() == 0 {
		return nil
	}
	src, offset := markdownBody(li)
	var heads []heading
	blocks := map[int]bool{}
	doc, err := mdtext.Parse(src)
	if err != nil {
		// A file the parser cannot read is cut by size alone.
		return c.sections(li, nil, blocks)
	}
	// Sections start at top-level headings; any top-level block is a place
	// to split a long one.
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Pos() < 0 {
			continue
		}
		r := sort.SearchInts(li.starts, offset+n.Pos()+1) - 1
		blocks[r] = true
		if h, ok := n.(*ast.Heading); ok {
			heads = append(heads, heading{r, h.Level, mdtext.Plain(h, src)})
		}
	}
	return c.sections(li, heads, blocks)
}

// markdownBody returns the Markdown of li and its offset in li.src: all
// of it but YAML front matter, which is not Markdown (its closing "---"
// would read as a setext underline and its last line as a heading).
func markdownBody(li lines) (src []byte, offset int) {
	offset = len(li.src)
	if body := frontMatterRows(li); body < li.count() {
		offset = li.starts[body]
	}
	return li.src[offset:], offset
}

// heading is a top-level heading of a Markdown file: its row, level and
// plain text.
type heading struct {
	row, level int
	text       string
}

// sections cuts li into a block before the first heading and a section
// per heading, nested by level. Sections start at headings; any top-level
// block start (a row in blocks) is a good place to split a section too
// large for one chunk.
func (c *Chunker) sections(li lines, heads []heading, blocks map[int]bool) []piece {
	prefer := func(r int) bool { return blocks[r] }
	var ps []piece
	add := func(id ident, s, e int) {
		for _, w := range li.split(s, e, c.opts.MaxChunkBytes, 0, prefer) {
			ps = append(ps, piece{id, w[0], w[1]})
		}
	}
	first := li.count()
	if len(heads) > 0 {
		first = heads[0].row
	}
	add(ident{kind: "block"}, 0, first-1)
	var stack []heading // enclosing headings, outermost first
	for i, h := range heads {
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		id := ident{kind: "section", symbol: h.text}
		if len(stack) > 0 {
			id.parent = stack[len(stack)-1].text
		}
		stack = append(stack, h)
		end := li.count() - 1
		if i+1 < len(heads) {
			end = heads[i+1].row - 1
		}
		add(id, h.row, end)
	}
	return ps
}

// frontMatterRows returns the number of rows of YAML front matter at the
// start of the file: from a first line "---" through the next "---" or
// "..." line. It returns 0 if there is none.
func frontMatterRows(li lines) int {
	line := func(r int) string {
		return strings.TrimRight(string(li.src[li.starts[r]:li.end(r)]), " \t\r")
	}
	if line(0) != "---" {
		return 0
	}
	for r := 1; r < li.count(); r++ {
		if l := line(r); l == "---" || l == "..." {
			return r + 1
		}
	}
	return 0
}
