// Package exporter writes what the memories say about a project where
// agents that do not speak MCP look: a marked block of AGENTS.md or
// CLAUDE.md, or Cursor rule files. It writes the project brief, the
// architecture, the conventions (learned patterns), the team's
// preferences and the accepted decisions, in a fixed order, within a
// token budget; the text outside the block is kept byte for byte, and a
// second export with the same memories changes no byte. The CLI
// (`git contextfs export`) is a thin adapter over Export.
package exporter

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/importer"
	"github.com/contextfs/contextfs/memory"
)

// Targets of an export.
const (
	AgentsMD    = "agents-md"
	ClaudeMD    = "claude-md"
	CursorRules = "cursor-rules"
)

// Targets lists the targets, for help and completion.
var Targets = []string{AgentsMD, ClaudeMD, CursorRules}

// DefaultBudget is the budget, in estimated tokens
// (contextblock.EstimateTokens), when none is given: what an agent reads
// on every prompt should stay small.
const DefaultBudget = 1500

// Options configure Export.
type Options struct {
	Target string
	// Budget bounds everything written, in estimated tokens; 0 means
	// DefaultBudget.
	Budget int
	DryRun bool
}

// File is one file Export writes, or would.
type File struct {
	Path   string `json:"path"`
	Action string `json:"action"` // create, update, unchanged, remove
	// Content is the file's new content (dry runs only).
	Content string `json:"content,omitempty"`
}

// Result is what Export did.
type Result struct {
	Target  string `json:"target"`
	Files   []File `json:"files"`
	Items   int    `json:"items"`
	Omitted int    `json:"omitted,omitempty"`
	Tokens  int    `json:"tokens"`
	Budget  int    `json:"budget"`
	DryRun  bool   `json:"dry_run,omitempty"`
}

// MarkerError is a target file whose block markers are not one BEGIN
// line followed by one END line; nothing was written.
type MarkerError struct {
	Path, Problem string
}

// Error names the file and what is wrong with its markers.
func (e *MarkerError) Error() string {
	return fmt.Sprintf("%s: %s; fix the %q and %q lines by hand, then export again", e.Path, e.Problem, importer.BlockBegin, importer.BlockEnd)
}

// group is one heading of the export and the types it shows.
type group struct {
	title string
	types []string
	body  bool // items show their bodies, not a line each
}

// groups are the export's headings, in order.
var groups = []group{
	{"Project brief", []string{"project-brief"}, true},
	{"Architecture", []string{"architecture"}, true},
	{"Conventions", []string{"learned-pattern"}, false},
	{"Preferences", []string{"user"}, false},
	{"Key decisions", []string{"decision"}, false},
}

// trimOrder is the order in which groups give items up to meet the
// budget, from their ends: decisions first, the brief last.
var trimOrder = []int{4, 3, 1, 2, 0}

// item is one memory as exported.
type item struct {
	m     *memory.Memory
	group int
	text  string
}

// maxBody caps one body, in bytes, before the budget is applied, so that
// one long memory cannot take the whole budget.
const maxBody = 1200

