package importer

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark/ast"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/internal/mdtext"
)

// bankTypes maps the files of Cline's memory bank to types. Both
// progress.md and activeContext.md (current focus, recent changes, next
// steps) are where the work stands: progress, not episodic, which is what
// sessions write and the context block shows as "Last session".
// A switch, not a map: a package-level map is built at every start of
// every command (docs/DESIGN.md, "Start-up").
func bankType(base string) (string, bool) {
	switch base {
	case "projectbrief.md":
		return "project-brief", true
	case "productcontext.md":
		return "product-context", true
	case "systempatterns.md":
		return "architecture", true
	case "techcontext.md":
		return "tech-context", true
	case "progress.md", "activecontext.md":
		return "progress", true
	}
	return "", false
}

// parseMemoryBank reads a memory-bank file: one memory per second-level
// section (the first-level heading titles the file), or one for the file
// when it has none. Progress files are one memory each: the store keeps
// one current progress, not one per heading. Other files of the bank
// are facts.
func parseMemoryBank(rel string, src []byte) ([]Item, error) {
	base := strings.ToLower(path.Base(rel))
	typ, ok := bankType(base)
	if !ok {
		typ = "fact"
	}
	_, body, err := splitFront(src)
	if err != nil {
		return nil, err
	}
	doc, err := mdtext.Parse(body)
	if err != nil {
		return nil, err
	}
	l := newLines(body)
	fileTitle := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	// Cut the document at its level-1 and level-2 headings.
	type cut struct {
		title  string
		level  int
		anchor string
		line   int // first line of content
		head   int // line of the heading
	}
	var cuts []cut
	cuts = append(cuts, cut{title: fileTitle, anchor: "top"})
	seen := map[string]int{}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level > 2 || (typ == "progress" && h.Level > 1) {
			continue
		}
		ln, ok := startLine(h, l)
		if !ok {
			continue
		}
		t := mdtext.Plain(h, body)
		if h.Level == 1 {
			fileTitle = t
		}
		a := cmpSlug(t)
		if seen[a]++; seen[a] > 1 {
			a = fmt.Sprintf("%s-%d", a, seen[a])
		}
		next := ln + 1
		if u := l.text(ln+1, ln+2); u != "" && strings.Trim(u, "=- ") == "" {
			next = ln + 2 // a setext heading's underline
		}
		cuts = append(cuts, cut{title: t, level: h.Level, anchor: a, line: next, head: ln})
	}
	var items []Item
	for i, c := range cuts {
		end := len(l.starts)
		if i+1 < len(cuts) {
			end = cuts[i+1].head
		}
		text := strings.TrimSpace(l.text(c.line, end))
		if text == "" {
			continue
		}
		title := c.title
		if c.level <= 1 {
			title = fileTitle
		}
		items = append(items, Item{Anchor: c.anchor, Type: typ, Title: title, Body: text + "\n"})
	}
	return items, nil
}

