// Package goldmarkref is goldmark's reading of Markdown as contextfs took
// it before package markdown replaced goldmark: the reference that the
// tests of markdown, frontmatter and chunker compare with, so that no
// derived title and no chunk of a file already indexed changes. Only
// tests import it; the programs do not link goldmark.
package goldmarkref

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// NewParser returns goldmark's default CommonMark parser, built as
// contextfs built it (without goldmark's root package).
func NewParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// Parse reads src with a new NewParser.
func Parse(src []byte) ast.Node {
	return NewParser().Parse(text.NewReader(src))
}

// Plain is the plain text of a heading or paragraph of src as Derive and
// the chunker took it: text and string nodes, code spans' code, a space
// for a line break, white space folded.
func Plain(n ast.Node, src []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for k := c.FirstChild(); k != nil; k = k.NextSibling() {
				if t, ok := k.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}
