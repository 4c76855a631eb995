package markdown

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/contextfs/contextfs/internal/goldmarkref"
)

// view is what a document's blocks look like to the chunker and to
// Derive: one line per block in pre-order with its kind, depth, offset
// and, for headings and paragraphs, plain text.
type view []string

func (v view) String() string { return strings.Join(v, "\n") }

func blockLine(kind Kind, depth, pos, level int, tight bool, txt string) string {
	s := fmt.Sprintf("%*s%s@%d", 2*depth, "", kindName(kind), pos)
	if kind == Heading {
		s += fmt.Sprintf(" h%d", level)
	}
	if tight {
		s += " tight"
	}
	if kind == Heading || kind == Paragraph {
		s += fmt.Sprintf(" %q", txt)
	}
	return s
}

func kindName(k Kind) string {
	switch k {
	case Paragraph:
		return "para"
	case Heading:
		return "heading"
	case ThematicBreak:
		return "hr"
	case CodeBlock:
		return "code"
	case FencedCode:
		return "fenced"
	case HTMLBlock:
		return "html"
	case LinkDefinition:
		return "linkdef"
	case BlockQuote:
		return "quote"
	case List:
		return "list"
	case ListItem:
		return "item"
	}
	return "?"
}

// ours is this package's view of src.
func ours(src []byte) view {
	doc := Parse(src)
	var v view
	for i, b := range doc.Blocks {
		v = append(v, blockLine(b.Kind, b.Depth, b.Pos, b.Level, b.Tight, doc.Text(i)))
	}
	return v
}

// theirs is goldmark's view of src, its plain text taken as Derive and the
// chunker took it.
func theirs(src []byte) view {
	doc := goldmarkref.Parse(src)
	var v view
	var walk func(n ast.Node, depth int)
	walk = func(n ast.Node, depth int) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			var kind Kind
			level, tight := 0, false
			switch c := c.(type) {
			case *ast.Paragraph:
				kind = Paragraph
			case *ast.TextBlock:
				kind, tight = Paragraph, true
			case *ast.Heading:
				kind, level = Heading, c.Level
			case *ast.ThematicBreak:
				kind = ThematicBreak
			case *ast.CodeBlock:
				kind = CodeBlock
			case *ast.FencedCodeBlock:
				kind = FencedCode
			case *ast.HTMLBlock:
				kind = HTMLBlock
			case *ast.LinkReferenceDefinition:
				kind = LinkDefinition
			case *ast.Blockquote:
				kind = BlockQuote
			case *ast.List:
				kind = List
			case *ast.ListItem:
				kind = ListItem
			}
			txt := ""
			if kind == Heading || kind == Paragraph {
				txt = goldmarkref.Plain(c, src)
			}
			v = append(v, blockLine(kind, depth, c.Pos(), level, tight, txt))
			if kind == BlockQuote || kind == List || kind == ListItem {
				walk(c, depth+1)
			}
		}
	}
	walk(doc, 0)
	return v
}
