// Package mdtext reads Markdown with goldmark, configured as contextfs has
// always read it: goldmark's default CommonMark block and inline parsers,
// without its root package and HTML renderer, and the plain text of a
// heading or paragraph as titles and chunk names take it.
package mdtext

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// newParser returns goldmark's default CommonMark parser (the
// configuration of goldmark.DefaultParser). A parser keeps state while it
// parses, so each Parse makes its own.
func newParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// Parse reads src into goldmark's document tree. Memories and the
// repository's files are untrusted input: a panic inside the parser (fuzzing
// has found inputs that make goldmark panic) is returned as an error, so
// that callers fall back instead of failing a whole command.
func Parse(src []byte) (doc ast.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("markdown: the parser failed: %v", r)
		}
	}()
	return newParser().Parse(text.NewReader(src)), nil
}

// Plain is the plain text of a heading or paragraph of src: text and
// string nodes, code spans' code, a space for a line break, white space
// folded.
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
