// Package memmerge merges three versions of a memory file (the common
// ancestor and two branches) field by field, so that two people who change
// different parts of the same memory, or add different tags to it, get a
// clean merge where a line-based merge would stop with a conflict. It backs
// the git merge driver that `git contextfs init` registers.
//
// Lists (tags, links, supersedes, paths) merge as sets; created and updated take
// the earliest and the latest time; every other field, each field of data
// and every unknown key takes the side that changed it; the body merges
// line by line with git merge-file. What cannot be merged is written with
// standard conflict markers, so the file is no longer valid YAML and
// `git contextfs validate` and the pre-commit hook refuse it until a person
// resolves it.
package memmerge

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// Result is the outcome of a merge.
type Result struct {
	// Content is the merged file. When Conflicts is not empty it holds
	// conflict markers (<<<<<<< ours, =======, >>>>>>> theirs) around each
	// conflicting frontmatter field and body region.
	Content []byte
	// Conflicts describes each conflict for a person, such as
	// "title: both sides changed it" or "body: lines 12-15"; it is empty
	// when the merge is clean.
	Conflicts []string
}

// Merge merges ours and theirs, two versions of a memory file, with base,
// their common ancestor. An empty base means both sides added the file.
// When any version is not a memory, the whole file is merged as text, as
// git would. The result keeps ours' formatting, comments and key order:
// lines that the merge did not change are byte for byte ours'.
//
// An error means nothing could be merged (git merge-file failed); the
// caller should keep ours.
func Merge(base, ours, theirs []byte) (Result, error) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return Result{Content: ours}, nil
	case bytes.Equal(base, ours):
		return Result{Content: theirs}, nil
	}
	b, errB := decodeBase(base)
	o, errO := decode("ours", ours)
	t, errT := decode("theirs", theirs)
	if err := errors.Join(errO, errT, errB); err != nil {
		return mergeFile(base, ours, theirs, strings.ReplaceAll(err.Error(), "\n", "; "), false)
	}
	res, err := mergeMemories(b, o, t)
	if err != nil {
		// A field-wise merge that cannot be written (say, a YAML alias
		// whose anchor stayed on the other side) still merges as text.
		return mergeFile(base, ours, theirs, err.Error(), true)
	}
	return res, nil
}

// version is one parsed version of the file.
type version struct {
	m   *memory.Memory
	doc *frontmatter.Document
}

func decode(name string, raw []byte) (*version, error) {
	m, doc, err := gitstore.Decode(name, raw)
	if err != nil {
		return nil, err
	}
	return &version{m, doc}, nil
}

// decodeBase decodes the common ancestor; an empty one (the file was added
// on both sides) is an empty memory, so every field either side set counts
// as a change.
func decodeBase(raw []byte) (*version, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &version{&memory.Memory{}, frontmatter.New(nil)}, nil
	}
	return decode("base", raw)
}

// mergeFile merges the whole file as text. why says why, for the conflict
// descriptions. With mustDecode set, all three versions were memories, so
// a clean result that is not one is reported as a conflict rather than
// committed.
func mergeFile(base, ours, theirs []byte, why string, mustDecode bool) (Result, error) {
	out, n, err := merge3(base, ours, theirs)
	if err != nil {
		return Result{}, err
	}
	res := Result{Content: out}
	switch {
	case n > 0:
		res.Conflicts = describeRegions("file", "merged as text: "+why, conflictRegions(out, 1))
	case mustDecode:
		if _, _, err := gitstore.Decode("", out); err != nil {
			res.Conflicts = []string{"file: merged as text (" + why + "), but the result is not a valid memory: " + err.Error()}
		}
	}
	return res, nil
}

// conflict is a frontmatter field that both sides changed differently.
type conflict struct {
	key string // top-level key
	sub string // field of data when key is "data"
	why string
	// The field's key and value nodes on each side, nil when absent.
	oursKey, oursVal, theirsKey, theirsVal *yaml.Node
}

func (c *conflict) name() string {
	if c.sub != "" {
		return c.key + "." + c.sub
	}
	return c.key
}

// why describes a conflict from which sides have the field at all.
func why(inBase, inOurs, inTheirs bool) string {
	switch {
	case inOurs && inTheirs && inBase:
		return "both sides changed it"
	case inOurs && inTheirs:
		return "both sides added it with different values"
	case inOurs:
		return "ours changed it, theirs removed it"
	default:
		return "theirs changed it, ours removed it"
	}
}

