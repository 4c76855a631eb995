package importer

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/internal/mdtext"
	"github.com/contextfs/contextfs/memory"
)

// Item is one memory a source file yields: what Import creates, or
// compares with the memory an earlier import made from the same place.
type Item struct {
	// File is the work-tree-relative path of the source file.
	File string `json:"file"`
	// Anchor names the place in File the item comes from (a heading path
	// and, for a rule in a list, its position), stable while the file's
	// structure is: an edited rule keeps its anchor and so its memory.
	Anchor string         `json:"anchor,omitempty"`
	Type   string         `json:"type"`
	Title  string         `json:"title"`
	Body   string         `json:"body"`
	Paths  []string       `json:"paths,omitempty"`
	Tags   []string       `json:"tags,omitempty"`
	Data   map[string]any `json:"data,omitempty"`
}

// From is the item's data.imported_from: its file and anchor.
func (it Item) From() string {
	if it.Anchor == "" {
		return it.File
	}
	return it.File + "#" + it.Anchor
}

// Kind is the format of a source file, which decides how it is read.
type Kind string

// The kinds of source files.
const (
	Instructions Kind = "instructions" // CLAUDE.md, AGENTS.md, .clinerules, .cursorrules: rules by section and bullet
	CursorRule   Kind = "cursor-rule"  // .cursor/rules/*.mdc: frontmatter, then instructions
	MemoryBank   Kind = "memory-bank"  // Cline's memory-bank/*.md: one file per type
	ADR          Kind = "adr"          // docs/adr/*.md: one decision per file
)

// ParseError is a source file that cannot be read as its kind; nothing
// was imported from any file.
type ParseError struct {
	File string
	Err  error
}

// Error names the file and what is wrong with it.
func (e *ParseError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// Parse reads the source file rel (work-tree-relative, slash-separated)
// of the given kind into items, in file order.
func Parse(kind Kind, rel string, src []byte) ([]Item, error) {
	var (
		items []Item
		err   error
	)
	switch kind {
	case CursorRule:
		items, err = parseCursorRule(src)
	case MemoryBank:
		items, err = parseMemoryBank(rel, src)
	case ADR:
		items, err = parseADR(rel, src)
	default:
		items, err = parseInstructions(src, nil)
	}
	if err != nil {
		return nil, &ParseError{File: rel, Err: err}
	}
	tag := tagOf(kind, rel)
	for i := range items {
		items[i].File = rel
		if tag != "" && !containsFold(items[i].Tags, tag) {
			items[i].Tags = append(items[i].Tags, tag)
		}
		if items[i].Title == "" {
			items[i].Title = titleOf(items[i].Body)
		}
	}
	return items, nil
}

// tagOf is the tag that says which kind of file a memory came from, so
// that `list --tag adr` finds them.
func tagOf(kind Kind, rel string) string {
	switch kind {
	case CursorRule:
		return "cursor-rules"
	case MemoryBank:
		return "memory-bank"
	case ADR:
		return "adr"
	}
	switch strings.ToLower(path.Base(rel)) {
	case "claude.md":
		return "claude-md"
	case "agents.md":
		return "agents-md"
	case ".cursorrules":
		return "cursor-rules"
	}
	if strings.HasPrefix(rel, ".clinerules") {
		return "clinerules"
	}
	return ""
}

// titleOf is the title of a memory without one: the first line of its
// body, as Save would derive it, but from plain text (no list marker or
// emphasis).
func titleOf(body string) string {
	doc, err := mdtext.Parse([]byte(body))
	if err == nil {
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			if t := firstText(n, []byte(body)); t != "" {
				return frontmatter.Cut(t, 120)
			}
		}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(body), "\n")
	return frontmatter.Cut(strings.TrimSpace(line), 120)
}

