package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/lineage"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/memory"
)

// RecallRequest is a memory read whole, or a code chunk or commit by the
// ID search gave it, with what is around a memory.
type RecallRequest struct {
	ID    string
	Scope Scope
	// Depth adds the memories up to this many links away (only links of
	// relation Rel when it is set); Lineage adds its versions.
	Depth   int
	Rel     string
	Lineage bool
	// Indexed lets ID name a code chunk or a commit of the repository.
	Indexed bool
}

// Recalled is what Recall read.
type Recalled struct {
	// Indexed is the code chunk or commit ID named, when it named one;
	// then the other fields are empty.
	Indexed *contextfs.Indexed
	// Memory is the memory, Scope its store's, Raw its file's bytes.
	Memory *memory.Memory
	Scope  Scope
	Raw    []byte
	// Related and Versions are what Depth and Lineage asked for.
	Related  []Neighbour
	Versions []Version
}

// Recall reads what req names. A negative depth or an unknown relation is
// an *InputError.
func (s *Service) Recall(ctx context.Context, req RecallRequest) (*Recalled, error) {
	if req.Depth < 0 {
		return nil, &InputError{Field: "depth", Err: fmt.Errorf("must be 0 (no linked memories) or more, not %d", req.Depth)}
	}
	if req.Rel != "" {
		if err := links.CheckRel(req.Rel); err != nil {
			return nil, &InputError{Field: "rel", Err: err}
		}
	}
	if req.Indexed && req.Scope != User {
		x, ok, err := s.RecallIndexed(ctx, strings.TrimSpace(req.ID))
		if err != nil {
			return nil, err
		}
		if ok {
			return &Recalled{Indexed: x}, nil
		}
	}
	m, where, st, err := s.set.Resolve(ctx, req.Scope, req.ID)
	if err != nil {
		return nil, err
	}
	raw, err := st.Repo.ReadFile(m.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", m.Path, err)
	}
	out := &Recalled{Memory: m, Scope: where, Raw: raw}
	if req.Depth > 0 {
		if out.Related, err = links.WalkIndexed(ctx, st, m.ID, req.Depth, req.Rel); err != nil {
			return nil, err
		}
	}
	if req.Lineage {
		if out.Versions, err = lineage.Lineage(ctx, st, m.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}
