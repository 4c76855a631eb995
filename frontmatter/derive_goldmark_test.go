package frontmatter

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"

	"github.com/contextfs/contextfs/internal/goldmarkref"
)

// deriveGoldmark is Derive as it was before package markdown replaced
// goldmark: goldmark's headings and paragraphs, in the order its walk
// met them, given to the same deriver. Derive must give every body the
// title and summary it gave.
func deriveGoldmark(body []byte) (title, summary string) {
	var d deriver
	_ = ast.Walk(goldmarkref.Parse(body), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			d.heading(goldmarkref.Plain(n, body))
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph:
			d.paragraph(goldmarkref.Plain(n, body))
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return d.result()
}

// deriveBodies are read by Derive and deriveGoldmark, which must agree.
// They also seed FuzzDeriveAgreesWithGoldmark.
var deriveBodies = []struct{ name, body string }{
	{"a heading and a paragraph", "# Pool DB connections\n\nWe use pgxpool with **20** connections.\n"},
	{"paragraphs only", "Use port 0 in tests. Fixed ports collide in CI.\n\nSecond paragraph.\n"},
	{"a heading after paragraphs", "First. More.\n\nSecond.\n\n# Late title\n\nThird.\n"},
	{"a setext heading", "Title here\n==========\n\nSummary *text*.\n"},
	{"a heading inside a list", "- # Listed title\n- item\n\nParagraph.\n"},
	{"a heading inside a block quote", "> ## Quoted\n> text\n"},
	{"tight list items are not paragraphs", "- first item\n- second item\n\nThe paragraph.\n"},
	{"loose list items are paragraphs", "- first item\n\n- second item\n"},
	{"code and HTML are skipped", "```\n# no\n```\n\n    code\n\n<div>\n# no\n</div>\n\nText.\n"},
	{"an empty heading leaves the title to the next", "#\n\n## Real\n\nBody.\n"},
	{"link definitions are not paragraphs", "[a]: /url\n\nSee [a] and [b](/b).\n"},
	{"inline markup is dropped", "`code` <b>raw</b> <http://x.y> ![img](/i) \\*esc\\* &amp;\n"},
	{"a long title is cut", "# " + strings.Repeat("word ", 30) + "\n\n" + strings.Repeat("more text ", 40) + "\n"},
	{"a title ending the paragraph", "Only one sentence\n"},
}

func TestDeriveAgreesWithGoldmark(t *testing.T) {
	for _, tt := range deriveBodies {
		t.Run(tt.name, func(t *testing.T) {
			title, sum := Derive([]byte(tt.body))
			wantTitle, wantSum := deriveGoldmark([]byte(tt.body))
			if title != wantTitle || sum != wantSum {
				t.Errorf("Derive = %q, %q; goldmark gave %q, %q", title, sum, wantTitle, wantSum)
			}
		})
	}
}

func FuzzDeriveAgreesWithGoldmark(f *testing.F) {
	for _, tt := range deriveBodies {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4<<10 {
			return
		}
		wantTitle, wantSum, ok := deriveGoldmarkNoPanic(body)
		if !ok {
			return
		}
		if title, sum := Derive(body); title != wantTitle || sum != wantSum {
			t.Errorf("Derive(%q) = %q, %q; goldmark gave %q, %q", body, title, sum, wantTitle, wantSum)
		}
	})
}

func deriveGoldmarkNoPanic(body []byte) (title, summary string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	title, summary = deriveGoldmark(body)
	return title, summary, true
}