// mergeMemories merges three parsed versions into ours' document.
func mergeMemories(b, o, t *version) (Result, error) {
	doc := o.doc // edited in place: it keeps ours' comments and order
	var cs []conflict
	// How ours wrote each key, before the merge edits it: a key that only
	// theirs rewrote (a comment, quoting) takes theirs' text at the end.
	oursFront := snapshot(o.doc.Front)
	oursData := snapshot(o.doc.Get("data"))

	// Single-value known fields are merged on their decoded values, so
	// that a change of quoting or style alone is not a change. The type is
	// compared in its canonical form (an alias is the same type).
	fields := []struct {
		key string
		get func(*memory.Memory) *string
	}{
		{"id", func(m *memory.Memory) *string { return &m.ID }},
		{"type", func(m *memory.Memory) *string { return &m.Type }},
		{"title", func(m *memory.Memory) *string { return &m.Title }},
		{"summary", func(m *memory.Memory) *string { return &m.Summary }},
		{"author", func(m *memory.Memory) *string { return &m.Author }},
	}
	strs := make([]string, len(fields))
	for i, f := range fields {
		bv, ov, tv := *f.get(b.m), *f.get(o.m), *f.get(t.m)
		v, clean := pick3(bv, ov, tv, func(a, b string) bool { return a == b })
		if !clean {
			oursKey, oursVal := pair(o.doc.Front, f.key)
			theirsKey, theirsVal := pair(t.doc.Front, f.key)
			cs = append(cs, conflict{key: f.key, why: why(bv != "", ov != "", tv != ""),
				oursKey: oursKey, oursVal: oursVal, theirsKey: theirsKey, theirsVal: theirsVal})
		}
		strs[i] = v
	}
	// The type is written as the winning side spelled it.
	if strs[1] == o.m.Type {
		strs[1] = rawType(o)
	} else {
		strs[1] = rawType(t)
	}

	// Unknown keys and the fields of data are merged as YAML nodes, in
	// place, so that what neither side changed keeps ours' bytes.
	for _, key := range union(keys(o.doc.Front), keys(t.doc.Front)) {
		// source and session are set once, when a memory is saved, and
		// merge as nodes like unknown keys.
		if slices.Contains(gitstore.KeyOrder(), key) && key != "source" && key != "session" {
			continue
		}
		_, bv := pair(b.doc.Front, key)
		oursKey, ov := pair(o.doc.Front, key)
		theirsKey, tv := pair(t.doc.Front, key)
		v, clean := pick3(bv, ov, tv, sameNode)
		switch {
		case !clean:
			cs = append(cs, conflict{key: key, why: why(bv != nil, ov != nil, tv != nil),
				oursKey: oursKey, oursVal: ov, theirsKey: theirsKey, theirsVal: tv})
		case v == ov:
		case v == nil:
			doc.Delete(key)
		default:
			doc.Set(key, clone(v))
		}
	}
	dcs, err := mergeData(doc, b, o, t)
	if err != nil {
		return Result{}, err
	}
	cs = append(cs, dcs...)

	// Re-read the edited document: its data is now the merged data, and
	// Encode compares against it to leave unchanged keys alone.
	raw, err := doc.Format()
	if err != nil {
		return Result{}, err
	}
	m, _, err := gitstore.Decode("merged", raw)
	if err != nil {
		return Result{}, err
	}
	m.ID, m.Type, m.Title, m.Summary, m.Author = strs[0], strs[1], strs[2], strs[3], strs[4]
	m.Tags = mergeSet(b.m.Tags, o.m.Tags, t.m.Tags)
	m.Links = mergeSet(b.m.Links, o.m.Links, t.m.Links)
	m.Supersedes = mergeSet(b.m.Supersedes, o.m.Supersedes, t.m.Supersedes)
	m.Paths = mergeSet(b.m.Paths, o.m.Paths, t.m.Paths)
	m.Created = earliest(o.m.Created, t.m.Created)
	m.Updated = latest(o.m.Updated, t.m.Updated)

	body, n, err := merge3([]byte(b.m.Body), []byte(o.m.Body), []byte(t.m.Body))
	if err != nil {
		return Result{}, fmt.Errorf("body: %w", err)
	}
	m.Body = string(body)
	if _, err := gitstore.Encode(m, doc, false); err != nil {
		return Result{}, err
	}
	adoptTheirs(doc.Front, b.doc.Front, t.doc.Front, oursFront)
	adoptTheirs(doc.Get("data"), b.doc.Get("data"), t.doc.Get("data"), oursData)
	out, err := doc.Format()
	if err != nil {
		return Result{}, err
	}
	if len(cs) > 0 {
		if out, err = markConflicts(out, cs); err != nil {
			return Result{}, err
		}
	}
	if !bytes.HasSuffix(out, body) {
		return Result{}, errors.New("merged body was not written unchanged")
	}

	var res Result
	for _, c := range cs {
		res.Conflicts = append(res.Conflicts, c.name()+": "+c.why)
	}
	if n > 0 {
		first := bytes.Count(out[:len(out)-len(body)], []byte("\n")) + 1
		res.Conflicts = append(res.Conflicts, describeRegions("body", "", conflictRegions(body, first))...)
	}
	if len(res.Conflicts) == 0 {
		// A clean merge must be a memory: git commits it as it is.
		if _, _, err := gitstore.Decode("merged", out); err != nil {
			return Result{}, err
		}
	}
	res.Content = out
	return res, nil
}

