// Package frontmatter splits, parses and formats Markdown files that start
// with a YAML frontmatter block, the way static site generators and note
// tools write them:
//
//	---
//	key: value
//	---
//	Markdown body
//
// It knows nothing about memories. It keeps the YAML as a node tree so that
// keys it is not asked about, their comments and their order survive a
// round trip, and it never touches the body's bytes.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Document is a Markdown file split into its frontmatter and body.
type Document struct {
	// Front is the frontmatter as a YAML mapping node. It is never nil after
	// Parse or New; a file without frontmatter gets an empty mapping.
	Front *yaml.Node
	// Body is everything after the closing delimiter, byte for byte.
	Body []byte
	// BodyLine is the 1-based line number in the file where Body starts, so
	// that errors found in the body can name the file's line.
	BodyLine int
	// CRLF records that the file's delimiters used "\r\n", so Format writes
	// the frontmatter back with the same line endings.
	CRLF bool
	// HasFront records whether the source had a frontmatter block at all.
	HasFront bool
}

// Error is a syntax error in a file's frontmatter, with the 1-based line of
// the file (not of the YAML block) where it was found; Line is 0 when the
// parser did not say.
type Error struct {
	Line int
	Msg  string
}

// Error is "line N: message", or the message alone when the line is unknown.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// ErrNoClose is wrapped by the error for a frontmatter block that is opened
// but never closed.
var ErrNoClose = errors.New("frontmatter opened with --- but never closed")

// MaxDepth is the deepest frontmatter Format writes. Memories' data is
// limited far below it; the bound keeps any caller from writing a file
// that is quadratic in its input.
const MaxDepth = 64

// ErrTooDeep is wrapped by Format's error for a frontmatter nested deeper
// than MaxDepth.
var ErrTooDeep = fmt.Errorf("frontmatter nested deeper than %d levels", MaxDepth)

// nodeDepth returns the nesting depth of n's collections, stopping once it
// reaches stop.
func nodeDepth(n *yaml.Node, stop int) int {
	if n == nil || stop <= 0 {
		return 0
	}
	most := 0
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		most = 1
	}
	for _, c := range n.Content {
		d := nodeDepth(c, stop-1)
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			d++
		}
		most = max(most, d)
		if most >= stop {
			break
		}
	}
	return most
}

// New returns an empty document with the given body.
func New(body []byte) *Document {
	return &Document{Front: &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, Body: body, BodyLine: 1}
}

// Parse splits src into frontmatter and body and parses the frontmatter.
// A file that does not start with "---" has no frontmatter: all of it is the
// body. A leading UTF-8 byte-order mark is tolerated and dropped.
func Parse(src []byte) (*Document, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	yml, body, bodyLine, crlf, ok, err := split(src)
	if err != nil {
		return nil, err
	}
	if !ok {
		d := New(src)
		return d, nil
	}
	doc := &Document{Body: body, BodyLine: bodyLine, CRLF: crlf, HasFront: true}
	if crlf {
		// yaml.v3 keeps the \r in comments; Format writes CRLF back itself.
		yml = bytes.ReplaceAll(yml, []byte("\r\n"), []byte("\n"))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(yml, &root); err != nil {
		return nil, yamlError(err, 1)
	}
	switch {
	case root.Kind == 0: // empty block
		doc.Front = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode:
		doc.Front = root.Content[0]
		// Comments before the first key are attached to the document node.
		if root.HeadComment != "" && doc.Front.HeadComment == "" {
			doc.Front.HeadComment = root.HeadComment
		}
	default:
		n := &root
		if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
			n = root.Content[0]
		}
		return nil, &Error{Line: n.Line + 1, Msg: fmt.Sprintf("frontmatter must be a mapping of keys to values, not a %s", kindName(n))}
	}
	if err := checkKeys(doc.Front); err != nil {
		return nil, err
	}
	return doc, nil
}

// split finds the frontmatter block. ok is false when src has none.
func split(src []byte) (yml, body []byte, bodyLine int, crlf, ok bool, err error) {
	first, rest, found := bytes.Cut(src, []byte("\n"))
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, nil, 0, false, false, nil
	}
	crlf = bytes.HasSuffix(first, []byte("\r"))
	line := 2
	off := 0
	for off <= len(rest) {
		end := bytes.IndexByte(rest[off:], '\n')
		var l []byte
		next := len(rest) + 1
		if end >= 0 {
			l = rest[off : off+end]
			next = off + end + 1
		} else {
			l = rest[off:]
		}
		t := string(bytes.TrimRight(l, " \t\r"))
		if t == "---" || t == "..." {
			b := []byte{}
			if next <= len(rest) {
				b = rest[next:]
			}
			return rest[:off], b, line + 1, crlf, true, nil
		}
		if end < 0 {
			break
		}
		off = next
		line++
	}
	return nil, nil, 0, false, false, &Error{Line: 1, Msg: ErrNoClose.Error()}
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlError turns a yaml.v3 error into an *Error with the file's line
// number; offset is the file line of the YAML block's first line minus 1.
func yamlError(err error, offset int) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return &Error{Msg: te.Errors[0]}
	}
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserProblem(m[2]) {
			n++ // printed 0-based: see parserProblem
		}
		return &Error{Line: n + offset, Msg: m[2]}
	}
	return &Error{Msg: msg}
}

