package chunker

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdownGoldmark is the Markdown chunking as it was before package
// markdown replaced goldmark: Chunker.markdown must cut every file as it
// did, so that files indexed before keep their chunks.
func (c *Chunker) markdownGoldmark(li lines) []piece {
	if li.count() == 0 {
		return nil
	}
	body := frontMatterRows(li)
	md := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	offset := len(li.src)
	if body < li.count() {
		offset = li.starts[body]
	}
	src := li.src[offset:]
	doc := md.Parse(text.NewReader(src))
	row := func(pos int) int {
		return sort.SearchInts(li.starts, offset+pos+1) - 1
	}
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
			heads = append(heads, heading{r, h.Level, goldmarkHeadingText(h, src)})
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
	var stack []heading
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

func goldmarkHeadingText(h *ast.Heading, src []byte) string {
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

// markdownDocs are cut by Chunker.markdown and by markdownGoldmark, which
// must cut them the same. They also seed FuzzMarkdownChunksAsGoldmarkDid.
var markdownDocs = []struct{ name, src string }{
	{"headings nest into sections", "# A\ntext\n## B\nmore\n### C\n## D\n# E\n"},
	{"text before the first heading is a block", "intro\n\n# A\nbody\n"},
	{"front matter is not a setext heading", "---\ntitle: x\n---\n# A\nbody\n"},
	{"front matter ended by dots", "---\na: 1\n...\nb\n---\n"},
	{"setext headings start sections", "Title\n=====\n\ntext\n\nSub\n---\nmore\n"},
	{"a hash in fenced code is not a heading", "# A\n```\n# not\n```\n## B\n"},
	{"a hash in indented code is not a heading", "# A\n\n    # not\n\n## B\n"},
	{"a hash in an HTML block is not a heading", "<div>\n# not\n</div>\n\n# A\n"},
	{"headings in quotes and lists are not sections", "> # not\n\n- # not\n\n# A\n"},
	{"heading text drops its markup", "# The `Chunk` *API* [link](/x) <b>tag</b>\n"},
	{"a heading over two lines", "one\ntwo\n===\n"},
	{"link definitions are blocks of their own", "# A\n[a]: /a\n[b]: /b\ntext [a]\n"},
	{"CRLF line ends", "# A\r\ntext\r\n\r\n## B\r\nmore\r\n"},
	{"no final newline", "# A\ntext"},
	{"blocks of a long section", "# A\n\n" + strings.Repeat("para one two three four five\n\n- item\n- item\n\n    code\n\n", 20)},
	{"tabs and lazy lines", "-\tone\ntwo\n\n>\tquote\nlazy\n# A\n"},
}

func TestMarkdownChunksAsGoldmarkDid(t *testing.T) {
	_, guide := readFixture(t, "guide.md")
	docs := append([]struct{ name, src string }{{"guide.md", string(guide)}}, markdownDocs...)
	for _, max := range []int{0, 60, 200} {
		c := New(Options{MaxChunkBytes: max})
		for _, tt := range docs {
			t.Run(fmt.Sprintf("%s/max=%d", tt.name, max), func(t *testing.T) {
				li := newLines([]byte(tt.src))
				got, want := c.markdown(li), c.markdownGoldmark(li)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("markdown pieces:\n got %v\nwant %v", got, want)
				}
			})
		}
		c.Close()
	}
}

// FuzzMarkdownChunksAsGoldmarkDid checks Markdown chunking against the
// goldmark-based chunking it replaced, with limits small enough to split
// sections between blocks.
func FuzzMarkdownChunksAsGoldmarkDid(f *testing.F) {
	for _, tt := range markdownDocs {
		f.Add(uint16(0), []byte(tt.src))
		f.Add(uint16(40), []byte(tt.src))
	}
	f.Fuzz(func(t *testing.T, max uint16, src []byte) {
		if len(src) > 4<<10 {
			return
		}
		c := &Chunker{opts: Options{}.withDefaults()}
		if max > 0 {
			c.opts.MaxChunkBytes = 20 + int(max)%2000
		}
		li := newLines(src)
		want, ok := goldmarkPieces(c, li)
		if !ok {
			return
		}
		if got := c.markdown(li); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("markdown(%q) pieces:\n got %v\nwant %v", src, got, want)
		}
	})
}

// goldmarkPieces is markdownGoldmark, reporting false where goldmark
// panics.
func goldmarkPieces(c *Chunker, li lines) (ps []piece, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.markdownGoldmark(li), true
}
