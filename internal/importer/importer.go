// Package importer turns the knowledge a team already keeps for agents —
// CLAUDE.md, AGENTS.md, Cursor rules, .clinerules, Cline's memory bank,
// architecture decision records — into typed memories: one per rule or
// section, each marked with the file and place it came from, so that
// importing again writes nothing, and an edited rule updates its memory
// instead of adding another. The CLI (`git contextfs import`) is a thin
// adapter over Import; docs/AGENTS.md has the mapping of files to types.
package importer

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/memory"
)

// Tool is the source.tool of every imported memory: `list --source
// contextfs-import` lists them, and Import finds its earlier work by it.
const Tool = "contextfs-import"

// Data keys Import writes: where the memory came from, and a hash of what
// it imported from there.
const (
	KeyFrom = "imported_from"
	KeyHash = "import_hash"
)

// Options configure Import.
type Options struct {
	// Paths are work-tree-relative files or folders to import; none means
	// every known source (see Sources).
	Paths []string
	// DryRun plans without writing.
	DryRun bool
}

// Actions of a Step.
const (
	Create    = "create"
	Update    = "update"
	Unchanged = "unchanged"
	Gone      = "gone" // imported earlier from a place no longer in the file: kept
)

// Step is what Import does, or would do, with one memory.
type Step struct {
	Action string   `json:"action"`
	ID     string   `json:"id,omitempty"`
	Type   string   `json:"type"`
	Title  string   `json:"title"`
	From   string   `json:"from"`
	Paths  []string `json:"paths,omitempty"`
}

// Plan is the outcome of Import: the files read, and a step per memory,
// in file order.
type Plan struct {
	Files  []string `json:"files"`
	Steps  []Step   `json:"steps"`
	DryRun bool     `json:"dry_run,omitempty"`
}

// Count is how many steps have the action.
func (p *Plan) Count(action string) int {
	n := 0
	for _, s := range p.Steps {
		if s.Action == action {
			n++
		}
	}
	return n
}

// Sources are the files and folders Import reads when given none, in the
// order it reads them.
var Sources = []string{
	"CLAUDE.md", "AGENTS.md", ".cursorrules", ".clinerules", ".cursor/rules",
	"memory-bank", "docs/adr", "doc/adr", "docs/decisions",
}

// source is one file to read and how.
type source struct {
	rel  string
	kind Kind
}

// Import reads the sources into items, matches them with the memories
// earlier imports made, and creates, updates or leaves each. Every file is
// read and parsed before anything is written: a file that cannot be read
// is an error naming it, and nothing is imported.
func Import(ctx context.Context, s *contextfs.Store, o Options) (*Plan, error) {
	srcs, err := discover(s, o.Paths)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Files: []string{}, Steps: []Step{}, DryRun: o.DryRun}
	var items []Item
	for _, src := range srcs {
		raw, err := s.Repo.ReadFile(src.rel)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", src.rel, err)
		}
		its, err := Parse(src.kind, src.rel, raw)
		if err != nil {
			return nil, err
		}
		for i := range its {
			if err := check(&its[i]); err != nil {
				return nil, &ParseError{File: src.rel, Err: err}
			}
		}
		plan.Files = append(plan.Files, src.rel)
		items = append(items, its...)
	}
	existing, err := imported(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, f := range plan.Files {
		var its []Item
		for _, it := range items {
			if it.File == f {
				its = append(its, it)
			}
		}
		steps, err := apply(ctx, s, its, existing[f], o.DryRun)
		if err != nil {
			return plan, err
		}
		plan.Steps = append(plan.Steps, steps...)
	}
	return plan, nil
}

// check gives an item its canonical type, and its data its hash.
func check(it *Item) error {
	t, err := memory.CanonicalType(it.Type)
	if err != nil {
		return err
	}
	it.Type = t
	it.Title = strings.Join(strings.Fields(it.Title), " ")
	if it.Title == "" {
		return fmt.Errorf("%s: no title", it.From())
	}
	it.Data = memory.PatchData(it.Data, map[string]any{KeyFrom: it.From(), KeyHash: hashOf(*it)})
	return nil
}

