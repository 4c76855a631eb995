// Package review describes what a change to a repository does to the
// team's knowledge: which memories a branch adds, edits field by field,
// supersedes or deletes, whether the memories it touches are valid, and
// whether they carry secrets. It is what a reviewer reads in a pull
// request instead of a raw YAML diff, and what CI gates on.
//
// Compare is pure: it works on the memory files of two commits, as
// gitstore.Repo.ReadRef returns them, so it can be tested and reused
// without a repository.
package review

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// Kinds of Change, in the order reports list them.
const (
	Added      = "added"
	Changed    = "changed"
	Superseded = "superseded"
	Deleted    = "deleted"
)

var kindOrder = []string{Added, Changed, Superseded, Deleted}

// Change is what happened to one memory between the two sides. Memories
// are matched by ID, not by path, so a renamed file is one change with
// OldPath set rather than a deletion and an addition.
type Change struct {
	Kind  string `json:"kind"` // added | changed | superseded | deleted
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	// Path is where the memory is on the head side (for a deletion: where
	// it was on the base side).
	Path string `json:"path"`
	// OldPath is the base-side path of a memory whose file was renamed.
	OldPath string `json:"old_path,omitempty"`
	// Fields lists what changed, field by field, for a memory present on
	// both sides (changed, and superseded when its file also changed).
	Fields []FieldChange `json:"fields,omitempty"`
	// SupersededBy is the ID of the memory that newly supersedes this one,
	// when one does; a memory that retires itself through data.status has
	// none.
	SupersededBy string `json:"superseded_by,omitempty"`
	// Why says, for a superseded memory, how its successor changes the
	// position it stated (dedup.PositionChange): what a save's newest-wins
	// rule decided, or an evolve, for the reviewer to check.
	Why string `json:"why,omitempty"`
	// Captured says an added memory was captured (memory.Source.Captured):
	// saved at a hook's request, or written by one, not asked for by a
	// person. Reports list these in a group of their own.
	Captured bool `json:"captured,omitempty"`
	// NearDuplicates are, for an added memory, the memories of its type it
	// nearly repeats (see flagNearDuplicates).
	NearDuplicates []NearDuplicate `json:"near_duplicates,omitempty"`
}