// firstText is the plain text of the first paragraph or heading in n.
func firstText(n ast.Node, src []byte) string {
	var out string
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c.Kind() {
		case ast.KindParagraph, ast.KindHeading, ast.KindTextBlock:
			out = mdtext.Plain(c, src)
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// splitFront cuts a leading "---" frontmatter block off src. Cursor's .mdc
// frontmatter is not strict YAML (its editor writes globs: **/*.ts, which a
// YAML parser reads as an alias), so a block YAML refuses is read as
// "key: value" lines instead.
func splitFront(src []byte) (front map[string]any, body []byte, err error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return nil, []byte(s), nil
	}
	rest := s[4:]
	end := -1
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		end = 0
	} else if i := strings.Index(rest, "\n---\n"); i >= 0 {
		end = i + 1
	} else if strings.HasSuffix(rest, "\n---") {
		end = len(rest) - 3
	}
	if end < 0 {
		return nil, nil, fmt.Errorf("frontmatter opened with --- but never closed")
	}
	yml := rest[:end]
	body = []byte(strings.TrimPrefix(rest[end:], "---"))
	body = bytes.TrimPrefix(body, []byte("\n"))
	front = map[string]any{}
	if err := yaml.Unmarshal([]byte(yml), &front); err != nil {
		front = map[string]any{}
		for i, line := range strings.Split(yml, "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.HasPrefix(line, " ") {
				return nil, nil, fmt.Errorf("frontmatter line %d: %q is neither YAML nor key: value", i+2, line)
			}
			front[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return front, body, nil
}

// globsOf reads a frontmatter value of globs: a YAML list, or one string
// of comma-separated patterns (as Cursor writes them).
func globsOf(v any) ([]string, error) {
	var raw []string
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		raw = strings.Split(v, ",")
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("globs: %v is not a string", x)
			}
			raw = append(raw, s)
		}
	default:
		return nil, fmt.Errorf("globs must be a list or a comma-separated string, not %T", v)
	}
	var out []string
	for _, g := range raw {
		g = strings.Trim(strings.TrimSpace(g), `"'`)
		if g == "" {
			continue
		}
		if path.IsAbs(g) || g == ".." || strings.HasPrefix(g, "../") {
			return nil, fmt.Errorf("glob %q leads out of the repository", g)
		}
		out = append(out, strings.TrimPrefix(g, "./"))
	}
	return out, nil
}

// boolOf reads a frontmatter boolean that may have been read as a string.
func boolOf(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		b, _ := strconv.ParseBool(strings.Trim(strings.TrimSpace(v), `"'`))
		return b
	}
	return false
}

// parseCursorRule reads a Cursor rule: description, globs and alwaysApply
// in its frontmatter, instructions below. The globs become the paths of
// every memory from the rule, unless alwaysApply says it applies
// everywhere (Cursor ignores globs then too).
func parseCursorRule(src []byte) ([]Item, error) {
	front, body, err := splitFront(src)
	if err != nil {
		return nil, err
	}
	globs, err := globsOf(front["globs"])
	if err != nil {
		return nil, err
	}
	if boolOf(front["alwaysApply"]) {
		globs = nil
	}
	extra := map[string]any{}
	if d, ok := front["description"].(string); ok && strings.TrimSpace(d) != "" {
		extra["context"] = strings.TrimSpace(d)
	}
	return parseInstructions(body, globs, withData(extra))
}

// section is the content under one heading (or before the first).
type section struct {
	path   []string // heading texts from the outermost down
	anchor string   // slug path, unique within the file
	level  int      // the heading's level; 0 before any heading
	blocks []ast.Node
}

// sections splits a document into the content under each heading.
func sections(doc ast.Node, src []byte) []*section {
	var out []*section
	cur := &section{anchor: "top"}
	out = append(out, cur)
	var stack []struct {
		level int
		text  string
	}
	seen := map[string]int{}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			cur.blocks = append(cur.blocks, n)
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, struct {
			level int
			text  string
		}{h.Level, mdtext.Plain(h, src)})
		var texts, slugs []string
		for _, s := range stack {
			texts = append(texts, s.text)
			slugs = append(slugs, cmpSlug(s.text))
		}
		a := strings.Join(slugs, "/")
		if seen[a]++; seen[a] > 1 {
			a += "-" + strconv.Itoa(seen[a])
		}
		cur = &section{path: texts, anchor: a, level: h.Level}
		out = append(out, cur)
	}
	return out
}

func cmpSlug(s string) string {
	if sl := memory.Slug(s); sl != "" {
		return sl
	}
	return "section"
}

// lines is src split into lines, and the line of each byte offset.
type lines struct {
	src    []byte
	starts []int // byte offset of each line's start
}