// hashOf is the content of an item as a memory would hold it, anchor and
// file left out (a rule moved within its file is the same rule).
func hashOf(it Item) string {
	d := memory.PatchData(it.Data, map[string]any{KeyFrom: nil, KeyHash: nil})
	b, _ := json.Marshal(struct {
		Type, Title, Body string
		Paths, Tags       []string
		Data              map[string]any
	}{it.Type, it.Title, it.Body, it.Paths, it.Tags, d})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// prior is a memory an earlier import made.
type prior struct {
	id, from, hash string
	m              *memory.Memory
}

// imported returns the memories earlier imports made, by source file.
func imported(ctx context.Context, s *contextfs.Store) (map[string][]*prior, error) {
	es, err := s.List(ctx, contextfs.ListOptions{Source: Tool, All: true})
	if err != nil {
		return nil, fmt.Errorf("list imported memories: %w", err)
	}
	out := map[string][]*prior{}
	for _, e := range es {
		m, err := s.Read(e.Path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Path, err)
		}
		from, _ := m.Data[KeyFrom].(string)
		if from == "" {
			continue
		}
		hash, _ := m.Data[KeyHash].(string)
		file, _, _ := strings.Cut(from, "#")
		out[file] = append(out[file], &prior{id: m.ID, from: from, hash: hash, m: m})
	}
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b *prior) int { return cmp.Or(strings.Compare(a.from, b.from), strings.Compare(a.id, b.id)) })
	}
	return out, nil
}

// apply matches a file's items with its earlier memories — first by
// content (a moved rule), then by place (an edited rule) — and writes
// what changed. Earlier memories matched by neither are reported Gone and
// kept: a rule deleted from the file may still be worth knowing, and
// deleting is the person's call.
func apply(ctx context.Context, s *contextfs.Store, items []Item, ps []*prior, dry bool) ([]Step, error) {
	match := make([]*prior, len(items))
	used := map[*prior]bool{}
	for i, it := range items {
		h := it.Data[KeyHash].(string)
		// The same place first, so that duplicates stay put.
		for _, p := range ps {
			if !used[p] && p.hash == h && p.from == it.From() {
				match[i], used[p] = p, true
				break
			}
		}
	}
	for i, it := range items {
		if match[i] != nil {
			continue
		}
		h := it.Data[KeyHash].(string)
		for _, p := range ps {
			if !used[p] && p.hash == h {
				match[i], used[p] = p, true
				break
			}
		}
	}
	// An edited rule: the earlier memory most like it, if alike enough;
	// then one from the same place (a rule rewritten in place).
	for i, it := range items {
		if match[i] != nil {
			continue
		}
		var best *prior
		bestSim := minSimilarity
		for _, p := range ps {
			if sim := similarity(it.Body, p.m.Body); !used[p] && sim >= bestSim {
				best, bestSim = p, sim
			}
		}
		if best != nil {
			match[i], used[best] = best, true
		}
	}
	for i, it := range items {
		if match[i] != nil {
			continue
		}
		for _, p := range ps {
			if !used[p] && p.from == it.From() {
				match[i], used[p] = p, true
				break
			}
		}
	}
	var steps []Step
	for i, it := range items {
		st := Step{Type: it.Type, Title: it.Title, From: it.From(), Paths: it.Paths}
		p := match[i]
		switch {
		case p == nil:
			st.Action = Create
			if !dry {
				res, err := s.Save(ctx, contextfs.SaveRequest{Type: it.Type, Title: it.Title, Body: it.Body, Tags: it.Tags,
					Paths: it.Paths, Data: it.Data, Source: &memory.Source{Tool: Tool}})
				if err != nil {
					return steps, fmt.Errorf("import %s: %w", it.From(), err)
				}
				st.ID = res.Memory.ID
			}
		case p.hash == it.Data[KeyHash]:
			// Moved within the file, or not at all: the memory is as the
			// file has it, and rewriting its anchor would only add a
			// change to review.
			st.Action, st.ID = Unchanged, p.id
		default:
			st.Action, st.ID = Update, p.id
			if !dry {
				if _, err := s.Update(ctx, p.id, func(m *memory.Memory) error {
					m.Type, m.Title, m.Body, m.Paths = it.Type, it.Title, it.Body, it.Paths
					for _, t := range it.Tags {
						if !m.HasTag(t) {
							m.Tags = append(m.Tags, t)
						}
					}
					// The data the file gives replaces the old; keys added
					// by hand stay.
					m.Data = memory.PatchData(m.Data, it.Data)
					return nil
				}); err != nil {
					return steps, fmt.Errorf("import %s: update %s: %w", it.From(), p.id, err)
				}
			}
		}
		steps = append(steps, st)
	}
	for _, p := range ps {
		if !used[p] {
			steps = append(steps, Step{Action: Gone, ID: p.id, Type: p.m.Type, Title: p.m.Title, From: p.from, Paths: p.m.Paths})
		}
	}
	return steps, nil
}

