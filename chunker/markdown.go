package chunker

import (
	"bytes"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdown chunks a Markdown file into sections, one per heading.
func (c *Chunker) markdown(li lines) []piece {
	if li.count() == 0 {
		return nil
	}
	// YAML front matter is not Markdown: goldmark would read its closing
	// "---" as a setext underline and its last line as a heading.
	body := frontMatterRows(li)
	if c.md == nil {
		// goldmark.DefaultParser, without goldmark's root package and
		// the HTML renderer it links (their init runs in every process).
		c.md = parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(parser.DefaultInlineParsers()...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		)
	}
	offset := len(li.src)
	if body < li.count() {
		offset = li.starts[body]
	}
	src := li.src[offset:]
	doc := c.md.Parse(text.NewReader(src))

	row := func(pos int) int { // byte offset in src to row
		return sort.SearchInts(li.starts, offset+pos+1) - 1
	}
	// Sections start at headings; any top-level block start is a good
	// place to split a section too large for one chunk.
	type heading struct {
		row, level int
		text       string
	}
	var heads []heading
	blocks := map[int]bool{}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Pos() < 0 {
			continue
		}
		r := row(n.Pos())
		blocks[r] = true
		if h, ok := n.(*ast.Heading); ok {
			heads = append(heads, heading{r, h.Level, headingText(h, src)})
		}
	}
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

// headingText returns a heading's plain text: the text of its inline
// children without Markdown syntax, so "`Chunk` *API*" is "Chunk API".
func headingText(h *ast.Heading, src []byte) string {
	var buf bytes.Buffer
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				buf.Write(t.Segment.Value(src))
				if t.SoftLineBreak() || t.HardLineBreak() {
					buf.WriteByte(' ')
				}
			case *ast.String:
				buf.Write(t.Value)
			default:
				walk(c)
			}
		}
	}
	walk(h)
	return clean(buf.String())
}