func newLines(src []byte) *lines {
	l := &lines{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' && i+1 <= len(src) {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// lineOf is the line (0-based) holding byte offset off.
func (l *lines) lineOf(off int) int {
	lo, hi := 0, len(l.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// text is lines [from, to) joined, trailing blank lines dropped.
func (l *lines) text(from, to int) string {
	if to > len(l.starts) {
		to = len(l.starts)
	}
	if from >= to {
		return ""
	}
	end := len(l.src)
	if to < len(l.starts) {
		end = l.starts[to]
	}
	return strings.TrimRight(string(l.src[l.starts[from]:end]), " \t\n")
}

// startLine is the first source line of n: that of its first segment, or
// of its first descendant's. ok is false for a node with no text (a
// thematic break).
func startLine(n ast.Node, l *lines) (int, bool) {
	off := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			off = c.Lines().At(0).Start
			return ast.WalkStop, nil
		}
		if t, ok := c.(*ast.Text); ok {
			off = t.Segment.Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if off < 0 {
		return 0, false
	}
	ln := l.lineOf(off)
	// A fenced code block's lines start after its opening fence.
	if fc, ok := n.(*ast.FencedCodeBlock); ok && fc.Lines().Len() > 0 && ln > 0 {
		ln--
	} else if _, ok := n.(*ast.FencedCodeBlock); ok && fc.Lines().Len() == 0 {
		return 0, false
	}
	return ln, true
}

// blockSpan is where each block of a section starts, and where the
// section ends: the line of the next heading, or the end of the file.
func spans(blocks []ast.Node, end int, l *lines) (starts []int, nodes []ast.Node) {
	for _, b := range blocks {
		if ln, ok := startLine(b, l); ok {
			starts = append(starts, ln)
			nodes = append(nodes, b)
		}
	}
	return append(starts, end), nodes
}

// option adjusts the items parseInstructions makes.
type option func(*Item)

func withData(d map[string]any) option {
	return func(it *Item) {
		if len(d) > 0 {
			it.Data = memory.PatchData(it.Data, d)
		}
	}
}

// leadIn is a paragraph that only introduces the list after it.
func leadIn(n ast.Node, next ast.Node, src []byte) bool {
	p, ok := n.(*ast.Paragraph)
	if !ok || next == nil || next.Kind() != ast.KindList {
		return false
	}
	return strings.HasSuffix(mdtext.Plain(p, src), ":")
}

// boilerplate is the sentence agents' init commands open these files
// with; it says nothing about the project.
var boilerplate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^this file (provides|gives|contains|offers) (guidance|instructions|context)\b`)
})

// parseInstructions reads an instructions file: each section's type from
// its heading (see sectionType); in sections of rules each top-level list
// item is one memory, and the other blocks between lists one more; other
// sections are one memory each. paths, when given, go on every item.
func parseInstructions(src []byte, paths []string, opts ...option) ([]Item, error) {
	front, body, err := splitFront(src)
	if err != nil {
		return nil, err
	}
	if paths == nil && front != nil {
		// Cline's conditional rules name their files in paths:.
		for _, k := range []string{"paths", "globs"} {
			if v, ok := front[k]; ok {
				if paths, err = globsOf(v); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	body = stripBlock(body)
	doc, err := mdtext.Parse(body)
	if err != nil {
		return nil, err
	}
	l := newLines(body)
	secs := sections(doc, body)
	var items []Item
	for si, sec := range secs {
		end := len(l.starts)
		if si+1 < len(secs) {
			// The next section starts at its heading: the line of the
			// heading node, which is not among any section's blocks.
			end = headingLine(doc, si+1, l)
		}
		starts, nodes := spans(sec.blocks, end, l)
		if len(nodes) == 0 {
			continue
		}
		typ, whole := sectionType(sec.path)
		title := ""
		if len(sec.path) > 0 {
			title = sec.path[len(sec.path)-1]
		}
		add := func(anchor, title, text string) {
			text = strings.TrimSpace(text)
			if text == "" {
				return
			}
			it := Item{Anchor: anchor, Type: typ, Title: title, Body: text + "\n", Paths: paths}
			if typ == "decision" {
				it.Data = map[string]any{"status": "accepted"}
			}
			for _, o := range opts {
				o(&it)
			}
			items = append(items, it)
		}
		if whole {
			add(sec.anchor, title, l.text(starts[0], starts[len(starts)-1]))
			continue
		}
		// Rules: one memory per list item, one per run of other blocks.
		rule, run := 0, -1
		var prose []string
		flush := func() {
			if len(prose) > 0 {
				run++
				a := sec.anchor + "/text"
				if run > 0 {
					a += "-" + strconv.Itoa(run+1)
				}
				add(a, "", strings.Join(prose, "\n\n"))
				prose = nil
			}
		}
		for i, n := range nodes {
			var next ast.Node
			if i+1 < len(nodes) {
				next = nodes[i+1]
			}
			if list, ok := n.(*ast.List); ok {
				flush()
				for it := list.FirstChild(); it != nil; it = it.NextSibling() {
					from, ok := startLine(it, l)
					if !ok {
						continue
					}
					to := starts[i+1]
					if nx := it.NextSibling(); nx != nil {
						if ln, ok := startLine(nx, l); ok {
							to = ln
						}
					}
					rule++
					add(sec.anchor+"/"+strconv.Itoa(rule), "", itemText(l.text(from, to), it.(*ast.ListItem)))
				}
				continue
			}
			if leadIn(n, next, body) {
				continue
			}
			text := l.text(starts[i], starts[i+1])
			if p, ok := n.(*ast.Paragraph); ok && boilerplate().MatchString(mdtext.Plain(p, body)) {
				continue
			}
			prose = append(prose, text)
		}
		flush()
	}
	return items, nil
}

// headingLine is the line of the heading that opens the i'th section
// (sections are numbered from 0, the content before any heading).
func headingLine(doc ast.Node, i int, l *lines) int {
	k := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			k++
			if k == i {
				if h.Lines().Len() > 0 {
					ln := l.lineOf(h.Lines().At(0).Start)
					// A setext heading's text is above its underline; an
					// ATX heading is one line.
					return ln
				}
				if ln, ok := startLine(h, l); ok {
					return ln
				}
			}
		}
	}
	return len(l.starts)
}

// itemText is a list item's text without its marker, its continuation
// lines dedented by the marker's width.
func itemText(text string, it *ast.ListItem) string {
	ls := strings.Split(text, "\n")
	first := strings.TrimLeft(ls[0], " \t")
	// The marker: "-", "*", "+", "1." or "1)", then spaces.
	i := 0
	for i < len(first) && (first[i] >= '0' && first[i] <= '9') {
		i++
	}
	if i < len(first) && strings.ContainsRune("-*+.)", rune(first[i])) {
		i++
	}
	first = strings.TrimLeft(first[i:], " \t")
	// A task list's box stays: "[ ] x" says the rule is open work.
	ls[0] = first
	w := it.Offset
	for j := 1; j < len(ls); j++ {
		ind := len(ls[j]) - len(strings.TrimLeft(ls[j], " "))
		ls[j] = ls[j][min(ind, w):]
	}
	return strings.Join(ls, "\n")
}

// Block markers of the section export writes into AGENTS.md and
// CLAUDE.md. An import skips the block: it holds memories already.
const (
	BlockBegin = "<!-- BEGIN contextfs -->"
	BlockEnd   = "<!-- END contextfs -->"
)

// stripBlock removes the exported block, markers included, from src.
func stripBlock(src []byte) []byte {
	b := bytes.Index(src, []byte(BlockBegin))
	if b < 0 {
		return src
	}
	e := bytes.Index(src[b:], []byte(BlockEnd))
	if e < 0 {
		return src
	}
	e += b + len(BlockEnd)
	out := append([]byte{}, src[:b]...)
	return append(out, src[e:]...)
}

// headingTypes maps words of a heading to the type of its section;
// whole says the section is one memory rather than one per rule. The
// first match of the innermost heading wins, then its parents'.
var headingTypes = []struct {
	typ   string
	whole bool
	words []string
}{
	{"decision", false, []string{"decision", "decisions", "adr", "adrs"}},
	{"architecture", true, []string{"architecture", "structure", "layout", "design", "components", "modules", "organization", "organisation", "directories"}},
	{"tech-context", true, []string{"tech", "stack", "technology", "technologies", "dependencies", "tooling", "environment", "prerequisites"}},
	{"procedural", true, []string{"commands", "command", "build", "building", "test", "tests", "testing", "run", "running", "setup", "install", "installation", "deploy", "deployment", "release", "releasing", "workflow", "debugging", "scripts"}},
	{"project-brief", true, []string{"overview", "about", "project", "introduction", "purpose", "goals", "summary", "description"}},
	{"product-context", true, []string{"product", "users", "domain"}},
}

// sectionType is the type of a section with the given heading path, and
// whether the section is one memory. Sections whose headings say nothing
// of the above hold rules: conventions, one learned-pattern each.
func sectionType(path []string) (typ string, whole bool) {
	for i := len(path) - 1; i >= 0; i-- {
		words := strings.FieldsFunc(strings.ToLower(path[i]), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
		if len(words) == 0 {
			continue
		}
		// A heading that names the file's own agent ("CLAUDE.md",
		// "Guidelines for agents") decides nothing.
		for _, h := range headingTypes {
			for _, w := range words {
				for _, hw := range h.words {
					if w == hw {
						return h.typ, h.whole
					}
				}
			}
		}
	}
	return "learned-pattern", false
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
