package memmerge

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
)

// markConflicts rewrites the merged file out so that each conflicting
// field is shown as both sides wrote it, between conflict markers:
//
//	<<<<<<< ours
//	title: Use pgx
//	=======
//	title: Use pgxpool
//	>>>>>>> theirs
//
// The markers make the frontmatter invalid YAML on purpose: validate and
// the pre-commit hook refuse the file until someone picks a side. Each
// field is first replaced by a placeholder key, so that the YAML encoder
// lays out the rest of the block (and the field's indentation inside data)
// as usual, and the placeholder's line is then swapped for the markers.
func markConflicts(out []byte, cs []conflict) ([]byte, error) {
	doc, err := frontmatter.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("mark conflicts: %w", err)
	}
	if !doc.HasFront {
		return nil, errors.New("mark conflicts: merged file lost its frontmatter")
	}
	doc.Front.Style = 0 // block style: one key per line
	holders := make([]string, len(cs))
	for i, c := range cs {
		holders[i] = placeholder(out, i)
		hk := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: holders[i]}
		hv := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "conflict"}
		parent, name := doc.Front, c.key
		if c.sub != "" {
			_, d := pair(doc.Front, "data")
			if d == nil || d.Kind != yaml.MappingNode {
				nd := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				if d == nil {
					insertOrdered(doc.Front, "data", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "data"}, nd)
				} else {
					doc.Set("data", nd)
				}
				d = nd
			}
			d.Style = 0
			parent, name = d, c.sub
		}
		at := -1
		for j := 0; j+1 < len(parent.Content); j += 2 {
			if parent.Content[j].Value == name {
				at = j
				break
			}
		}
		switch {
		case at >= 0:
			// Comments above the key stay above the markers.
			k := parent.Content[at]
			hk.HeadComment, hk.FootComment = k.HeadComment, k.FootComment
			parent.Content[at], parent.Content[at+1] = hk, hv
		case parent == doc.Front:
			insertOrdered(parent, name, hk, hv)
		default:
			parent.Content = append(parent.Content, hk, hv)
		}
	}
	text, err := doc.Format()
	if err != nil {
		return nil, fmt.Errorf("mark conflicts: %w", err)
	}
	eol := "\n"
	if doc.CRLF {
		eol = "\r\n"
	}
	body := len(text) - len(doc.Body)
	lines := strings.SplitAfter(string(text[:body]), "\n")
	var buf bytes.Buffer
	done := 0
	for _, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		i := slices.IndexFunc(holders, func(h string) bool { return strings.HasPrefix(trimmed, h+":") })
		if i < 0 {
			buf.WriteString(l)
			continue
		}
		indent := l[:len(l)-len(trimmed)]
		c := cs[i]
		buf.WriteString(markerOurs + eol)
		if err := writeField(&buf, indent, eol, c.oursKey, c.oursVal); err != nil {
			return nil, err
		}
		buf.WriteString(markerSep + eol)
		if err := writeField(&buf, indent, eol, c.theirsKey, c.theirsVal); err != nil {
			return nil, err
		}
		buf.WriteString(markerTheirs + eol)
		done++
	}
	if done != len(cs) {
		return nil, errors.New("mark conflicts: a conflicting field was not written")
	}
	buf.Write(doc.Body)
	return buf.Bytes(), nil
}

// placeholder returns a key for the i-th conflict that occurs nowhere in
// the file, so that its line can be found again without ambiguity.
func placeholder(file []byte, i int) string {
	h := fmt.Sprintf("contextfs-merge-conflict-%d", i)
	for bytes.Contains(file, []byte(h)) {
		h += "x"
	}
	return h
}

// writeField writes one side's "key: value" lines, as the frontmatter
// encoder would, each line indented by indent; nothing when the side does
// not have the field.
func writeField(buf *bytes.Buffer, indent, eol string, k, v *yaml.Node) error {
	if k == nil || v == nil {
		return nil
	}
	key := &yaml.Node{Kind: k.Kind, Tag: k.Tag, Value: k.Value, Style: k.Style, LineComment: k.LineComment}
	doc := frontmatter.New(nil)
	doc.Front.Content = []*yaml.Node{key, v}
	text, err := doc.Format()
	if err != nil {
		return fmt.Errorf("mark conflicts: %s: %w", k.Value, err)
	}
	// Format wraps the block in --- lines; keep what is between them.
	text = bytes.TrimPrefix(text, []byte("---\n"))
	text = bytes.TrimSuffix(text, []byte("---\n"))
	for _, l := range strings.SplitAfter(string(text), "\n") {
		if l == "" {
			continue
		}
		if l != "\n" {
			buf.WriteString(indent)
		}
		buf.WriteString(strings.TrimSuffix(l, "\n") + eol)
	}
	return nil
}