// parserProblem reports whether msg is one of the problems yaml.v3's
// parser reports, as opposed to its scanner: it prints the parser's line
// 0-based and the scanner's 1-based (decode.go, parser.fail), so an
// unclosed flow list was said to be on the line above its own. The list
// is parserc.go's.
func parserProblem(msg string) bool {
	if strings.HasPrefix(msg, "did not find expected ") {
		return true
	}
	switch msg {
	case "found duplicate %TAG directive", "found duplicate %YAML directive",
		"found incompatible YAML document", "found undefined tag handle":
		return true
	}
	return false
}

func checkKeys(m *yaml.Node) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			return &Error{Line: k.Line + 1, Msg: "frontmatter keys must be plain strings"}
		}
		if prev, dup := seen[k.Value]; dup {
			return &Error{Line: k.Line + 1, Msg: fmt.Sprintf("key %q repeated (first on line %d)", k.Value, prev+1)}
		}
		seen[k.Value] = k.Line
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

// Get returns the value node of key, or nil.
func (d *Document) Get(key string) *yaml.Node {
	_, v := d.pair(key)
	return v
}

// KeyLine returns the 1-based file line of key, or 0 when it is absent.
func (d *Document) KeyLine(key string) int {
	k, _ := d.pair(key)
	if k == nil {
		return 0
	}
	return k.Line + 1
}

func (d *Document) pair(key string) (k, v *yaml.Node) {
	c := d.Front.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == key {
			return c[i], c[i+1]
		}
	}
	return nil, nil
}

// Set replaces the value of key, keeping the key's position and comments,
// or appends the key when it is absent.
func (d *Document) Set(key string, value *yaml.Node) {
	c := d.Front.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == key {
			value.LineComment = firstNonEmpty(value.LineComment, c[i+1].LineComment)
			c[i+1] = value
			return
		}
	}
	d.Front.Content = append(c, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
}

// Delete removes key; it reports whether it was there.
func (d *Document) Delete(key string) bool {
	c := d.Front.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == key {
			d.Front.Content = append(c[:i:i], c[i+2:]...)
			return true
		}
	}
	return false
}

// Keys returns the frontmatter keys in file order.
func (d *Document) Keys() []string {
	var ks []string
	for i := 0; i+1 < len(d.Front.Content); i += 2 {
		ks = append(ks, d.Front.Content[i].Value)
	}
	return ks
}

// Reorder puts the keys named in order first, in that order, followed by
// every other key in its current order. Comments travel with their keys.
func (d *Document) Reorder(order []string) {
	c := d.Front.Content
	out := make([]*yaml.Node, 0, len(c))
	used := make([]bool, len(c)/2)
	for _, key := range order {
		for i := 0; i+1 < len(c); i += 2 {
			if !used[i/2] && c[i].Value == key {
				out = append(out, c[i], c[i+1])
				used[i/2] = true
			}
		}
	}
	for i := 0; i+1 < len(c); i += 2 {
		if !used[i/2] {
			out = append(out, c[i], c[i+1])
		}
	}
	d.Front.Content = out
}

// Format renders the document: the frontmatter block (two-space indent,
// block style, no line wrapping) and the body unchanged. Formatting the
// result of Parse(Format(d)) gives the same bytes.
//
// Block style indents every level of nesting, so output grows with the
// square of the depth: Format refuses a frontmatter nested deeper than
// MaxDepth (ErrTooDeep) rather than turn a small input into a huge file.
func (d *Document) Format() ([]byte, error) {
	if nodeDepth(d.Front, MaxDepth+1) > MaxDepth {
		return nil, fmt.Errorf("format frontmatter: %w", ErrTooDeep)
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(d.Front.Content) > 0 || d.Front.HeadComment != "" {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(d.Front); err != nil {
			return nil, fmt.Errorf("format frontmatter: %w", err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("format frontmatter: %w", err)
		}
	}
	buf.WriteString("---\n")
	out := buf.Bytes()
	if d.CRLF {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return append(out, d.Body...), nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// String returns a plain scalar node holding s; the encoder quotes it only
// when YAML needs quotes.
func String(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if bytes.ContainsRune([]byte(s), '\n') {
		n.Style = yaml.LiteralStyle
	}
	return n
}

// Strings returns a block sequence of plain scalars: one item per line, so
// that two branches adding different items merge as text.
func Strings(ss []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range ss {
		n.Content = append(n.Content, String(s))
	}
	return n
}

// Value converts any YAML-encodable Go value into a node.
func Value(v any) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// Timestamp returns an unquoted YAML timestamp node holding s (an RFC 3339
// time), so it reads as a time, not as a quoted string.
func Timestamp(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: s}
}
