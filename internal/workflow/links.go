package workflow

import (
	"context"

	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/memory"
)

// Neighbour is a memory reached by following links from another, with
// the edge that reached it and its distance.
type Neighbour = links.Neighbour

// CheckRel returns nil when rel is a relation of memory.Relations, else
// an error listing them.
func CheckRel(rel string) error { return links.CheckRel(rel) }

// LinkRequest is a link from one memory to another memory (an ID or a
// unique prefix) or a URL, with a relation ("" is related; for Unlink,
// every relation).
type LinkRequest struct {
	From, To, Rel string
	// Scope is where From is found (All or "": the repository's, then
	// the user's); To is looked up in the same store.
	Scope Scope
}

// Linked is the memory a link workflow changed, as it now is, and the
// scope of its store.
type Linked struct {
	Memory *memory.Memory
	Scope  Scope
	// Target is the ID of the memory linked to (Link only; "" for a URL),
	// and TargetSupersededBy the memories that supersede it, when it is
	// an old version (Notice says so).
	Target             string
	TargetSupersededBy []string
}

// Link adds the link req asks for to From's file (a link already there
// changes nothing) and commits it in the user store.
func (s *Service) Link(ctx context.Context, req LinkRequest) (*Linked, error) {
	st, where, err := s.storeFor(ctx, req.Scope, req.From)
	if err != nil {
		return nil, err
	}
	m, err := links.Add(ctx, st, req.From, req.To, req.Rel)
	if err != nil {
		return nil, err
	}
	s.committed(ctx, st, where)
	res := &Linked{Memory: m, Scope: where}
	if t, err := st.Resolve(ctx, req.To); err == nil {
		res.Target = t.ID
		if res.TargetSupersededBy, err = supersededTarget(ctx, st, m.ID, t.ID); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Unlink removes From's links to To (of relation Rel; with supersedes,
// the supersedes: entry too) and commits it in the user store. Removing
// nothing is an error.
func (s *Service) Unlink(ctx context.Context, req LinkRequest) (*Linked, error) {
	st, where, err := s.storeFor(ctx, req.Scope, req.From)
	if err != nil {
		return nil, err
	}
	m, err := links.Remove(ctx, st, req.From, req.To, req.Rel)
	if err != nil {
		return nil, err
	}
	s.committed(ctx, st, where)
	return &Linked{Memory: m, Scope: where}, nil
}

// Related are the memories up to depth links away from the memory id of
// sc, both ways (only links of relation rel when it is set), breadth
// first, from the store's index.
func (s *Service) Related(ctx context.Context, sc Scope, id string, depth int, rel string) ([]Neighbour, error) {
	m, _, st, err := s.set.Resolve(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return links.WalkIndexed(ctx, st, m.ID, depth, rel)
}
