package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// maxGraphNodes caps the memories one drawing shows: past a few hundred a
// drawing of circles is no longer read, and the layout's cost grows with
// the square of the count.
const maxGraphNodes = 150

// graphData is the graph page: a drawing laid out here, in SVG, and the
// same edges as a list.
type graphData struct {
	SVG          svgGraph
	Focus        string
	FocusHref    string
	Depth        int
	Shown, Total int
	Edges        []edgeView
	Broken       []string
	Store, Where string
	// Types are the types drawn, for the legend.
	Types []string
}

// PageTitle names the page.
func (d graphData) PageTitle() string {
	if d.Focus != "" {
		return "Graph around " + d.Focus
	}
	return "Graph"
}

// edgeView is an edge with both ends' titles, for the list under the
// drawing.
type edgeView struct {
	From, To linkView
	Rel      string
}

// svgGraph is a laid-out drawing: nodes at their places and straight
// edges between them, in a W×H view box.
type svgGraph struct {
	W, H  int
	Nodes []svgNode
	Edges []svgEdge
}

// svgNode is a memory drawn as a circle with a label, linked to its page.
type svgNode struct {
	ID, Label, Title, Type, Href string
	X, Y, LX, LY                 string // centre and label position, formatted
	Missing, Focus, Old          bool
}

// svgEdge is a line from one node's rim to another's; Supersedes edges
// are drawn dashed.
type svgEdge struct {
	X1, Y1, X2, Y2 string
	Rel            string
	Supersedes     bool
}

func (v *viewer) graph(ctx context.Context, r *http.Request) (any, error) {
	p := r.URL.Query()
	sc, err := workflow.ParseScope(p.Get("scope"))
	if err != nil {
		return nil, badRequest{fmt.Errorf("scope: %w", err)}
	}
	depth := 2
	if s := p.Get("depth"); s != "" {
		if depth, err = strconv.Atoi(s); err != nil || depth < 1 || depth > 5 {
			return nil, badRequest{fmt.Errorf("depth %q: a number from 1 to 5", s)}
		}
	}
	m, err := v.browse.LinkMap(ctx, workflow.LinkMapRequest{Scope: sc, ID: p.Get("id"), Depth: depth, Max: maxGraphNodes})
	if errors.Is(err, workflow.ErrNoRepo) {
		return nil, errNoRepository
	}
	if err != nil {
		return nil, err
	}
	d := graphData{Depth: depth, Store: "repository", Broken: m.Broken, Total: m.Total, Focus: m.Focus}
	if m.Scope == workflow.User {
		d.Store, d.Where = "user store", "scope=user"
	}
	where := d.Where
	if d.Focus != "" {
		d.FocusHref = memoryURL(d.Focus, where)
	}
	gr := m.Graph
	d.Shown = len(gr.Nodes)
	d.SVG = layout(gr, d.Focus, where, func(id string) bool { return m.Superseded[id] })
	for _, n := range gr.Nodes {
		if !slices.Contains(d.Types, n.Type) && n.Type != "" {
			d.Types = append(d.Types, n.Type)
		}
	}
	slices.Sort(d.Types)
	byID := map[string]workflow.GraphNode{}
	for _, n := range gr.Nodes {
		byID[n.ID] = n
	}
	lv := func(id string) linkView {
		n := byID[id]
		return linkView{ID: id, Type: n.Type, Title: n.Title, Missing: n.Missing, Href: memoryURL(id, where)}
	}
	for _, e := range gr.Edges {
		d.Edges = append(d.Edges, edgeView{From: lv(e.From), To: lv(e.To), Rel: e.Rel})
	}
	return d, nil
}

// nodeRadius is the radius of a drawn memory.
const nodeRadius = 9

