package frontmatter

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/contextfs/contextfs/internal/mdtext"
)

// Derive reads a Markdown body and returns a title (the first heading, or
// else the first sentence of the first paragraph) and a summary (the first
// paragraph that is not the title), each cut to a readable length. Memories
// saved without a title or summary get these.
func Derive(body []byte) (title, summary string) {
	var d deriver
	doc, err := mdtext.Parse(body)
	if err != nil {
		// Markdown the parser cannot read is taken as one paragraph.
		d.paragraph(strings.Join(strings.Fields(string(body)), " "))
		return d.result()
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if d.done() {
			return ast.WalkStop, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			d.heading(mdtext.Plain(n, body))
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph:
			d.paragraph(mdtext.Plain(n, body))
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return d.result()
}

// deriver takes a document's headings and paragraphs (those of tight
// list items excepted) in order, and makes the title and summary of them.
type deriver struct {
	title, summary, firstPara string
}

func (d *deriver) heading(text string) {
	if d.title == "" {
		d.title = text
	}
}

func (d *deriver) paragraph(p string) {
	if d.firstPara == "" {
		d.firstPara = p
	} else if d.summary == "" && d.title == "" {
		d.summary = p
	}
	if d.summary == "" && d.title != "" {
		d.summary = p
	}
}

// done reports that no later block changes the result.
func (d *deriver) done() bool { return d.title != "" && d.summary != "" }

func (d *deriver) result() (title, summary string) {
	title, summary = d.title, d.summary
	if title == "" && d.firstPara != "" {
		title = firstSentence(d.firstPara)
		if summary == "" && title != d.firstPara {
			summary = d.firstPara
		}
	}
	return Cut(title, 80), Cut(summary, 200)
}

// firstSentence is s up to the first '.', '!' or '?' before a space or
// the end, except one that ends a path ("go test ./... failed") or an
// abbreviation that never ends a sentence ("e.g. a pool").
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			word := s[strings.LastIndexByte(s[:i], ' ')+1 : i+1]
			if strings.ContainsRune(word, '/') || midSentence[strings.ToLower(word)] {
				continue
			}
			return s[:i+1]
		}
	}
	return s
}

// midSentence are abbreviations a sentence goes on after.
var midSentence = map[string]bool{"e.g.": true, "i.e.": true, "cf.": true, "vs.": true}

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
