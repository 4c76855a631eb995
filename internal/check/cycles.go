package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/memory"
)

// cycleMember is a checked memory with its document, to locate its
// supersedes entries.
type cycleMember struct {
	m   *memory.Memory
	doc *frontmatter.Document
}

// supersedesCycles reports every supersedes entry, and every link of rel
// supersedes, of a checked memory that is part of a cycle (A supersedes B,
// B supersedes A; or longer). Both say that a memory replaces another, and
// a cycle may mix them. A memory is hidden as soon as another supersedes
// it, so every memory of a cycle disappears from list and search and
// nothing says why: validate and the pre-commit hook must refuse it. The
// memories not checked are followed through othersSupersede (given their
// path, from others; it returns both kinds of edge) when it is not nil,
// and only as far as a checked memory's supersedes lead.
// Self-supersedes are memory.Validate's to report.
func supersedesCycles(checked []cycleMember, others map[string]string, othersSupersede func(path string) []string) []Problem {
	byID := map[string]cycleMember{}
	var starts []string
	for _, c := range checked {
		id := strings.ToLower(c.m.ID)
		if _, dup := byID[id]; id == "" || dup {
			continue // a repeated ID is a duplicate-id problem; the first file stands for it
		}
		byID[id] = c
		starts = append(starts, id)
	}
	lower := func(ids []string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = strings.ToLower(id)
		}
		return out
	}
	read := map[string][]string{}
	edges := func(id string) []string {
		if c, ok := byID[id]; ok {
			return lower(c.m.SupersededIDs())
		}
		if es, ok := read[id]; ok {
			return es
		}
		var es []string
		if p, ok := others[id]; ok && othersSupersede != nil {
			es = lower(othersSupersede(p))
		}
		read[id] = es
		return es
	}

	// Tarjan's strongly connected components: every component of more
	// than one memory holds a cycle through each of its edges.
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	component := map[string]int{}
	var components [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range edges(v) {
			if w == v {
				continue
			}
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) > 1 {
			slices.Sort(comp)
			for _, w := range comp {
				component[w] = len(components)
			}
			components = append(components, comp)
		}
	}
	for _, id := range starts {
		if _, seen := index[id]; !seen {
			visit(id)
		}
	}

	var out []Problem
	for _, id := range starts {
		k, ok := component[id]
		if !ok {
			continue
		}
		c := byID[id]
		// Its supersedes entries, then its links of rel supersedes.
		type entry struct{ field, target string }
		var entries []entry
		for i, t := range c.m.Supersedes {
			entries = append(entries, entry{fmt.Sprintf("supersedes[%d]", i), strings.ToLower(t)})
		}
		for i, l := range c.m.Links {
			if l.Rel == memory.RelSupersedes && l.IsMemory() {
				entries = append(entries, entry{fmt.Sprintf("links[%d]", i), strings.ToLower(l.ID)})
			}
		}
		for _, e := range entries {
			t := e.target
			if kt, ok := component[t]; !ok || kt != k || t == id {
				continue
			}
			chain := append([]string{id}, pathWithin(t, id, edges, component, k)...)
			msg := fmt.Sprintf("makes a supersedes cycle, %s: every memory in it is superseded by another, so all of them are hidden from list and search; "+
				"remove one of its supersedes entries or links of rel supersedes (git contextfs unlink FROM TO --rel supersedes removes either)",
				strings.Join(chain, " → "))
			if comp := components[k]; len(comp) > len(chain)-1 {
				msg += fmt.Sprintf(" (the memories superseding one another: %s)", strings.Join(comp, ", "))
			}
			out = append(out, Problem{Path: c.m.Path, Line: fieldLine(c.doc, e.field), Rule: "cycle", Message: e.field + ": " + msg})
		}
	}
	return out
}

// pathWithin returns a shortest path from from to to, both ends included,
// along supersedes edges that stay in component k.
func pathWithin(from, to string, edges func(string) []string, component map[string]int, k int) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if v == to {
			var path []string
			for ; v != ""; v = prev[v] {
				path = append(path, v)
			}
			slices.Reverse(path)
			return path
		}
		for _, w := range edges(v) {
			if _, seen := prev[w]; seen {
				continue
			}
			if kw, ok := component[w]; ok && kw == k {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []string{from, to} // not reached: a component is strongly connected
}
