// Package markdown reads the block structure of a Markdown document as
// CommonMark defines it, and the plain text of its headings and
// paragraphs. It renders nothing and builds no inline tree: the chunker
// needs where each top-level block starts and what each heading says, and
// Derive needs the first heading and paragraphs.
//
// It reads exactly as goldmark (github.com/yuin/goldmark, with its
// default CommonMark parsers) does, corners where goldmark departs from
// the spec included, because contextfs used goldmark before and the
// chunks and titles of files already indexed must not change. goldmark
// itself is no longer linked: its package initialisers cost every process
// of the CLI about 0.5 ms and 110 page faults, a tenth of `git-contextfs
// --version` (docs/DESIGN.md, "Start-up"). The tests compare this package
// with goldmark's parse.
//
// Parse never fails and never panics: every input is some Markdown.
package markdown

// Kind is the kind of a block.
type Kind uint8

// The kinds of blocks.
const (
	Paragraph      Kind = iota + 1
	Heading             // ATX (# Title) or setext (Title underlined)
	ThematicBreak       // ---, ***, ___
	CodeBlock           // indented code
	FencedCode          // ``` or ~~~ code
	HTMLBlock           // raw HTML
	LinkDefinition      // [label]: destination "title"
	BlockQuote          // > ...
	List                // bullet or ordered
	ListItem
)

// Block is one block of a document.
type Block struct {
	Kind Kind
	// Depth is the number of container blocks (block quotes, lists, list
	// items) around the block; top-level blocks have 0.
	Depth int
	// Pos is the byte offset in the source where the block starts: its
	// first character past indentation, for a paragraph its first line's
	// (after link reference definitions taken off its start).
	Pos int
	// Level is a heading's level, 1 to 6.
	Level int
	// Tight marks a paragraph directly in an item of a tight list (one
	// without blank lines between its items or their blocks), which
	// renders without <p>: goldmark does not count it a paragraph.
	Tight bool

	lines []span
}

// Document is a parsed Markdown document.
type Document struct {
	// Blocks are all the blocks of the document in pre-order: each
	// container block before the blocks it contains.
	Blocks []Block

	src  []byte
	refs map[string]struct{}
}

// Parse reads src as Markdown. The document keeps src, which must not
// change while the document is used.
func Parse(src []byte) *Document {
	p := &blockParser{src: src, r: newLineReader(src)}
	p.parse()
	doc := &Document{src: src, refs: p.refs}
	doc.Blocks = make([]Block, 0, len(p.nodes))
	var walk func(n, depth int)
	walk = func(n, depth int) {
		for c := p.nodes[n].first; c >= 0; c = p.nodes[c].next {
			nd := &p.nodes[c]
			pos := nd.pos
			if nd.kind == Paragraph {
				pos = -1
				if len(nd.lines) > 0 {
					pos = nd.lines[0].start
				}
			}
			doc.Blocks = append(doc.Blocks, Block{Kind: nd.kind, Depth: depth, Pos: pos,
				Level: int(nd.level), Tight: nd.tight, lines: nd.lines})
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return doc
}

// Text returns the plain text of block i, a heading or a paragraph: its
// inline markup dropped (emphasis, links and images keep their text,
// autolinks and raw HTML keep none, code spans keep their code), escapes
// and entities left as written, white space folded to single spaces. It
// returns "" for other blocks.
func (d *Document) Text(i int) string {
	b := &d.Blocks[i]
	if b.Kind != Heading && b.Kind != Paragraph {
		return ""
	}
	return plainText(d.src, d.refs, b.lines)
}