// parseADR reads an architecture decision record as one decision: the
// whole record is the body; data.status comes from MADR's frontmatter
// status, a "Status" section (Nygard) or a "Status:" line (MADR 2), and
// data.decision from the first paragraph of the "Decision" (Nygard) or
// "Decision Outcome" (MADR) section.
func parseADR(rel string, src []byte) ([]Item, error) {
	front, body, err := splitFront(src)
	if err != nil {
		return nil, err
	}
	doc, err := mdtext.Parse(body)
	if err != nil {
		return nil, err
	}
	it := Item{Type: "decision", Data: map[string]any{}}
	var inSection string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			t := mdtext.Plain(h, body)
			if h.Level == 1 && it.Title == "" {
				it.Title = adrNumber().ReplaceAllString(t, "")
				inSection = ""
				continue
			}
			inSection = strings.ToLower(strings.TrimSpace(t))
			continue
		}
		text := blockText(n, body)
		switch {
		case inSection == "status" && it.Data["status"] == nil:
			if s, ok := adrStatus(text); ok {
				it.Data["status"] = s
			}
		case (inSection == "decision" || inSection == "decision outcome") && it.Data["decision"] == nil && text != "":
			it.Data["decision"] = frontmatter.Cut(text, 300)
		}
		// MADR 2: "* Status: accepted" and "* Date: …" in a list under
		// the title; Nygard's "Date: …" line.
		for _, line := range blockLines(n, body) {
			k, v, ok := strings.Cut(strings.TrimLeft(line, "*-+ "), ":")
			if !ok {
				continue
			}
			v = strings.TrimLeft(v, "*_ ")
			switch strings.ToLower(strings.Trim(k, "*_ ")) {
			case "status":
				if it.Data["status"] == nil {
					if s, ok := adrStatus(v); ok {
						it.Data["status"] = s
					}
				}
			case "date":
				if it.Data["date"] == nil {
					if d, ok := adrDate(v); ok {
						it.Data["date"] = d
					}
				}
			}
		}
	}
	if v, ok := front["status"]; ok {
		if s, ok := adrStatus(fmt.Sprint(v)); ok {
			it.Data["status"] = s
		}
	}
	if v, ok := front["date"]; ok {
		if t, ok := v.(time.Time); ok {
			it.Data["date"] = t.Format(time.DateOnly)
		} else if d, ok := adrDate(fmt.Sprint(v)); ok {
			it.Data["date"] = d
		}
	}
	if st, _ := it.Data["status"].(string); st == "rejected" {
		// The schema has no "rejected": the record is kept, as
		// deprecated, and tagged so.
		it.Data["status"] = "deprecated"
		it.Tags = append(it.Tags, "rejected")
	}
	if it.Title == "" {
		it.Title = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	}
	it.Body = strings.TrimSpace(string(body)) + "\n"
	if strings.TrimSpace(string(body)) == "" {
		return nil, nil
	}
	return []Item{it}, nil
}

// adrNumber is the number an ADR's title starts with: "1. ", "ADR-0002: ",
// "0003 - ".
var adrNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(adr[-\s]?)?\d+\s*[.:)\-–]\s*`)
})

// adrStatus reads a status as the templates write it ("Accepted",
// "Superseded by [ADR-0005](…)", "proposed | accepted"), mapped to the
// decision schema's statuses, with "rejected" kept for the caller.
func adrStatus(s string) (string, bool) {
	w := strings.ToLower(strings.TrimSpace(s))
	w = strings.Trim(w, "*_`[] ")
	for _, st := range []struct{ prefix, status string }{
		{"accepted", "accepted"}, {"approved", "accepted"}, {"decided", "accepted"}, {"adopted", "accepted"},
		{"proposed", "proposed"}, {"draft", "proposed"}, {"open", "proposed"},
		{"deprecated", "deprecated"}, {"superseded", "superseded"}, {"replaced", "superseded"},
		{"rejected", "rejected"}, {"declined", "rejected"},
	} {
		if strings.HasPrefix(w, st.prefix) {
			return st.status, true
		}
	}
	return "", false
}

// adrDate reads a YYYY-MM-DD date at the start of s.
func adrDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 {
		return "", false
	}
	if _, err := time.Parse(time.DateOnly, s[:10]); err != nil {
		return "", false
	}
	return s[:10], true
}

// blockText is the plain text of a block: paragraphs and list items'
// text, one per line.
func blockText(n ast.Node, src []byte) string {
	var parts []string
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c.Kind() {
		case ast.KindParagraph, ast.KindTextBlock:
			parts = append(parts, mdtext.Plain(c, src))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(parts, "\n")
}

// blockLines are the source lines of the paragraphs in n, as written.
func blockLines(n ast.Node, src []byte) []string {
	var out []string
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c.Kind() {
		case ast.KindParagraph, ast.KindTextBlock:
			for i := 0; i < c.Lines().Len(); i++ {
				seg := c.Lines().At(i)
				out = append(out, strings.TrimSpace(string(seg.Value(src))))
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}
