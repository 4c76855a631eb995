package frontmatter

import (
	"strings"
	"unicode/utf8"

	"github.com/contextfs/contextfs/markdown"
)

// Derive reads a Markdown body and returns a title (the first heading, or
// else the first sentence of the first paragraph) and a summary (the first
// paragraph that is not the title), each cut to a readable length. Memories
// saved without a title or summary get these.
func Derive(body []byte) (title, summary string) {
	doc := markdown.Parse(body)
	var firstPara string
	for i, b := range doc.Blocks {
		if title != "" && summary != "" {
			break // nothing later changes either
		}
		switch {
		case b.Kind == markdown.Heading:
			if title == "" {
				title = doc.Text(i)
			}
		case b.Kind == markdown.Paragraph && !b.Tight:
			p := doc.Text(i)
			if firstPara == "" {
				firstPara = p
			} else if summary == "" && title == "" {
				summary = p
			}
			if summary == "" && title != "" {
				summary = p
			}
		}
	}
	if title == "" && firstPara != "" {
		title = firstSentence(firstPara)
		if summary == "" && title != firstPara {
			summary = firstPara
		}
	}
	return Cut(title, 80), Cut(summary, 200)
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
