// Package graph draws memories and their typed links for people: Mermaid
// (which GitHub renders in pull requests), Graphviz dot, or JSON.
package graph

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/internal/links"
)

// Formats are the output formats of Write.
var formats = []string{"mermaid", "dot", "json"}

// Formats returns the names Write accepts.
func Formats() []string { return slices.Clone(formats) }

// Node is a memory in a drawing.
type Node struct {
	ID    string `json:"id"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
	// Missing marks an ID that an edge names but no memory has.
	Missing bool `json:"missing,omitempty"`
	// Mark is a short note drawn with the node ("new", "changed").
	Mark string `json:"mark,omitempty"`
}

// Graph is what is drawn: nodes in a stable order and the edges among them.
type Graph struct {
	Nodes []Node       `json:"nodes"`
	Edges []links.Edge `json:"edges"`
}

// Around returns the part of g within depth links of start (both ways),
// or all of g when start is "".
func Around(g *links.Graph, start string, depth int) Graph {
	ids := g.IDs()
	if start != "" {
		ids = []string{start}
		for _, n := range g.Walk(start, depth, "") {
			ids = append(ids, n.ID)
		}
	}
	return Of(g, ids, nil)
}

// Of returns the nodes ids and every edge between them, with marks.
func Of(g *links.Graph, ids []string, marks map[string]string) Graph {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	out := Graph{Nodes: []Node{}, Edges: []links.Edge{}}
	for _, id := range ids {
		n := Node{ID: id, Mark: marks[id]}
		if m := g.Memory(id); m != nil {
			n.Type, n.Title = m.Type, m.Title
		} else {
			n.Missing = true
		}
		out.Nodes = append(out.Nodes, n)
		for _, e := range g.Out(id) {
			if in[e.To] {
				out.Edges = append(out.Edges, e)
			}
		}
	}
	return out
}

// Write draws gr in the given format.
func Write(w io.Writer, gr Graph, format string) error {
	switch format {
	case "mermaid":
		_, err := io.WriteString(w, Mermaid(gr))
		return err
	case "dot":
		_, err := io.WriteString(w, Dot(gr))
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(gr)
	}
	return fmt.Errorf("unknown graph format %q: use %s", format, strings.Join(formats, ", "))
}

// Mermaid writes a flowchart. Node IDs are prefixed (a memory ID may be a
// Mermaid keyword such as "end"), and labels are quoted with the
// characters Mermaid gives meaning to replaced by entity codes.
func Mermaid(gr Graph) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, n := range gr.Nodes {
		label := n.ID
		if n.Type != "" {
			label += " · " + n.Type
		}
		if n.Title != "" {
			label += "<br/>" + short(n.Title)
		}
		if n.Missing {
			label += "<br/>(missing)"
		}
		if n.Mark != "" {
			label += "<br/>[" + n.Mark + "]"
		}
		fmt.Fprintf(&b, "  m_%s[\"%s\"]\n", safeID(n.ID), mermaidText(label))
	}
	for _, e := range gr.Edges {
		arrow := "-->"
		if e.Rel == "supersedes" {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "  m_%s %s|%s| m_%s\n", safeID(e.From), arrow, e.Rel, safeID(e.To))
	}
	return b.String()
}

// Dot writes a Graphviz digraph.
func Dot(gr Graph) string {
	var b strings.Builder
	b.WriteString("digraph memories {\n  rankdir=LR;\n  node [shape=box];\n")
	for _, n := range gr.Nodes {
		label := n.ID
		if n.Type != "" {
			label += " (" + n.Type + ")"
		}
		if n.Title != "" {
			label += "\\n" + dotText(short(n.Title))
		}
		style := ""
		if n.Missing {
			style = ", style=dashed"
		}
		fmt.Fprintf(&b, "  %q [label=\"%s\"%s];\n", n.ID, label, style)
	}
	for _, e := range gr.Edges {
		fmt.Fprintf(&b, "  %q -> %q [label=%q];\n", e.From, e.To, e.Rel)
	}
	b.WriteString("}\n")
	return b.String()
}

func short(s string) string {
	r := []rune(s)
	if len(r) > 48 {
		return string(r[:47]) + "…"
	}
	return s
}

// safeID turns a memory ID into a Mermaid node ID.
func safeID(id string) string {
	// Injective, so that two IDs are never drawn as one node: letters and
	// digits stand for themselves, '_' is doubled, and anything else is
	// '_', its code point in hex, '_' ("dash-id" m_dash_2d_id, "dash_id"
	// m_dash__id).
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '_':
			b.WriteString("__")
		default:
			fmt.Fprintf(&b, "_%x_", r)
		}
	}
	return b.String()
}

// mermaidText escapes a label for a quoted Mermaid string: quotes and the
// characters that start markup become entity codes (#quot; and friends).
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '#':
			b.WriteString("#35;")
		case '`':
			b.WriteString("#96;")
		case '\n', '\r':
			b.WriteString(" ")
		default:
			b.WriteRune(r)
		}
	}
	// <br/> is the one piece of markup we write ourselves; keep it, but
	// neutralise any other angle brackets.
	out := strings.ReplaceAll(b.String(), "<br/>", "\x00")
	out = strings.NewReplacer("<", "#lt;", ">", "#gt;").Replace(out)
	return strings.ReplaceAll(out, "\x00", "<br/>")
}

func dotText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ").Replace(s)
}