// layout places the nodes of gr by a force-directed layout (Fruchterman
// and Reingold: edges pull, every pair pushes, a weak pull to the centre
// keeps separate groups in view), from a circle in node order, so that a
// graph is always drawn the same way. It runs in the server: the page
// needs no script. old says which memories are superseded (drawn faded).
func layout(gr workflow.Subgraph, focus, where string, old func(id string) bool) svgGraph {
	n := len(gr.Nodes)
	w := 960.0
	h := math.Round(math.Max(480, math.Min(1400, 120*math.Sqrt(float64(n)))))
	out := svgGraph{W: int(w), H: int(h)}
	if n == 0 {
		return out
	}
	idx := map[string]int{}
	xs, ys := make([]float64, n), make([]float64, n)
	for i, node := range gr.Nodes {
		idx[node.ID] = i
		a := 2 * math.Pi * float64(i) / float64(n)
		xs[i], ys[i] = w/2+w/3*math.Cos(a), h/2+h/3*math.Sin(a)
	}
	type pair struct{ a, b int }
	var edges []pair
	for _, e := range gr.Edges {
		a, okA := idx[e.From]
		b, okB := idx[e.To]
		if okA && okB && a != b {
			edges = append(edges, pair{a, b})
		}
	}
	k := math.Sqrt(w * h / float64(n)) // the ideal distance between nodes
	temp := w / 8
	const rounds = 200
	dx, dy := make([]float64, n), make([]float64, n)
	for round := 0; round < rounds && n > 1; round++ {
		clear(dx)
		clear(dy)
		for i := range n {
			for j := i + 1; j < n; j++ {
				ex, ey := xs[i]-xs[j], ys[i]-ys[j]
				dist := math.Max(math.Hypot(ex, ey), 0.01)
				f := k * k / dist
				dx[i] += ex / dist * f
				dy[i] += ey / dist * f
				dx[j] -= ex / dist * f
				dy[j] -= ey / dist * f
			}
		}
		for _, e := range edges {
			ex, ey := xs[e.a]-xs[e.b], ys[e.a]-ys[e.b]
			dist := math.Max(math.Hypot(ex, ey), 0.01)
			f := dist * dist / k
			dx[e.a] -= ex / dist * f
			dy[e.a] -= ey / dist * f
			dx[e.b] += ex / dist * f
			dy[e.b] += ey / dist * f
		}
		for i := range n {
			dx[i] -= (xs[i] - w/2) * 0.05 * k / 10
			dy[i] -= (ys[i] - h/2) * 0.05 * k / 10
			d := math.Max(math.Hypot(dx[i], dy[i]), 0.01)
			xs[i] += dx[i] / d * math.Min(d, temp)
			ys[i] += dy[i] / d * math.Min(d, temp)
		}
		temp *= 0.97
	}
	// Fit the drawing into the view box, leaving room for labels.
	minX, maxX, minY, maxY := xs[0], xs[0], ys[0], ys[0]
	for i := range n {
		minX, maxX = math.Min(minX, xs[i]), math.Max(maxX, xs[i])
		minY, maxY = math.Min(minY, ys[i]), math.Max(maxY, ys[i])
	}
	const mx, my = 110.0, 30.0
	fit := func(v, lo, hi, size, margin float64) float64 {
		if hi-lo < 1 {
			return size / 2
		}
		return margin + (v-lo)/(hi-lo)*(size-2*margin)
	}
	for i := range n {
		xs[i], ys[i] = fit(xs[i], minX, maxX, w, mx), fit(ys[i], minY, maxY, h, my)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for i, node := range gr.Nodes {
		title := node.Title
		if node.Missing {
			title = "(no such memory)"
		}
		out.Nodes = append(out.Nodes, svgNode{ID: node.ID, Title: title, Type: cmp.Or(node.Type, "missing"), Label: cut(title, 28),
			Href: memoryURL(node.ID, where), X: f(xs[i]), Y: f(ys[i]), LX: f(xs[i]), LY: f(ys[i] + nodeRadius + 12),
			Missing: node.Missing, Focus: node.ID == focus, Old: old(node.ID)})
	}
	for _, e := range gr.Edges {
		a, okA := idx[e.From]
		b, okB := idx[e.To]
		if !okA || !okB || a == b {
			continue
		}
		ex, ey := xs[b]-xs[a], ys[b]-ys[a]
		dist := math.Max(math.Hypot(ex, ey), 0.01)
		// From rim to rim, so that the arrowhead is not under the circle.
		ux, uy := ex/dist, ey/dist
		out.Edges = append(out.Edges, svgEdge{Rel: e.Rel, Supersedes: e.Rel == memory.RelSupersedes,
			X1: f(xs[a] + ux*nodeRadius), Y1: f(ys[a] + uy*nodeRadius),
			X2: f(xs[b] - ux*(nodeRadius+3)), Y2: f(ys[b] - uy*(nodeRadius+3))})
	}
	return out
}

// cut shortens s to at most n characters, with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