// Export renders the memories of s for o.Target and writes the file(s).
func Export(ctx context.Context, s *contextfs.Store, o Options) (*Result, error) {
	if !slices.Contains(Targets, o.Target) {
		return nil, fmt.Errorf("unknown export target %q; valid targets are %s", o.Target, strings.Join(Targets, ", "))
	}
	if o.Budget < 0 {
		return nil, fmt.Errorf("budget must be positive, not %d", o.Budget)
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	var target string
	switch o.Target {
	case AgentsMD:
		target = "AGENTS.md"
	case ClaudeMD:
		target = "CLAUDE.md"
	}
	items, err := collect(ctx, s, target)
	if err != nil {
		return nil, err
	}
	res := &Result{Target: o.Target, Files: []File{}, Budget: o.Budget, DryRun: o.DryRun}
	var want map[string][]byte
	if o.Target == CursorRules {
		want, err = cursorFiles(s, items, o.Budget, res)
	} else {
		want, err = blockFile(s, target, items, o.Budget, res)
	}
	if err != nil {
		return nil, err
	}
	return res, write(s, want, o.DryRun, res)
}

// collect reads the memories to export, in export order: by group; those
// saved by hand first, oldest first, then imported ones in the order of
// their files and places in them (not their times, which an import that
// crosses a second would shuffle); then by ID. Decisions are those accepted or without a status. Memories
// imported from the target file itself are left out: the file says that
// already, outside the block.
func collect(ctx context.Context, s *contextfs.Store, target string) ([]item, error) {
	var out []item
	for gi, g := range groups {
		o := contextfs.ListOptions{Types: g.types}
		if g.title == "Key decisions" {
			o.Status = []string{"accepted", ""}
		}
		es, err := s.List(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("export: list %s: %w", strings.Join(g.types, ", "), err)
		}
		var ms []*memory.Memory
		for _, e := range es {
			m, err := s.Read(e.Path)
			if err != nil {
				return nil, fmt.Errorf("export: read %s: %w", e.Path, err)
			}
			if from, _ := m.Data[importer.KeyFrom].(string); target != "" && (from == target || strings.HasPrefix(from, target+"#")) {
				continue
			}
			ms = append(ms, m)
		}
		slices.SortFunc(ms, func(a, b *memory.Memory) int {
			return cmp.Or(strings.Compare(fromOf(a), fromOf(b)), a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
		})
		for _, m := range ms {
			out = append(out, item{m: m, group: gi, text: render(m, g)})
		}
	}
	return out, nil
}

// fromOf is where an imported memory came from, compared as a file, then
// a heading path, then the rule's place by number.
func fromOf(m *memory.Memory) string {
	from, _ := m.Data[importer.KeyFrom].(string)
	// Zero-pad the numbers so that rule 10 follows rule 9.
	var b strings.Builder
	for i := 0; i < len(from); {
		j := i
		for j < len(from) && from[j] >= '0' && from[j] <= '9' {
			j++
		}
		if j > i {
			fmt.Fprintf(&b, "%08s", from[i:j])
			i = j
			continue
		}
		b.WriteByte(from[i])
		i++
	}
	return b.String()
}

// render is one memory as the export shows it.
func render(m *memory.Memory, g group) string {
	var b strings.Builder
	if g.body {
		body := strings.TrimSpace(m.Body)
		if len(body) > maxBody {
			body = strings.TrimSpace(cutBytes(body, maxBody)) + " …"
		}
		if body == "" {
			body = oneLine(m.Summary)
		}
		b.WriteString(neutralize(body))
		b.WriteString("\n")
		return b.String()
	}
	line := oneLine(m.Title)
	// A rule's body is the rule: shown whole when it is short. A
	// decision is named by its title.
	if body := oneLine(m.Body); body != "" && len(body) <= 300 && g.title != "Key decisions" {
		line = body
	}
	// A rule of several lines (a continuation, a nested list) keeps
	// them, indented under its bullet.
	if body := strings.TrimSpace(m.Body); g.title != "Key decisions" && len(body) <= 300 && strings.Contains(body, "\n") && len(oneLine(body)) <= 300 {
		ls := strings.Split(body, "\n")
		for i := range ls {
			ls[i] = strings.TrimRight(ls[i], " \t")
		}
		line = strings.Join(ls, "\n  ")
	}
	b.WriteString("- " + neutralize(line))
	if g.title == "Key decisions" {
		if d, _ := m.Data["decision"].(string); d != "" && oneLine(d) != line {
			b.WriteString(" — " + neutralize(oneLine(d)))
		}
		if d, _ := m.Data["date"].(string); d != "" {
			b.WriteString(" (" + neutralize(oneLine(d)) + ")")
		}
	}
	if len(m.Paths) > 0 {
		b.WriteString(" (applies to ")
		for i, p := range m.Paths {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + strings.ReplaceAll(p, "`", "'") + "`")
		}
		b.WriteString(")")
	}
	b.WriteString("\n")
	return b.String()
}

// oneLine folds white space, line breaks included.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cutBytes cuts s to at most n bytes, at a rune boundary.
func cutBytes(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// neutralize keeps a memory's text from closing the block or opening a
// comment that hides what follows: "<!--" is written "&lt;!--".
func neutralize(s string) string { return strings.ReplaceAll(s, "<!--", "&lt;!--") }

// header opens the block's content.
const header = "<!-- Written by `git contextfs export %s` from the memories in .contextfs/; edit those, not this block. -->\n"

// compose lays out items under their group headings at heading level
// depth, dropping items from the ends of groups in trimOrder until the
// text, with fixed (the text around it), fits the budget.
func compose(items []item, depth int, fixed string, budget int) (text string, kept []item, omitted int) {
	kept = slices.Clone(items)
	for {
		text = layout(kept, depth, len(items)-len(kept))
		if contextblock.EstimateTokens(fixed+text) <= budget || len(kept) == 0 {
			return text, kept, len(items) - len(kept)
		}
		for _, gi := range trimOrder {
			last := -1
			for i, it := range kept {
				if it.group == gi {
					last = i
				}
			}
			if last >= 0 {
				kept = slices.Delete(kept, last, last+1)
				break
			}
		}
	}
}

// layout is the text of items under their headings.
func layout(items []item, depth int, omitted int) string {
	var b strings.Builder
	h := strings.Repeat("#", depth)
	prev := -1
	for _, it := range items {
		if it.group != prev {
			if prev >= 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s %s\n\n", h, groups[it.group].title)
			prev = it.group
		} else if groups[it.group].body {
			b.WriteString("\n")
		}
		if groups[it.group].body {
			fmt.Fprintf(&b, "%s# %s\n\n", h, neutralize(oneLine(it.m.Title)))
		}
		b.WriteString(it.text)
	}
	if omitted > 0 {
		if len(items) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d more memories were left out to fit the budget: `git contextfs context` and `git contextfs search` have them.\n", omitted)
	}
	return b.String()
}

// blockFile is target with its block holding the items.
func blockFile(s *contextfs.Store, target string, items []item, budget int, res *Result) (map[string][]byte, error) {
	old, err := readTarget(s, target)
	if err != nil {
		return nil, err
	}
	head := importer.BlockBegin + "\n" + fmt.Sprintf(header, res.Target) + "\n## Project context (from contextfs)\n\n"
	tail := importer.BlockEnd + "\n"
	if frame := contextblock.EstimateTokens(head + tail + layout(nil, 3, len(items))); budget < frame {
		return nil, fmt.Errorf("a budget of %d tokens is less than the %d the block needs without any memory", budget, frame)
	}
	body, kept, omitted := compose(items, 3, head+tail, budget)
	if len(kept) == 0 && omitted == 0 {
		body = "No memories to export yet.\n"
	}
	block := head + body + "\n" + tail
	res.Items, res.Omitted, res.Tokens = len(kept), omitted, contextblock.EstimateTokens(block)
	out, err := splice(target, old, block)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{target: out}, nil
}

// splice puts block in place of the marked block of old, or appends it
// after a blank line. A file with CRLF line ends gets its block with CRLF.
func splice(target string, old []byte, block string) ([]byte, error) {
	if bytes.Contains(old, []byte("\r\n")) {
		block = strings.ReplaceAll(block, "\n", "\r\n")
	}
	begin, end := bytes.Count(old, []byte(importer.BlockBegin)), bytes.Count(old, []byte(importer.BlockEnd))
	switch {
	case begin == 0 && end == 0:
		var b bytes.Buffer
		b.Write(old)
		if len(old) > 0 {
			nl := "\n"
			if bytes.Contains(old, []byte("\r\n")) {
				nl = "\r\n"
			}
			if !bytes.HasSuffix(old, []byte("\n")) {
				b.WriteString(nl)
			}
			b.WriteString(nl)
		}
		b.WriteString(block)
		return b.Bytes(), nil
	case begin != 1 || end != 1:
		return nil, &MarkerError{Path: target, Problem: fmt.Sprintf("%d BEGIN and %d END markers, want one of each", begin, end)}
	}
	i := bytes.Index(old, []byte(importer.BlockBegin))
	j := bytes.Index(old, []byte(importer.BlockEnd))
	if j < i {
		return nil, &MarkerError{Path: target, Problem: "the END marker comes before the BEGIN marker"}
	}
	j += len(importer.BlockEnd)
	// The block's last line ends with the END marker's line break.
	if bytes.HasPrefix(old[j:], []byte("\r\n")) {
		j += 2
	} else if bytes.HasPrefix(old[j:], []byte("\n")) {
		j++
	} else {
		block = strings.TrimRight(block, "\r\n") // the file went on (or ended) right after the marker
	}
	var b bytes.Buffer
	b.Write(old[:i])
	b.WriteString(block)
	b.Write(old[j:])
	return b.Bytes(), nil
}

// readTarget reads a file export writes: nil when it does not exist. A
// link (the file, or a folder on the way) is refused: the file is the
// repository's, and a link in it could lead anywhere.
func readTarget(s *contextfs.Store, rel string) ([]byte, error) {
	if err := s.Repo.NoSymlink(rel); err != nil {
		return nil, err
	}
	b, err := s.Repo.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return b, nil
}

// rulesDir is where Cursor reads project rules.
const rulesDir = ".cursor/rules"

// cursorFiles are the Cursor rule files of the items: contextfs.mdc,
// always applied, for memories without paths, and one
// contextfs-<name>.mdc per set of paths, attached by those globs.
func cursorFiles(s *contextfs.Store, items []item, budget int, res *Result) (map[string][]byte, error) {
	// The budget bounds the files together: compose trims over all the
	// items, and again with less room while the files' frontmatter
	// makes them exceed it.
	if _, frame := cursorLayout(nil, len(items)); budget < frame {
		return nil, fmt.Errorf("a budget of %d tokens is less than the %d the rule file needs without any memory", budget, frame)
	}
	var out map[string][]byte
	for room := budget; ; {
		_, kept, omitted := compose(items, 2, "", room)
		out, res.Tokens = cursorLayout(kept, omitted)
		res.Items, res.Omitted = len(kept), omitted
		if res.Tokens <= budget || len(kept) == 0 {
			break
		}
		room -= res.Tokens - budget
	}
	if err := s.Repo.NoSymlink(rulesDir); err != nil {
		return nil, err
	}
	// Files an earlier export wrote that no set of paths needs now go.
	ents, err := os.ReadDir(s.Repo.Abs(rulesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("export: %w", err)
	}
	for _, e := range ents {
		rel := path.Join(rulesDir, e.Name())
		if !strings.HasPrefix(e.Name(), "contextfs") || !strings.HasSuffix(e.Name(), ".mdc") {
			continue
		}
		old, err := readTarget(s, rel)
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(old, []byte("git contextfs export "+CursorRules)) {
			return nil, fmt.Errorf("export: %s was not written by export; rename it or delete it, then export again", rel)
		}
		if _, ok := out[rel]; !ok {
			out[rel] = nil // remove
		}
	}
	return out, nil
}

// write writes each file whose content changed, atomically; a nil
// content removes the file. Files are reported in path order.
func write(s *contextfs.Store, want map[string][]byte, dry bool, res *Result) error {
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, rel := range paths {
		data := want[rel]
		old, err := readTarget(s, rel)
		if err != nil {
			return err
		}
		f := File{Path: rel}
		switch {
		case data == nil:
			f.Action = "remove"
		case old == nil:
			f.Action = "create"
		case bytes.Equal(old, data):
			f.Action = "unchanged"
		default:
			f.Action = "update"
		}
		if dry {
			f.Content = string(data)
		}
		res.Files = append(res.Files, f)
		if dry || f.Action == "unchanged" {
			continue
		}
		abs := s.Repo.Abs(rel)
		if data == nil {
			if err := os.Remove(abs); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		perm := os.FileMode(0o644)
		if fi, err := os.Stat(abs); err == nil {
			perm = fi.Mode().Perm()
		}
		if err := gitstore.WriteFileAtomic(abs, data, perm); err != nil {
			return fmt.Errorf("export %s: %w", rel, err)
		}
	}
	return nil
}

// cursorLayout is the rule files of the kept items, and their size in
// estimated tokens.
func cursorLayout(kept []item, omitted int) (map[string][]byte, int) {
	byGlobs := map[string][]item{}
	for _, it := range kept {
		k := strings.Join(it.m.Paths, ",")
		byGlobs[k] = append(byGlobs[k], it)
	}
	keys := make([]string, 0, len(byGlobs))
	for k := range byGlobs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := map[string][]byte{}
	tokens := 0
	for _, k := range keys {
		name := "contextfs.mdc"
		front := alwaysFront
		if k != "" {
			sum := sha256.Sum256([]byte(k))
			slug := memory.Slug(strings.NewReplacer("*", " ", "/", " ", ".", " ").Replace(k))
			if len(slug) > 40 {
				slug = strings.Trim(slug[:40], "-")
			}
			name = "contextfs-" + cmp.Or(slug, "paths") + "-" + hex.EncodeToString(sum[:3]) + ".mdc"
			front = "---\ndescription: contextfs memories about " + strings.ReplaceAll(k, ",", ", ") + "\nglobs: " + k + "\nalwaysApply: false\n---\n"
		}
		omittedHere := 0
		if k == "" {
			omittedHere = omitted
		}
		text := front + fmt.Sprintf(header, CursorRules) + "\n" + layout(byGlobs[k], 2, omittedHere)
		out[path.Join(rulesDir, name)] = []byte(text)
		tokens += contextblock.EstimateTokens(text)
	}
	if len(out) == 0 {
		text := alwaysFront + fmt.Sprintf(header, CursorRules) + "\n" + layout(nil, 2, omitted)
		if omitted == 0 {
			text += "No memories to export yet.\n"
		}
		out[path.Join(rulesDir, "contextfs.mdc")] = []byte(text)
		tokens += contextblock.EstimateTokens(text)
	}
	return out, tokens
}

// alwaysFront is the frontmatter of the rule file of memories without
// paths: Cursor applies it to every request.
const alwaysFront = "---\ndescription: Project context from contextfs memories\nglobs:\nalwaysApply: true\n---\n"
