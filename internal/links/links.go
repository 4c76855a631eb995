// Package links is the typed-link layer over a store: adding and removing
// links, and loading every memory into a graph that is walked both ways. The
// model of a link (memory.Link and its relation vocabulary) lives in
// package memory; this package works on a whole set of memories.
package links

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/memory"
)

// ErrRel is a relation outside the vocabulary: memory.ErrRel, which a
// link that names one (memory.ParseLink) wraps too.
var ErrRel = memory.ErrRel

// CheckRel returns nil if rel is in the vocabulary, else an error listing it.
func CheckRel(rel string) error {
	if memory.ValidRel(rel) {
		return nil
	}
	return fmt.Errorf("%w %q: use one of %s", ErrRel, rel, strings.Join(memory.Relations(), ", "))
}

// Add links the memory from to the memory to with relation rel ("" is
// related), resolving both by ID prefix. Adding a link that exists changes
// nothing and is not an error.
func Add(ctx context.Context, s *contextfs.Store, from, to, rel string) (*memory.Memory, error) {
	rel = cmp.Or(strings.TrimSpace(rel), memory.RelRelated)
	if err := CheckRel(rel); err != nil {
		return nil, err
	}
	l := memory.Link{ID: strings.TrimSpace(to), Rel: rel}
	if !isURL(l.ID) { // a URL is linked as it is, as save --link keeps it
		target, err := s.Resolve(ctx, to)
		if err != nil {
			return nil, fmt.Errorf("link target: %w", err)
		}
		l.ID = target.ID
	}
	src, err := s.Resolve(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("link source: %w", err)
	}
	if src.ID == l.ID {
		return nil, fmt.Errorf("a memory cannot link to itself (%s)", src.ID)
	}
	if slices.Contains(src.Links, l) {
		return src, nil
	}
	return s.Update(ctx, src.ID, func(m *memory.Memory) error {
		m.Links = append(m.Links, l)
		return nil
	})
}

// Remove removes the links from one memory to another: those with relation
// rel, or all of them when rel is "". With rel "supersedes" it also
// removes the other memory from the first one's supersedes: entries, the
// other way of saying the same, so that it is current again (unless
// another memory supersedes it too); with rel "" those entries stay:
// they are the history of a version, not links. Removing nothing is an
// error, so a typo is noticed.
func Remove(ctx context.Context, s *contextfs.Store, from, to, rel string) (*memory.Memory, error) {
	src, err := s.Resolve(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("unlink source: %w", err)
	}
	target := strings.TrimSpace(to)
	if t, err := s.Resolve(ctx, to); err == nil {
		target = t.ID // the target may be gone already; then match the ID as written
	}
	drop := func(l memory.Link) bool { return l.ID == target && (rel == "" || l.Rel == rel) }
	supersedes := rel == memory.RelSupersedes && slices.Contains(src.Supersedes, target)
	if !slices.ContainsFunc(src.Links, drop) && !supersedes {
		if rel == memory.RelSupersedes {
			return nil, fmt.Errorf("%s does not supersede %s: neither a supersedes: entry nor a link of rel supersedes names it", src.ID, contextfs.QuoteID(target))
		}
		if rel == "" && slices.Contains(src.Supersedes, target) {
			return nil, fmt.Errorf("%s has no link to %s; it supersedes it in its supersedes: entries, which only the relation supersedes removes (unlink --rel supersedes)", src.ID, contextfs.QuoteID(target))
		}
		return nil, fmt.Errorf("%s has no link to %s%s", src.ID, contextfs.QuoteID(target), relSuffix(rel))
	}
	return s.Update(ctx, src.ID, func(m *memory.Memory) error {
		m.Links = slices.DeleteFunc(m.Links, drop)
		if rel == memory.RelSupersedes {
			m.Supersedes = slices.DeleteFunc(m.Supersedes, func(id string) bool { return id == target })
		}
		return nil
	})
}

