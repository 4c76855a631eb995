package gitstore

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/memory"
)

// KeyOrder is the canonical order of the frontmatter keys contextfs knows.
// Unknown keys follow in their own order. Identity first, then what a
// reviewer reads, then bookkeeping, then the structured data.
var keyOrder = []string{"id", "type", "title", "summary", "tags", "links", "supersedes", "reason", "paths", "author", "source", "session", "created", "updated", "data"}

// KeyOrder returns the canonical frontmatter key order.
func KeyOrder() []string { return slices.Clone(keyOrder) }

// DecodeError is a memory file that cannot be read as a memory. Line is the
// 1-based line in the file, or 0.
type DecodeError struct {
	Path string
	Line int
	Msg  string
}

// Error is "path:line: message", the form editors and CI annotators read.
func (e *DecodeError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", printable.Path(e.Path), e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", printable.Path(e.Path), e.Msg)
}

// Decode parses a memory file. Unknown frontmatter keys are kept in the
// returned document; the memory's type is canonicalised when it names a
// known type or alias and left as written otherwise (validation reports it).
func Decode(path string, raw []byte) (*memory.Memory, *frontmatter.Document, error) {
	doc, err := frontmatter.Parse(raw)
	if err != nil {
		if fe, ok := err.(*frontmatter.Error); ok {
			return nil, nil, &DecodeError{Path: path, Line: fe.Line, Msg: fe.Msg}
		}
		return nil, nil, &DecodeError{Path: path, Msg: err.Error()}
	}
	if !doc.HasFront {
		return nil, nil, &DecodeError{Path: path, Line: 1, Msg: "no frontmatter: a memory starts with a --- line, then id and type"}
	}
	m := &memory.Memory{Path: path, Body: string(doc.Body)}
	bad := func(key, msg string) error {
		return &DecodeError{Path: path, Line: doc.KeyLine(key), Msg: key + ": " + msg}
	}
	str := func(key string, dst *string) error {
		n := doc.Get(key)
		if n == nil || isNull(n) {
			return nil
		}
		if n.Kind != yaml.ScalarNode {
			return bad(key, "must be a single value")
		}
		*dst = n.Value
		return nil
	}
	list := func(key string, dst *[]string) error {
		n := doc.Get(key)
		if n == nil || isNull(n) {
			return nil
		}
		switch n.Kind {
		case yaml.ScalarNode:
			for _, s := range strings.Split(n.Value, ",") {
				if s = strings.TrimSpace(s); s != "" {
					*dst = append(*dst, s)
				}
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				if c.Kind != yaml.ScalarNode {
					return bad(key, "must be a list of single values")
				}
				*dst = append(*dst, c.Value)
			}
		default:
			return bad(key, "must be a list")
		}
		return nil
	}
	when := func(key string, dst *time.Time) error {
		n := doc.Get(key)
		if n == nil || isNull(n) {
			return nil
		}
		t, err := parseTime(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			return bad(key, "must be a date and time like 2024-05-01T10:30:00Z")
		}
		*dst = t
		return nil
	}
	source := func() error {
		n := doc.Get("source")
		if n == nil || isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return bad("source", "must be a mapping with tool, model and session")
		}
		var src memory.Source
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return bad("source", k+" must be a single value")
			}
			switch k {
			case "tool":
				src.Tool = v.Value
			case "model":
				src.Model = v.Value
			case "session":
				src.Session = v.Value
			case "captured":
				switch v.Value {
				case "true":
					src.Captured = true
				case "false":
				default:
					return bad("source", "captured must be true or false, not "+strconv.Quote(v.Value))
				}
			}
		}
		if !src.IsZero() {
			m.Source = &src
		}
		return nil
	}
	for _, err := range []error{
		str("id", &m.ID), str("type", &m.Type), str("title", &m.Title), str("summary", &m.Summary),
		str("author", &m.Author), list("tags", &m.Tags), decodeLinks(doc, &m.Links, bad),
		list("supersedes", &m.Supersedes), str("reason", &m.Reason), list("paths", &m.Paths), str("session", &m.Session),
		when("created", &m.Created), when("updated", &m.Updated), source(),
	} {
		if err != nil {
			return nil, nil, err
		}
	}
	if n := doc.Get("data"); n != nil && !isNull(n) {
		if n.Kind != yaml.MappingNode {
			return nil, nil, bad("data", "must be a mapping of fields")
		}
		var data map[string]any
		if err := n.Decode(&data); err != nil {
			return nil, nil, bad("data", err.Error())
		}
		m.Data = memory.NormalizeData(data)
	}
	if name, ok := memory.TypeName(m.Type); ok {
		m.Type = name
	}
	return m, doc, nil
}

