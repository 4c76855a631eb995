package frontmatter

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Derive reads a Markdown body and returns a title (the first heading, or
// else the first sentence of the first paragraph) and a summary (the first
// paragraph that is not the title), each cut to a readable length. Memories
// saved without a title or summary get these.
func Derive(body []byte) (title, summary string) {
	root := newParser().Parse(text.NewReader(body))
	var firstPara string
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if title == "" {
				title = plain(n, body)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph:
			p := plain(n, body)
			if firstPara == "" {
				firstPara = p
			} else if summary == "" && title == "" {
				summary = p
			}
			if summary == "" && title != "" {
				summary = p
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if title == "" && firstPara != "" {
		title = firstSentence(firstPara)
		if summary == "" && title != firstPara {
			summary = firstPara
		}
	}
	return Cut(title, 80), Cut(summary, 200)
}

// newParser is goldmark's default CommonMark parser, as goldmark.New
// builds it, made without importing goldmark's root package: that would
// link its HTML renderer, whose initialisation every process pays.
func newParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// plain returns the text of a block node with inline markup dropped and
// white space folded.
func plain(n ast.Node, src []byte) string {
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

func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			return s[:i+1]
		}
	}
	return s
}

// Cut shortens s to at most n runes, at a word boundary when one is near,
// marking the cut with an ellipsis.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