// discover lists the files to import: those under each path, or the
// known sources when none is given. A path the caller names must exist
// and lie inside the work tree; a known source that is absent is skipped.
func discover(s *contextfs.Store, paths []string) ([]source, error) {
	named := len(paths) > 0
	if !named {
		paths = Sources
	}
	var out []source
	seen := map[string]bool{}
	for _, p := range paths {
		rel := path.Clean(filepath.ToSlash(p))
		if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return nil, fmt.Errorf("%s: not inside the repository", p)
		}
		if err := s.Repo.NoSymlink(rel); err != nil {
			return nil, err
		}
		fi, err := os.Lstat(s.Repo.Abs(rel))
		if errors.Is(err, fs.ErrNotExist) && !named {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		var files []string
		if fi.IsDir() {
			err := filepath.WalkDir(s.Repo.Abs(rel), func(abs string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() && !d.IsDir() {
					return nil // links are not followed: see Repo.ReadFile
				}
				if d.IsDir() {
					if abs != s.Repo.Abs(rel) && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
						return filepath.SkipDir
					}
					return nil
				}
				files = append(files, s.Repo.Rel(abs))
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("import %s: %w", p, err)
			}
		} else if fi.Mode().IsRegular() {
			files = []string{rel}
		} else {
			return nil, fmt.Errorf("%s: not a regular file or folder", p)
		}
		slices.Sort(files)
		for _, f := range files {
			kind, ok := kindOf(f, named && !fi.IsDir())
			if !ok || seen[f] {
				continue
			}
			seen[f] = true
			out = append(out, source{rel: f, kind: kind})
		}
	}
	return out, nil
}

// kindOf is how the file rel is read, and whether it is imported at all.
// Files that export writes (.cursor/rules/contextfs*.mdc) are not: they
// hold memories already. Templates and indexes of ADR folders are not
// decisions. A file named on the command line is read as instructions
// when nothing else fits.
func kindOf(rel string, named bool) (Kind, bool) {
	base := strings.ToLower(path.Base(rel))
	dir := strings.ToLower(path.Dir(rel))
	ext := path.Ext(base)
	switch {
	case ext == ".mdc":
		if strings.HasPrefix(base, "contextfs") {
			return "", false
		}
		return CursorRule, true
	case path.Base(dir) == "memory-bank" && ext == ".md":
		return MemoryBank, true
	case isADRDir(dir) && ext == ".md":
		if adrSkip(base) {
			return "", false
		}
		return ADR, true
	case strings.HasPrefix(rel, ".clinerules/") && (ext == ".md" || ext == ".txt" || ext == ""):
		return Instructions, true
	case base == "claude.md" || base == "agents.md" || base == ".cursorrules" || base == ".clinerules":
		return Instructions, true
	case named && (ext == ".md" || ext == ".txt" || ext == ""):
		return Instructions, true
	}
	return "", false
}

func isADRDir(dir string) bool {
	for _, part := range strings.Split(dir, "/") {
		if part == "adr" || part == "adrs" || part == "decisions" {
			return true
		}
	}
	return false
}

func adrSkip(base string) bool {
	return base == "readme.md" || base == "index.md" || strings.Contains(base, "template")
}

// minSimilarity is how alike (see similarity) an edited rule and an
// earlier memory must be to be taken for the same rule.
const minSimilarity = 0.5

// similarity is the Jaccard index of the words of a and b.
func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	both := 0
	for w := range wa {
		if wb[w] {
			both++
		}
	}
	return float64(both) / float64(len(wa)+len(wb)-both)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = true
	}
	return out
}