// decodeLinks reads links: a bare ID (or a comma-separated line of them)
// is a "related" link; a mapping {id: X, rel: R} is a typed one. A missing
// rel means "related"; an unknown one is left for validation to report.
func decodeLinks(doc *frontmatter.Document, dst *[]memory.Link, bad func(key, msg string) error) error {
	n := doc.Get("links")
	if n == nil || isNull(n) {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*dst = append(*dst, memory.Link{ID: s, Rel: memory.RelRelated})
			}
		}
		return nil
	case yaml.SequenceNode:
	default:
		return bad("links", "must be a list")
	}
	for _, c := range n.Content {
		switch c.Kind {
		case yaml.ScalarNode:
			*dst = append(*dst, memory.Link{ID: c.Value, Rel: memory.RelRelated})
		case yaml.MappingNode:
			l := memory.Link{Rel: memory.RelRelated}
			for i := 0; i+1 < len(c.Content); i += 2 {
				k, v := c.Content[i], c.Content[i+1]
				if v.Kind != yaml.ScalarNode {
					return bad("links", k.Value+" must be a single value")
				}
				switch k.Value {
				case "id":
					l.ID = v.Value
				case "rel":
					l.Rel = v.Value
				default:
					return bad("links", fmt.Sprintf("a link has only id and rel; got %q", k.Value))
				}
			}
			*dst = append(*dst, l)
		default:
			return bad("links", "must be a list of IDs or {id, rel} mappings")
		}
	}
	return nil
}

// linksNode writes links in canonical form: one item per line, a bare ID
// for a "related" link and a flow mapping {id: X, rel: R} otherwise.
func linksNode(links []memory.Link) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, l := range links {
		if l.Rel == "" || l.Rel == memory.RelRelated {
			n.Content = append(n.Content, frontmatter.String(l.ID))
			continue
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle,
			Content: []*yaml.Node{frontmatter.String("id"), frontmatter.String(l.ID), frontmatter.String("rel"), frontmatter.String(l.Rel)}})
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}

