package workflow

import (
	"cmp"
	"context"
	"slices"

	"github.com/contextfs/contextfs/internal/graph"
	"github.com/contextfs/contextfs/internal/links"
)

// Subgraph is a part of the memories' link graph: nodes in a stable order
// and the edges among them.
type Subgraph = graph.Graph

// GraphNode is a memory of a Subgraph.
type GraphNode = graph.Node

// LinkMapRequest is the part of a store's link graph to draw.
type LinkMapRequest struct {
	// Scope is User for the person's own store; else the repository's
	// (the user's outside any repository).
	Scope Scope
	// ID, when set, is the memory the map is drawn around, Depth links
	// both ways; else the most linked memories of the store.
	ID    string
	Depth int
	// Max caps the memories drawn (0: no cap): past a few hundred a
	// drawing is no longer read.
	Max int
}

// LinkMap is a part of a store's link graph, chosen for drawing.
type LinkMap struct {
	Graph Subgraph
	// Focus is the full ID of the request's memory; Total how many
	// memories the map had before Max cut it.
	Focus string
	Total int
	// Scope is the store drawn: Repo or User.
	Scope Scope
	// Broken are the memory files that could not be read ("path:
	// message"), left out rather than stopping the map.
	Broken []string
	// Superseded says which memories of the map another supersedes.
	Superseded map[string]bool
}

// LinkMap chooses the memories of a store's link graph to draw, from its
// files: those around req.ID, or without one the connected memories, the
// most connected first (all of them when none is linked yet), so that a
// capped map keeps the hubs. With no store to draw it is ErrNoRepo.
func (b *Browser) LinkMap(ctx context.Context, req LinkMapRequest) (*LinkMap, error) {
	st, where := b.s.set.Repo, Repo
	if req.Scope == User || st == nil {
		u, err := b.s.set.ExistingUser(ctx)
		if err != nil {
			return nil, err
		}
		if u == nil {
			return nil, ErrNoRepo
		}
		st, where = u, User
	}
	g, err := links.Load(ctx, st)
	if err != nil {
		return nil, err
	}
	m := &LinkMap{Scope: where, Broken: g.Broken, Superseded: map[string]bool{}}
	if req.ID != "" {
		mem, err := st.Resolve(ctx, req.ID)
		if err != nil {
			return nil, err
		}
		m.Focus = mem.ID
		m.Graph = graph.Around(g, mem.ID, req.Depth)
		m.Total = len(m.Graph.Nodes)
	} else {
		ids := connected(g)
		m.Total = len(ids)
		if len(ids) == 0 {
			ids = g.IDs() // nothing is linked yet: the memories alone
		}
		if req.Max > 0 && len(ids) > req.Max {
			ids = ids[:req.Max]
		}
		m.Graph = graph.Of(g, ids, nil)
	}
	if req.Max > 0 && len(m.Graph.Nodes) > req.Max {
		m.Graph = trim(m.Graph, m.Focus, req.Max)
	}
	for _, n := range m.Graph.Nodes {
		if len(g.SupersededBy(n.ID)) > 0 {
			m.Superseded[n.ID] = true
		}
	}
	return m, nil
}

// connected returns the memories of g that have an edge, the most
// connected first (then by ID).
func connected(g *links.Graph) []string {
	deg := map[string]int{}
	for _, id := range g.IDs() {
		for _, e := range g.Out(id) {
			if g.Memory(e.To) != nil {
				deg[e.From]++
				deg[e.To]++
			}
		}
	}
	ids := make([]string, 0, len(deg))
	for id := range deg {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(deg[b], deg[a]), cmp.Compare(a, b)) })
	return ids
}

// trim keeps the first limit nodes of gr (the focus among them) and the
// edges among them.
func trim(gr Subgraph, focus string, limit int) Subgraph {
	keep := map[string]bool{}
	out := Subgraph{}
	room := limit // for the others: the focus has its place
	if focus != "" {
		room--
	}
	for _, n := range gr.Nodes {
		if n.ID != focus {
			if room == 0 {
				continue
			}
			room--
		}
		keep[n.ID] = true
		out.Nodes = append(out.Nodes, n)
	}
	for _, e := range gr.Edges {
		if keep[e.From] && keep[e.To] {
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}
