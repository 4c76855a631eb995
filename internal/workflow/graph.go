package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/internal/graph"
	"github.com/contextfs/contextfs/internal/links"
)

// GraphFormats are the formats a graph is drawn in: mermaid (which GitHub
// renders), dot (Graphviz) and json.
func GraphFormats() []string { return graph.Formats() }

// GraphRequest is a drawing of memories and their typed links.
type GraphRequest struct {
	// ID, when set, draws the memories within Depth links of it (both
	// ways); else every memory of the repository.
	ID    string
	Depth int
	// Format is one of GraphFormats.
	Format string
}

// Drawing is a graph drawn, and the memory files left out of it.
type Drawing struct {
	Text []byte
	// LeftOut are the files that could not be read ("path: message"),
	// named rather than allowed to stop the drawing.
	LeftOut []string
}

// Graph draws the repository's memories as req asks, read from the files
// (not the index), so that it shows exactly what would be committed. An
// unknown format or a depth below 1 is an *InputError. The files left
// out are returned with an error too.
func (s *Service) Graph(ctx context.Context, req GraphRequest) (*Drawing, error) {
	if !slices.Contains(graph.Formats(), req.Format) {
		return nil, &InputError{Field: "format", Err: fmt.Errorf("%q: use %s", req.Format, strings.Join(graph.Formats(), ", "))}
	}
	if req.Depth < 1 {
		return nil, &InputError{Field: "depth", Err: errors.New("must be at least 1")}
	}
	st, _, err := s.storeFor(ctx, Repo, "")
	if err != nil {
		return nil, err
	}
	g, err := links.Load(ctx, st)
	if err != nil {
		return nil, err
	}
	d := &Drawing{LeftOut: g.Broken}
	start := ""
	if req.ID != "" {
		m, err := st.Resolve(ctx, req.ID)
		if err != nil {
			return d, err
		}
		start = m.ID
	}
	var b bytes.Buffer
	if err := graph.Write(&b, graph.Around(g, start, req.Depth), req.Format); err != nil {
		return d, err
	}
	d.Text = b.Bytes()
	return d, nil
}
