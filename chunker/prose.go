package chunker

import "strings"

// prose chunks a documentation file that is not Markdown
// (reStructuredText, AsciiDoc, plain text) into sections at its headings,
// like markdown does; a file without headings falls back to windows.
func (c *Chunker) prose(li lines) []piece {
	line := func(r int) string {
		return strings.TrimRight(string(li.src[li.starts[r]:li.end(r)]), " \t\r")
	}
	type heading struct {
		row  int
		text string
	}
	var heads []heading
	for r := 0; r < li.count(); r++ {
		l := line(r)
		if t, ok := asciidocHeading(l); ok {
			heads = append(heads, heading{r, t})
			continue
		}
		if r+1 < li.count() && rstUnderline(line(r+1), l) {
			start := r
			if r > 0 && rstUnderline(line(r-1), l) {
				start = r - 1 // an overline
			}
			heads = append(heads, heading{start, clean(l)})
			r++
		}
	}
	if len(heads) == 0 {
		return textWindows(li, c.opts.MaxChunkBytes)
	}
	var ps []piece
	add := func(id ident, s, e int) {
		if s > e {
			return
		}
		for _, w := range li.split(s, e, c.opts.MaxChunkBytes, textWindowLines, li.paragraph) {
			ps = append(ps, piece{id, w[0], w[1]})
		}
	}
	add(ident{kind: "block"}, 0, heads[0].row-1)
	for i, h := range heads {
		end := li.count() - 1
		if i+1 < len(heads) {
			end = heads[i+1].row - 1
		}
		add(ident{kind: "section", symbol: h.text}, h.row, end)
	}
	return ps
}

// rstUnderline reports whether u underlines (or overlines) title in
// reStructuredText: one punctuation character repeated at least as long
// as the title, which is not itself blank or punctuation.
func rstUnderline(u, title string) bool {
	t := strings.TrimSpace(title)
	if len(u) < 3 || t == "" || len(u) < len([]rune(t)) || !strings.ContainsAny(u[:1], "=-~^\"'*+#:.`_") {
		return false
	}
	if strings.Trim(t, u[:1]) == "" {
		return false
	}
	return strings.Trim(u, u[:1]) == ""
}

// asciidocHeading returns the text of an AsciiDoc section title ("= T" to
// "====== T").
func asciidocHeading(l string) (string, bool) {
	n := len(l) - len(strings.TrimLeft(l, "="))
	if n == 0 || n > 6 || len(l) <= n+1 || l[n] != ' ' {
		return "", false
	}
	return clean(l[n+1:]), true
}