// formatTime writes times in UTC to the second: a stable, sortable form
// that does not change when a memory is saved on another machine.
func formatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// Encode writes m into doc and returns the file's bytes. Keys whose value
// did not change keep their node, with its comments and style, so saving an
// unchanged memory changes no byte; new keys take their canonical place.
// With canonical set, every known key is rewritten in canonical style and
// order (what `fmt` and new files get).
func Encode(m *memory.Memory, doc *frontmatter.Document, canonical bool) ([]byte, error) {
	if doc == nil {
		doc = frontmatter.New(nil)
		canonical = true
	}
	old, _, _ := decodeFields(doc)
	set := func(key string, empty bool, changed bool, node func() (*yaml.Node, error)) error {
		if empty {
			doc.Delete(key)
			return nil
		}
		if !changed && !canonical && doc.Get(key) != nil {
			return nil
		}
		n, err := node()
		if err != nil {
			return fmt.Errorf("encode %s: %w", key, err)
		}
		if doc.Get(key) == nil && !canonical {
			insertOrdered(doc, key, n)
			return nil
		}
		if !canonical {
			keepItems(doc.Get(key), n)
		}
		doc.Set(key, n)
		return nil
	}
	s := func(v string) func() (*yaml.Node, error) {
		return func() (*yaml.Node, error) { return frontmatter.String(v), nil }
	}
	ts := func(v time.Time) func() (*yaml.Node, error) {
		return func() (*yaml.Node, error) { return frontmatter.Timestamp(formatTime(v)), nil }
	}
	l := func(v []string) func() (*yaml.Node, error) {
		return func() (*yaml.Node, error) { return frontmatter.Strings(v), nil }
	}
	steps := []error{
		set("id", m.ID == "", old.ID != m.ID, s(m.ID)),
		set("type", m.Type == "", old.Type != m.Type, s(m.Type)),
		set("title", m.Title == "", old.Title != m.Title, s(m.Title)),
		set("summary", m.Summary == "", old.Summary != m.Summary, s(m.Summary)),
		set("tags", len(m.Tags) == 0, !slices.Equal(old.Tags, m.Tags), l(m.Tags)),
		set("links", len(m.Links) == 0, !slices.Equal(old.Links, m.Links),
			func() (*yaml.Node, error) { return linksNode(m.Links), nil }),
		set("supersedes", len(m.Supersedes) == 0, !slices.Equal(old.Supersedes, m.Supersedes), l(m.Supersedes)),
		set("reason", m.Reason == "", old.Reason != m.Reason, s(m.Reason)),
		set("paths", len(m.Paths) == 0, !slices.Equal(old.Paths, m.Paths), l(m.Paths)),
		set("author", m.Author == "", old.Author != m.Author, s(m.Author)),
		set("source", m.Source.IsZero(), !reflect.DeepEqual(old.Source, m.Source), sourceNode(m.Source)),
		set("session", m.Session == "", old.Session != m.Session, s(m.Session)),
		set("created", m.Created.IsZero(), !old.Created.Equal(m.Created), ts(m.Created)),
		set("updated", m.Updated.IsZero(), !old.Updated.Equal(m.Updated), ts(m.Updated)),
		set("data", len(m.Data) == 0, !reflect.DeepEqual(memory.NormalizeData(old.Data), memory.NormalizeData(m.Data)),
			func() (*yaml.Node, error) { return frontmatter.Value(m.Data) }),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	if canonical {
		doc.Reorder(keyOrder)
	}
	doc.Body = []byte(m.Body)
	return doc.Format()
}

// keepItems gives the new list next, item by item, the nodes of old that
// hold the same item, and old's own comments: a list that gains or loses
// an item keeps the comments written beside the items that stay (an
// update, a link, the merge driver). Items are matched by what they say:
// a scalar's value, a mapping's keys and values.
func keepItems(old, next *yaml.Node) {
	if old == nil || next == nil || old.Kind != yaml.SequenceNode || next.Kind != yaml.SequenceNode {
		return
	}
	key := func(n *yaml.Node) string {
		if n.Kind == yaml.ScalarNode {
			return "s\x00" + n.Value
		}
		var b strings.Builder
		b.WriteString("m")
		for _, c := range n.Content {
			b.WriteString("\x00" + c.Value)
		}
		return b.String()
	}
	unused := map[string][]*yaml.Node{}
	for _, n := range old.Content {
		unused[key(n)] = append(unused[key(n)], n)
	}
	for i, n := range next.Content {
		k := key(n)
		if olds := unused[k]; len(olds) > 0 {
			next.Content[i], unused[k] = olds[0], olds[1:]
		}
	}
	next.HeadComment, next.LineComment, next.FootComment = old.HeadComment, old.LineComment, old.FootComment
}

// sourceNode writes a source as a block mapping in a fixed key order,
// leaving out empty values.
func sourceNode(src *memory.Source) func() (*yaml.Node, error) {
	return func() (*yaml.Node, error) {
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, kv := range [][2]string{{"tool", src.Tool}, {"model", src.Model}, {"session", src.Session}} {
			if kv[1] != "" {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv[0]}, frontmatter.String(kv[1]))
			}
		}
		if src.Captured {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "captured"},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		}
		return n, nil
	}
}

// decodeFields reads the known fields of doc, ignoring errors: Encode only
// needs to know which values are unchanged.
func decodeFields(doc *frontmatter.Document) (*memory.Memory, bool, error) {
	raw, err := doc.Format()
	if err != nil {
		return &memory.Memory{}, false, err
	}
	m, _, err := Decode("", raw)
	if err != nil {
		return &memory.Memory{}, false, err
	}
	m.Type = stringOf(doc.Get("type"))
	return m, true, nil
}

func stringOf(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	return n.Value
}

// insertOrdered adds key after the last present key that precedes it in
// the canonical order, so a new field lands where a reader expects it and
// the rest of the block does not move.
func insertOrdered(doc *frontmatter.Document, key string, v *yaml.Node) {
	pos := slices.Index(keyOrder, key)
	c := doc.Front.Content
	at := 0
	for i := 0; i+1 < len(c); i += 2 {
		if p := slices.Index(keyOrder, c[i].Value); p >= 0 && p < pos {
			at = i + 2
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	doc.Front.Content = slices.Insert(c, at, k, v)
}