// rawType is the type as the version's file spells it.
func rawType(v *version) string {
	if v.m.Type == "" {
		return ""
	}
	if n := v.doc.Get("type"); n != nil {
		return n.Value
	}
	return v.m.Type
}

// mergeData merges the fields of data one by one into doc (ours) and
// returns the fields both sides changed differently, which keep ours'
// value until markConflicts replaces them.
func mergeData(doc *frontmatter.Document, b, o, t *version) ([]conflict, error) {
	_, bv, err := mapping(b.doc.Get("data"))
	if err != nil {
		return nil, err
	}
	oursKeys, ov, err := mapping(o.doc.Get("data"))
	if err != nil {
		return nil, err
	}
	theirsKeys, tv, err := mapping(t.doc.Get("data"))
	if err != nil {
		return nil, err
	}
	var (
		cs      []conflict
		out     []*yaml.Node
		changed bool
	)
	add := func(key string) {
		v, clean := pick3(bv[key], ov[key], tv[key], sameNode)
		switch {
		case !clean:
			cs = append(cs, conflict{key: "data", sub: key, why: why(bv[key] != nil, ov[key] != nil, tv[key] != nil),
				oursKey: oursKeys[key], oursVal: ov[key], theirsKey: theirsKeys[key], theirsVal: tv[key]})
			if ov[key] != nil {
				out = append(out, oursKeys[key], ov[key])
			}
		case v == nil:
			changed = changed || ov[key] != nil
		case v == ov[key]:
			out = append(out, oursKeys[key], ov[key])
		case ov[key] != nil:
			out = append(out, oursKeys[key], clone(v))
			changed = true
		default:
			out = append(out, clone(theirsKeys[key]), clone(v))
			changed = true
		}
	}
	for _, key := range union(keys(o.doc.Get("data")), keys(t.doc.Get("data"))) {
		add(key)
	}
	if !changed {
		return cs, nil
	}
	od := doc.Get("data")
	switch {
	case len(out) == 0:
		doc.Delete("data")
	case od != nil && od.Kind == yaml.MappingNode:
		od.Content = out
	case od != nil:
		doc.Set("data", &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: out})
	default:
		insertOrdered(doc.Front, "data", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "data"},
			&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: out})
	}
	return cs, nil
}

// texts is how a mapping's file text shows each key: the comments on the
// key and the value's YAML (with its own comments), and the comments
// around all the keys.
type texts struct {
	keys, values map[string]string
	head, foot   string
}

// snapshot records the texts of mapping n (nil or not a mapping: none).
func snapshot(n *yaml.Node) texts {
	t := texts{keys: map[string]string{}, values: map[string]string{}}
	if n == nil || n.Kind != yaml.MappingNode {
		return t
	}
	t.head, t.foot = n.HeadComment, n.FootComment
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		t.keys[k], t.values[k] = keyText(n.Content[i]), valueText(n.Content[i+1])
	}
	return t
}

func keyText(k *yaml.Node) string {
	return k.HeadComment + "\x00" + k.LineComment + "\x00" + k.FootComment
}

// valueText renders a value as YAML, comments included.
func valueText(v *yaml.Node) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "\x00" + err.Error() // never equal to a rendering
	}
	return string(b)
}

