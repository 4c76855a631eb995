package chunker

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"

	"github.com/contextfs/contextfs/internal/goldmarkref"
)

// markdownGoldmark is the Markdown chunking as it was before package
// markdown replaced goldmark: goldmark's top-level blocks and headings,
// cut into sections the same way. Chunker.markdown must cut every file as
// it did, so that files indexed before keep their chunks.
func (c *Chunker) markdownGoldmark(li lines) []piece {
	if li.count() == 0 {
		return nil
	}
	src, offset := markdownBody(li)
	var heads []heading
	blocks := map[int]bool{}
	for n := goldmarkref.Parse(src).FirstChild(); n != nil; n = n.NextSibling() {
		if n.Pos() < 0 {
			continue
		}
		r := sort.SearchInts(li.starts, offset+n.Pos()+1) - 1
		blocks[r] = true
		if h, ok := n.(*ast.Heading); ok {
			heads = append(heads, heading{r, h.Level, goldmarkref.Plain(h, src)})
		}
	}
	return c.sections(li, heads, blocks)
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