// FieldChange is one field of a memory that differs between the sides.
// Scalars carry Old and New; lists (tags, links, supersedes) carry what
// was Added and Removed, because their order rarely matters to a reader;
// the body carries a Summary ("+3 −1 lines") and a unified Diff.
type FieldChange struct {
	// Field is a frontmatter key ("title", "tags"), a data field
	// ("data.status"), or "body". "content" stands for the whole file when
	// one side cannot be parsed.
	Field   string   `json:"field"`
	Old     string   `json:"old,omitempty"`
	New     string   `json:"new,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Diff    string   `json:"diff,omitempty"`
}

// Report is the review of the memory files between two commits.
type Report struct {
	// Base and Head name the two sides as the user gave them; Compare
	// leaves them empty for the caller to fill in.
	Base string `json:"base"`
	Head string `json:"head"`
	// BaseCommit and HeadCommit are the commits compared, when known.
	BaseCommit string `json:"base_commit,omitempty"`
	HeadCommit string `json:"head_commit,omitempty"`
	// MergeBase reports that BaseCommit is the merge base of Base and
	// Head rather than Base itself, which has moved on since Head left it:
	// the report is what Head changed, as git diff Base...Head shows.
	MergeBase bool `json:"merge_base,omitempty"`
	// Changes are sorted by kind (added, changed, superseded, deleted),
	// then type, title and ID.
	Changes []Change `json:"changes"`
	// Problems are the validation problems of the files the head side
	// adds or changes: a change is answerable for what it touches, not for
	// problems it inherited.
	Problems []check.Problem `json:"problems"`
	// Secrets are the suspected secrets in the files the head side adds or
	// changes.
	Secrets []secrets.Finding `json:"secrets"`
	// Relevant are the memories whose paths cover code the range changes
	// (filled by the caller, which knows the code diff).
	Relevant []Relevant `json:"relevant,omitempty"`
	// Diagram is a Mermaid flowchart of the changed memories and their
	// links (see diagram), or "".
	Diagram string `json:"diagram,omitempty"`
}

// Relevant is a memory attached to code that a reviewed range changes.
type Relevant struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	Path  string `json:"path"`
	// MayBeStale says the range changes the code the memory is attached
	// to and leaves the memory as it was: a reviewer should check that it
	// still holds.
	MayBeStale bool `json:"may_be_stale,omitempty"`
}

// Count returns how many changes are of the given kind.
func (r Report) Count(kind string) int {
	n := 0
	for _, c := range r.Changes {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

// Summary is the report in one line, such as
// "3 added, 1 changed, 1 superseded, 1 deleted; 0 problems, 0 secrets".
func (r Report) Summary() string {
	return fmt.Sprintf("%d added, %d changed, %d superseded, %d deleted; %s, %s",
		r.Count(Added), r.Count(Changed), r.Count(Superseded), r.Count(Deleted),
		plural(len(r.Problems), "problem", "problems"), plural(len(r.Secrets), "secret", "secrets"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// side is the parsed memory files of one commit.
type side struct {
	byKey  map[string]*entry
	byPath map[string]*entry
	keys   []string // sorted
}

// entry is one memory file. m and doc are nil when the file cannot be
// parsed; such a file is keyed by its path, so it still takes part in the
// comparison as a file.
type entry struct {
	file gitstore.RefFile
	m    *memory.Memory
	doc  *frontmatter.Document
	key  string
}

// positionChange says how the memory newer changes the position of the
// memory of key older, both on this side (dedup.PositionChange), or "".
func (s side) positionChange(newer, older string) string {
	o := s.byKey[older]
	if o == nil || o.m == nil || newer == "" {
		return ""
	}
	for _, e := range s.byKey {
		if e.m != nil && strings.EqualFold(e.m.ID, newer) {
			_, why := dedup.PositionChange(e.m.Data, o.m.Data)
			return why
		}
	}
	return ""
}

func (e *entry) id() string {
	if e.m == nil {
		return ""
	}
	return e.m.ID
}

func (e *entry) typ() string {
	if e.m == nil {
		return ""
	}
	return e.m.Type
}

// title is the memory's title, or the one its body suggests, as the rest
// of contextfs shows untitled memories.
func (e *entry) title() string {
	if e.m == nil {
		return ""
	}
	if e.m.Title != "" {
		return e.m.Title
	}
	t, _ := frontmatter.Derive([]byte(e.m.Body))
	return t
}

// parseSide parses the files of one commit. When several files share an
// ID (validation reports it), one of them is matched by ID: the file at
// prefer[id] when there is one (the path the ID had on the other side), so
// the original keeps its history and the copy shows as added; otherwise the
// first by path. The others are matched by path, so no file disappears
// from the report. A file that cannot be parsed is matched by the ID the
// other side had at its path, if any.
func parseSide(files []gitstore.RefFile, prefer map[string]string) *side {
	s := &side{byKey: map[string]*entry{}, byPath: map[string]*entry{}}
	sorted := slices.Clone(files)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	var entries []*entry
	owner := map[string]*entry{} // lower-case ID → the entry matched by it
	for _, f := range sorted {
		e := &entry{file: f}
		if m, doc, err := gitstore.Decode(f.Path, f.Content); err == nil {
			e.m, e.doc = m, doc
		}
		entries = append(entries, e)
		id := strings.ToLower(e.id())
		if id == "" {
			continue
		}
		if cur := owner[id]; cur == nil || prefer[id] == f.Path && cur.file.Path != f.Path {
			owner[id] = e
		}
	}
	byPath := map[string]string{} // the other side's path → ID
	for id, p := range prefer {
		byPath[p] = id
	}
	for _, e := range entries {
		e.key = "path:" + e.file.Path
		if id := strings.ToLower(e.id()); id != "" && owner[id] == e {
			e.key = id
		}
		// A file that no longer parses is still the memory that was at its
		// path: an edit that broke it, not a deletion and an addition.
		if id, ok := byPath[e.file.Path]; ok && e.m == nil && owner[id] == nil {
			e.key = id
			owner[id] = e
		}
		s.byKey[e.key] = e
		s.byPath[e.file.Path] = e
		s.keys = append(s.keys, e.key)
	}
	sort.Strings(s.keys)
	return s
}

// paths maps the keys of s that are IDs to their files' paths.
func (s *side) paths() map[string]string {
	out := map[string]string{}
	for k, e := range s.byKey {
		if !strings.HasPrefix(k, "path:") {
			out[k] = e.file.Path
		}
	}
	return out
}

// resolve finds the key of the memory a supersedes entry names: its ID,
// or a unique prefix of one, as IDs are resolved everywhere else.
func (s *side) resolve(ref string) string {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" || strings.HasPrefix(ref, "path:") {
		return ""
	}
	if _, ok := s.byKey[ref]; ok {
		return ref
	}
	found := ""
	for _, k := range s.keys {
		if strings.HasPrefix(k, ref) && !strings.HasPrefix(k, "path:") {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// supersededKeys returns, for every memory of s that is superseded, the
// ID of the memory superseding it ("" when it retires itself through its
// data.status). Supersedes entries are resolved against s first and then
// against other, so a memory that is superseded and deleted in one change
// is still recognised.
func (s *side) supersededKeys(other *side) map[string]string {
	out := map[string]string{}
	for _, k := range s.keys {
		e := s.byKey[k]
		if e.m == nil {
			continue
		}
		for _, ref := range e.m.SupersededIDs() {
			t := s.resolve(ref)
			if t == "" && other != nil {
				t = other.resolve(ref)
			}
			if t == "" || t == k {
				continue
			}
			if prev, ok := out[t]; !ok || prev == "" || e.m.ID < prev {
				out[t] = e.m.ID
			}
		}
		if e.m.Superseded() {
			if _, ok := out[k]; !ok {
				out[k] = ""
			}
		}
	}
	return out
}

// Compare reports what head does to the memories of base. Memories are
// matched by ID; a memory both sides hold is changed when its file's
// content or path differs. A memory is reported as superseded when head
// newly retires it: a memory on the head side lists it in supersedes, or
// its data.status became "superseded". The head-side files that are added
// or changed are validated with check.CheckFiles (IDs checked against
// the rest of head too, so unparseable files and duplicate IDs are
// problems) and scanned for secrets with scanner; a nil scanner scans with
// no exceptions. Compare never fails: whatever it cannot read, it reports.
func Compare(base, head []gitstore.RefFile, scanner *secrets.Scanner) Report {
	if scanner == nil {
		scanner = &secrets.Scanner{}
	}
	b := parseSide(base, nil)
	h := parseSide(head, b.paths())
	r := Report{Changes: []Change{}, Problems: []check.Problem{}, Secrets: []secrets.Finding{}}

	changes := map[string]*Change{} // by key
	for _, k := range h.keys {
		he := h.byKey[k]
		be, ok := b.byKey[k]
		switch {
		case !ok:
			changes[k] = newChange(Added, he)
		case be.file.Path != he.file.Path || !bytes.Equal(be.file.Content, he.file.Content):
			c := newChange(Changed, he)
			if he.m == nil { // say which memory the broken file was
				c.ID, c.Type, c.Title = be.id(), be.typ(), be.title()
			}
			if be.file.Path != he.file.Path {
				c.OldPath = be.file.Path
			}
			c.Fields = diffEntries(be, he)
			changes[k] = c
		}
	}
	for _, k := range b.keys {
		if _, ok := h.byKey[k]; !ok {
			changes[k] = newChange(Deleted, b.byKey[k])
		}
	}

	wasSuperseded := b.supersededKeys(nil)
	for k, by := range h.supersededKeys(b) {
		if _, ok := wasSuperseded[k]; ok {
			continue
		}
		if _, inBase := b.byKey[k]; !inBase {
			if c := changes[k]; c != nil && by != "" {
				c.SupersededBy = by // added and retired in one go
			}
			continue
		}
		c := changes[k]
		if c == nil {
			c = newChange(Superseded, h.byKey[k])
			changes[k] = c
		}
		if c.Kind == Changed {
			c.Kind = Superseded
		}
		c.SupersededBy = by
		c.Why = h.positionChange(by, k)
	}

	for _, c := range changes {
		r.Changes = append(r.Changes, *c)
	}
	flagNearDuplicates(head, r.Changes) // hygiene
	slices.SortFunc(r.Changes, func(x, y Change) int {
		return cmp.Or(
			cmp.Compare(slices.Index(kindOrder, x.Kind), slices.Index(kindOrder, y.Kind)),
			cmp.Compare(x.Type, y.Type),
			cmp.Compare(strings.ToLower(x.Title), strings.ToLower(y.Title)),
			cmp.Compare(x.ID, y.ID),
			cmp.Compare(x.Path, y.Path),
		)
	})

	// Validate and scan what head touches; check IDs against the rest.
	var touched []check.File
	others := map[string]string{}
	for _, f := range head {
		if be := b.byPath[f.Path]; be != nil && bytes.Equal(be.file.Content, f.Content) {
			if e := h.byPath[f.Path]; e != nil && e.id() != "" {
				others[strings.ToLower(e.id())] = f.Path
			}
			continue
		}
		touched = append(touched, check.File{Path: f.Path, Content: f.Content})
	}
	sort.Slice(touched, func(i, j int) bool { return touched[i].Path < touched[j].Path })
	r.Problems = append(r.Problems, check.CheckFiles(touched, others)...)
	for _, f := range touched {
		r.Secrets = append(r.Secrets, check.ScanFile(scanner, f.Path, f.Content)...)
	}
	slices.SortStableFunc(r.Secrets, func(x, y secrets.Finding) int {
		return cmp.Or(cmp.Compare(x.Path, y.Path), cmp.Compare(x.Line, y.Line), cmp.Compare(x.Column, y.Column))
	})
	values := secretValues(touched, r.Secrets)
	redactReport(&r, values)
	r.Diagram = diagram(head, r.Changes, titleMasker(scanner, values)) // hygiene
	if len(values) > 0 {
		r.Diagram = secrets.Masker(values).Replace(r.Diagram)
	}
	return r
}

// titleMasker returns what masks a title before the diagram draws it, and
// cuts it to fit a box: masking the cut title would miss a secret whose
// end the cut took away, and show the rest of it. It masks the values
// found in the files the change touched, and whatever the scanner finds in
// the title itself, for the memories drawn because they are linked.
func titleMasker(scanner *secrets.Scanner, values map[string]string) func(string) string {
	known := secrets.Masker(values)
	return func(title string) string {
		title = known.Replace(title)
		if found := scanner.Scan("", []byte(title)); len(found) > 0 {
			title = secrets.Masker(secrets.Values(nil, []byte(title), found)).Replace(title)
		}
		return title
	}
}

// secretValues maps each suspected secret found in files to its redacted
// form. The report is posted where people read it (a pull request
// comment): a secret must not appear there in full because it was in a
// title or a changed line rather than only in the secrets section.
func secretValues(files []check.File, found []secrets.Finding) map[string]string {
	byPath := map[string][]secrets.Finding{}
	for _, f := range found {
		byPath[f.Path] = append(byPath[f.Path], f)
	}
	values := map[string]string{}
	for _, f := range files {
		if len(byPath[f.Path]) > 0 {
			secrets.Values(values, f.Content, byPath[f.Path])
		}
	}
	return values
}

// redactReport replaces each secret of values in the text the report
// shows of its changes.
func redactReport(r *Report, values map[string]string) {
	if len(values) == 0 {
		return
	}
	red := secrets.Masker(values).Replace
	for i := range r.Changes {
		c := &r.Changes[i]
		c.Title = red(c.Title)
		for j := range c.Fields {
			f := &c.Fields[j]
			f.Old, f.New, f.Summary, f.Diff = red(f.Old), red(f.New), red(f.Summary), red(f.Diff)
			for k := range f.Added {
				f.Added[k] = red(f.Added[k])
			}
			for k := range f.Removed {
				f.Removed[k] = red(f.Removed[k])
			}
		}
		for j := range c.NearDuplicates {
			c.NearDuplicates[j].Title = red(c.NearDuplicates[j].Title)
		}
	}
	for i := range r.Problems {
		r.Problems[i].Message = red(r.Problems[i].Message)
	}
}

func newChange(kind string, e *entry) *Change {
	c := &Change{Kind: kind, ID: e.id(), Type: e.typ(), Title: e.title(), Path: e.file.Path}
	c.Captured = kind == Added && e.m != nil && e.m.Source != nil && e.m.Source.Captured
	return c
}

// diffEntries lists the fields that differ between two versions of a
// memory. The updated timestamp is left out: it changes with every edit
// and tells a reviewer nothing the rest of the list does not.
func diffEntries(old, cur *entry) []FieldChange {
	if old.m == nil || cur.m == nil {
		if bytes.Equal(old.file.Content, cur.file.Content) {
			return nil
		}
		return []FieldChange{bodyChange("content", string(old.file.Content), string(cur.file.Content))}
	}
	o, n := old.m, cur.m
	var out []FieldChange
	scalar := func(field, a, b string) {
		if a != b {
			out = append(out, FieldChange{Field: field, Old: a, New: b})
		}
	}
	list := func(field string, a, b []string) {
		added, removed := setDiff(a, b)
		if len(added) > 0 || len(removed) > 0 {
			out = append(out, FieldChange{Field: field, Added: added, Removed: removed})
		}
	}
	scalar("type", o.Type, n.Type)
	scalar("title", o.Title, n.Title)
	scalar("summary", o.Summary, n.Summary)
	list("tags", o.Tags, n.Tags)
	list("links", linkStrings(o.Links), linkStrings(n.Links))
	list("supersedes", o.Supersedes, n.Supersedes)
	scalar("reason", o.Reason, n.Reason)
	scalar("author", o.Author, n.Author)
	if !o.Created.Equal(n.Created) {
		scalar("created", createdText(o), createdText(n))
	}
	od, nd := memory.NormalizeData(o.Data), memory.NormalizeData(n.Data)
	for _, k := range unionKeys(od, nd) {
		a, inA := od[k]
		b, inB := nd[k]
		if inA == inB && reflect.DeepEqual(a, b) {
			continue
		}
		out = append(out, FieldChange{Field: "data." + k, Old: formatValue(a), New: formatValue(b)})
	}
	for _, k := range extraKeys(old.doc, cur.doc) {
		scalar(k, nodeText(old.doc.Get(k)), nodeText(cur.doc.Get(k)))
	}
	if o.Body != n.Body {
		out = append(out, bodyChange("body", o.Body, n.Body))
	}
	return out
}

func bodyChange(field, a, b string) FieldChange {
	d := lineDiff(a, b)
	return FieldChange{Field: field, Summary: fmt.Sprintf("+%d −%d lines", d.added, d.removed), Diff: d.text}
}

// createdText writes a creation time as memory files do.
func createdText(m *memory.Memory) string {
	if m.Created.IsZero() {
		return ""
	}
	return m.Created.UTC().Format("2006-01-02T15:04:05Z07:00")
}

// setDiff returns the items of b not in a and the items of a not in b, in
// the order they appear.
func setDiff(a, b []string) (added, removed []string) {
	for _, x := range b {
		if !slices.Contains(a, x) && !slices.Contains(added, x) {
			added = append(added, x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(removed, x) {
			removed = append(removed, x)
		}
	}
	return added, removed
}

func unionKeys(a, b map[string]any) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// extraKeys returns the frontmatter keys contextfs does not know that
// either version has, sorted: teams add their own, and a change to them is
// as much a change as any other.
func extraKeys(a, b *frontmatter.Document) []string {
	known := gitstore.KeyOrder()
	var ks []string
	for _, d := range []*frontmatter.Document{a, b} {
		for _, k := range d.Keys() {
			if !slices.Contains(known, k) && !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}

// nodeText renders a YAML value compactly: a scalar as its text, anything
// else as flow-style YAML on one line.
func nodeText(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := *n
	setFlow(&c)
	b, err := yaml.Marshal(&c)
	if err != nil {
		return fmt.Sprint(n.Value)
	}
	return strings.TrimSpace(string(b))
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
}

// formatValue renders a data value: strings as they are, anything else as
// compact JSON, which is unambiguous and what `save --data` takes.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// linkStrings writes links as the CLI reads them ("ID" or "rel:ID"), so a
// change of relation shows as one link removed and one added.
func linkStrings(links []memory.Link) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.String()
	}
	return out
}