// isURL reports whether a link target is a URL ("https://…", "mailto:…")
// rather than a memory ID or prefix: what memory.ParseLink keeps whole.
func isURL(to string) bool {
	l, err := memory.ParseLink(to)
	return err == nil && l.ID == to && !l.IsMemory() && strings.Contains(to, ":")
}

func relSuffix(rel string) string {
	if rel == "" {
		return ""
	}
	return " (" + rel + ")"
}

// Graph is every memory in the work tree with its edges, read from the
// files (not the cache) so that it shows exactly what would be committed.
type Graph struct {
	byID map[string]*memory.Memory
	ids  []string // sorted
	in   map[string][]Edge
	// Broken lists the files that could not be read or decoded
	// ("path: message"): over the size limit, unreadable, bad syntax.
	Broken []string
}

// Edge is a directed, typed edge between two memories. Supersedes edges are
// included with Rel "supersedes", whether written as a link or in the
// supersedes list.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Rel  string `json:"rel"`
}

// Load reads every memory file of the store into a graph.
func Load(ctx context.Context, s *contextfs.Store) (*Graph, error) {
	entries, err := s.Repo.List()
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	var ms []*memory.Memory
	var broken []string
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		raw, err := s.Repo.ReadFile(e.Path)
		if err != nil {
			// One file that cannot be read (over limits.max_file_bytes,
			// unreadable, gone) leaves out its memory, not the graph.
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			broken = append(broken, readError(e.Path, err))
			continue
		}
		m, _, err := gitstore.Decode(e.Path, raw)
		if err != nil {
			broken = append(broken, err.Error())
			continue
		}
		ms = append(ms, m)
	}
	g := New(ms)
	g.Broken = broken
	return g, nil
}

// readError is a file Load could not read, as Graph.Broken lists it:
// "path: message", the path escaped for the terminal.
func readError(rel string, err error) string {
	if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
		return tl.Error() // already "path: ..."
	}
	return printable.Path(rel) + ": " + err.Error()
}

// New builds a graph from memories; a later memory with a repeated ID is
// ignored.
func New(ms []*memory.Memory) *Graph {
	g := &Graph{byID: make(map[string]*memory.Memory, len(ms)), in: map[string][]Edge{}}
	for _, m := range ms {
		if m.ID == "" || g.byID[m.ID] != nil {
			continue
		}
		g.byID[m.ID] = m
		g.ids = append(g.ids, m.ID)
	}
	slices.Sort(g.ids)
	for _, id := range g.ids {
		for _, e := range g.Out(id) {
			g.in[e.To] = append(g.in[e.To], e)
		}
	}
	return g
}

// Memory returns the memory with the given ID, or nil.
func (g *Graph) Memory(id string) *memory.Memory { return g.byID[id] }

// IDs returns every memory's ID, sorted.
func (g *Graph) IDs() []string { return slices.Clone(g.ids) }