// adoptTheirs carries into the merged mapping the edits that the value
// merge cannot see. Where theirs rewrote the comments on a key and ours
// left them as in base, the key takes theirs' comments; where theirs
// rewrote a value's text (a comment, quoting, layout) and ours left it as
// in base, the value takes theirs' node if it holds theirs' value. The
// comments around all keys follow the same rule. Without this, a comment
// added on their side would silently disappear; when both sides edit the
// same comment, ours' stays.
func adoptTheirs(merged, base, theirs *yaml.Node, ours texts) {
	if merged == nil || merged.Kind != yaml.MappingNode || theirs == nil || theirs.Kind != yaml.MappingNode {
		return
	}
	b := snapshot(base)
	if ours.head == b.head && theirs.HeadComment != b.head {
		merged.HeadComment = theirs.HeadComment
	}
	if ours.foot == b.foot && theirs.FootComment != b.foot {
		merged.FootComment = theirs.FootComment
	}
	for i := 0; i+1 < len(merged.Content); i += 2 {
		key := merged.Content[i].Value
		tk, tv := pair(theirs, key)
		if tk == nil {
			continue
		}
		_, inBase := b.keys[key]
		if ok, inOurs := ours.keys[key]; inOurs && inBase && ok == b.keys[key] && keyText(tk) != ok {
			k := *merged.Content[i]
			k.HeadComment, k.LineComment, k.FootComment = tk.HeadComment, tk.LineComment, tk.FootComment
			merged.Content[i] = &k
		}
		ov, inOurs := ours.values[key]
		if inOurs && inBase && ov == b.values[key] && valueText(tv) != ov && sameNode(merged.Content[i+1], tv) {
			merged.Content[i+1] = clone(tv)
		}
	}
}

// mapping returns the key and value nodes of a YAML mapping by key name;
// nil or null is the empty mapping.
func mapping(n *yaml.Node) (names, values map[string]*yaml.Node, err error) {
	names, values = map[string]*yaml.Node{}, map[string]*yaml.Node{}
	if n == nil || isNull(n) {
		return names, values, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, errors.New("data: must be a mapping of fields")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, nil, fmt.Errorf("data: line %d: field names must be plain strings", k.Line)
		}
		if _, dup := names[k.Value]; dup {
			return nil, nil, fmt.Errorf("data: field %q repeated", k.Value)
		}
		names[k.Value], values[k.Value] = k, n.Content[i+1]
	}
	return names, values, nil
}

// pick3 merges one value three ways: the side that changed it, or ours
// when both made the same change or neither changed it; clean is false
// when both changed it differently (and v is then ours).
func pick3[T any](base, ours, theirs T, eq func(a, b T) bool) (v T, clean bool) {
	switch {
	case eq(ours, theirs), eq(base, theirs):
		return ours, true
	case eq(base, ours):
		return theirs, true
	}
	return ours, false
}

// mergeSet merges lists as sets: everything either side has, minus what
// either side removed from base; ours' order first, then theirs' additions.
func mergeSet[T comparable](base, ours, theirs []T) []T {
	switch {
	case slices.Equal(base, theirs):
		return ours
	case slices.Equal(base, ours):
		return theirs
	}
	removed := func(x T, side []T) bool {
		return slices.Contains(base, x) && !slices.Contains(side, x)
	}
	var out []T
	for _, x := range ours {
		if !removed(x, theirs) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	for _, x := range theirs {
		if !removed(x, ours) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// earliest is the earlier of two times, ignoring unset ones: a memory was
// created when the first side created it.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// latest is the later of two times: the merge is at least as recent as
// either side's last update.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sameNode reports whether two YAML values are equal: the same decoded
// value (so quoting, style and comments do not count), or, for values
// that do not decode, the same text. nil is an absent key.
func sameNode(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	va, errA := value(a)
	vb, errB := value(b)
	if errA == nil && errB == nil && reflect.DeepEqual(va, vb) {
		return true
	}
	ta, errA := yaml.Marshal(a)
	tb, errB := yaml.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ta, tb)
}

// value decodes n into the form memory.NormalizeData gives data values.
func value(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return memory.NormalizeData(map[string]any{"": v})[""], nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// keys returns the keys of a mapping node in order; nil for anything else.
func keys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}

// union is a's items then b's that a lacks, each once.
func union(a, b []string) []string {
	var out []string
	for _, x := range slices.Concat(a, b) {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// pair returns the key and value nodes of key in a mapping node, or nils.
func pair(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// insertOrdered adds a key to the frontmatter after the last key that
// precedes name in the canonical order, where gitstore.Encode would put
// it; unknown names go last.
func insertOrdered(front *yaml.Node, name string, k, v *yaml.Node) {
	order := gitstore.KeyOrder()
	pos := slices.Index(order, name)
	c := front.Content
	at := len(c)
	if pos >= 0 {
		at = 0
		for i := 0; i+1 < len(c); i += 2 {
			if p := slices.Index(order, c[i].Value); p >= 0 && p < pos {
				at = i + 2
			}
		}
	}
	front.Content = slices.Insert(c, at, k, v)
}

// clone copies a node tree, so that a node taken from theirs can be placed
// in ours without the two sharing (and editing) it.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			c.Content[i] = clone(x)
		}
	}
	return &c
}