// Out returns the memory's outgoing edges to other memories: its links,
// then its supersedes.
func (g *Graph) Out(id string) []Edge {
	m := g.byID[id]
	if m == nil {
		return nil
	}
	var out []Edge
	for _, l := range m.Links {
		if l.IsMemory() {
			out = append(out, Edge{From: id, To: l.ID, Rel: l.Rel})
		}
	}
	for _, s := range m.Supersedes {
		e := Edge{From: id, To: s, Rel: "supersedes"}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// In returns the edges that point at the memory.
func (g *Graph) In(id string) []Edge { return slices.Clone(g.in[id]) }

// Supersedes returns the IDs of the memories id supersedes, whichever
// way its file says so (memory.Memory.SupersededIDs), in the order of Out.
func (g *Graph) Supersedes(id string) []string {
	var out []string
	for _, e := range g.Out(id) {
		if e.Rel == memory.RelSupersedes && !slices.Contains(out, e.To) {
			out = append(out, e.To)
		}
	}
	return out
}

// SupersededBy returns the IDs of the memories that supersede id, sorted.
func (g *Graph) SupersededBy(id string) []string {
	var out []string
	for _, e := range g.in[id] {
		if e.Rel == memory.RelSupersedes && !slices.Contains(out, e.From) {
			out = append(out, e.From)
		}
	}
	slices.Sort(out)
	return out
}

// Neighbour is a memory reached by Walk, with the edge that reached it and
// its distance from the start.
type Neighbour struct {
	ID    string `json:"id"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
	Depth int    `json:"depth"`
	// Via is the edge that reached it; its direction says whether the link
	// points away from the start (From is nearer) or at it.
	Via Edge `json:"via"`
	// Missing is set when the edge names an ID that is not in the graph.
	Missing bool `json:"missing,omitempty"`
}

// Walk follows edges both ways from start, breadth first, up to depth
// steps (at least 1), keeping only edges of relation rel when rel is set.
// The start is not included. Results are in breadth-first order, edges in
// file order, so output is stable.
func (g *Graph) Walk(start string, depth int, rel string) []Neighbour {
	depth = max(depth, 1)
	seen := map[string]bool{start: true}
	var out []Neighbour
	frontier := []string{start}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []string
		for _, id := range frontier {
			level := len(out)
			out = reach(out, seen, id, append(g.Out(id), g.In(id)...), d, rel)
			for i := level; i < len(out); i++ {
				if m := g.byID[out[i].ID]; m != nil {
					out[i].Type, out[i].Title = m.Type, m.Title
					next = append(next, out[i].ID)
				} else {
					out[i].Missing = true
				}
			}
		}
		frontier = next
	}
	return out
}

// reach appends to out the neighbours that id's edges lead to at depth d
// and that are not seen yet (marking them seen), keeping only edges of
// relation rel when rel is set, in the order of the edges.
func reach(out []Neighbour, seen map[string]bool, id string, edges []Edge, d int, rel string) []Neighbour {
	for _, e := range edges {
		if rel != "" && e.Rel != rel {
			continue
		}
		other := e.To
		if other == id {
			other = e.From
		}
		if seen[other] {
			continue
		}
		seen[other] = true
		out = append(out, Neighbour{ID: other, Depth: d, Via: e})
	}
	return out
}

// WalkIndexed is Walk over the cache instead of the memory files: the same
// neighbours in the same order, from the edges each memory keeps as
// attributes (search.AttrLink), reading only the memories the walk
// reaches. It reads the cache as the last sync left it; the caller syncs
// (Store.Resolve does). Load reads every file (677 ms for related at 10K
// memories, growing with their number), which related, an agent's
// question, should not cost.
func WalkIndexed(ctx context.Context, s *contextfs.Store, start string, depth int, rel string) ([]Neighbour, error) {
	depth = max(depth, 1)
	seen := map[string]bool{start: true}
	var out []Neighbour
	frontier := []string{start}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		outs, err := s.LinksFrom(ctx, frontier)
		if err != nil {
			return nil, err
		}
		level := len(out)
		for _, id := range frontier {
			var edges []Edge
			for _, v := range outs[id] {
				to, r, _ := strings.Cut(v, " ")
				edges = append(edges, Edge{From: id, To: to, Rel: r})
			}
			// The values that name id as their target, by source in ID
			// order as Graph.In gives them.
			ins, err := s.LinksTo(ctx, id)
			if err != nil {
				return nil, err
			}
			for _, from := range slices.Sorted(maps.Keys(ins)) {
				for _, v := range ins[from] {
					_, r, _ := strings.Cut(v, " ")
					edges = append(edges, Edge{From: from, To: id, Rel: r})
				}
			}
			out = reach(out, seen, id, edges, d, rel)
		}
		// What the level reached: its type and title, or missing.
		if len(out) == level {
			break
		}
		var ids []string
		for _, n := range out[level:] {
			ids = append(ids, n.ID)
		}
		found, err := s.Entries(ctx, ids)
		if err != nil {
			return nil, err
		}
		var next []string
		for i := level; i < len(out); i++ {
			if r, ok := found[out[i].ID]; ok {
				out[i].Type, out[i].Title = r.Type, r.Title
				next = append(next, out[i].ID)
			} else {
				out[i].Missing = true
			}
		}
		frontier = next
	}
	return out, nil
}
