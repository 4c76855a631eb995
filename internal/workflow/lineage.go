package workflow

import (
	"context"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/lineage"
	"github.com/contextfs/contextfs/memory"
)

// RequestError is an evolve, merge or split request wrong in itself,
// whatever the store holds (a memory named twice, a blank or repeated
// part): the CLI reports it as a usage mistake.
type RequestError = lineage.RequestError

// Version is one memory of a supersedes chain, with its file's history.
type Version = lineage.Version

// CheckReason returns nil for "" or one of memory.Reasons, else an error
// naming them.
func CheckReason(r string) error { return lineage.CheckReason(r) }

// EvolveRequest is a new version of a memory: it supersedes the memory
// and keeps its type, tags, links and data (lineage.Evolve).
type EvolveRequest struct {
	// ID names the memory; Scope where to find it (All or "": the
	// repository's, then the user's).
	ID    string
	Scope Scope
	// Body is the new version's; Title a new title (blank keeps the old
	// one, or derives it again when the old one was derived); Reason one
	// of memory.Reasons or blank.
	Body, Title, Reason string
	// Data is merged into the data (a nil value deletes a key); data the
	// new text contradicts is refused unless KeepData.
	Data     map[string]any
	KeepData bool
}

// MergeRequest is one memory that supersedes memories of one type.
type MergeRequest struct {
	// IDs are two or more memories of one store: the first one's.
	IDs   []string
	Scope Scope
	// Body is the merged memory's; nil joins the bodies in order.
	Body *string
	Data map[string]any
}

// SplitRequest is one memory per part, each derived from ID and
// superseding it.
type SplitRequest struct {
	ID    string
	Scope Scope
	Parts []string
	Data  map[string]any
}

// Written are the memories a lineage workflow wrote and the scope of the
// store that holds them.
type Written struct {
	Memories []*memory.Memory
	Scope    Scope
}

// Evolve writes the new version req asks for, in the store that holds
// the memory, and commits it there when that is the user store.
func (s *Service) Evolve(ctx context.Context, req EvolveRequest) (*Written, error) {
	st, where, err := s.storeFor(ctx, req.Scope, req.ID)
	if err != nil {
		return nil, err
	}
	res, err := lineage.Evolve(ctx, st, req.ID, lineage.Change{Body: req.Body, Title: req.Title, Reason: req.Reason, Data: req.Data, KeepData: req.KeepData})
	if err != nil {
		return nil, err
	}
	s.committed(ctx, st, where)
	return &Written{Memories: []*memory.Memory{res.Memory}, Scope: where}, nil
}

// Merge writes the merged memory req asks for, in the store of its first
// memory, and commits it there when that is the user store.
func (s *Service) Merge(ctx context.Context, req MergeRequest) (*Written, error) {
	if len(req.IDs) == 0 {
		// No store to look in: lineage says what a merge needs.
		_, err := lineage.Merge(ctx, s.Home(), req.IDs, req.Body, req.Data)
		return nil, err
	}
	st, where, err := s.storeFor(ctx, req.Scope, req.IDs[0])
	if err != nil {
		return nil, err
	}
	res, err := lineage.Merge(ctx, st, req.IDs, req.Body, req.Data)
	if err != nil {
		return nil, err
	}
	s.committed(ctx, st, where)
	return &Written{Memories: []*memory.Memory{res.Memory}, Scope: where}, nil
}

// Split writes the parts req asks for in the store that holds the memory.
// Parts written before a failure are returned with the error, and
// committed in the user store all the same.
func (s *Service) Split(ctx context.Context, req SplitRequest) (*Written, error) {
	st, where, err := s.storeFor(ctx, req.Scope, req.ID)
	if err != nil {
		return nil, err
	}
	ms, err := lineage.Split(ctx, st, req.ID, req.Parts, req.Data)
	if len(ms) > 0 {
		s.committed(ctx, st, where)
	}
	return &Written{Memories: ms, Scope: where}, err
}

// Lineage is the supersedes chain through the memory id of sc, both ways,
// oldest first, each version with its file's git history.
func (s *Service) Lineage(ctx context.Context, sc Scope, id string) ([]Version, error) {
	st, _, err := s.storeFor(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return lineage.Lineage(ctx, st, id)
}

// SupersededBy are the memories of sc's store that supersede the memory
// id (a full ID), as the last sync left the store.
func (s *Service) SupersededBy(ctx context.Context, sc Scope, id string) ([]string, error) {
	st, _, err := s.storeFor(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return lineage.SupersededBy(ctx, st, id)
}

// Superseders maps each memory of the repository that current memories
// supersede to the IDs of those memories, as the last sync left the
// store.
func (s *Service) Superseders(ctx context.Context) (map[string][]string, error) {
	st, _, err := s.storeFor(ctx, Repo, "")
	if err != nil {
		return nil, err
	}
	return lineage.Superseders(ctx, st)
}

// storeFor is the store of a workflow on the memory id in sc: with one
// scope, that scope's store, which resolves id itself (and says what is
// wrong with a request before looking); with All or "", the store that
// holds id (the repository's first).
func (s *Service) storeFor(ctx context.Context, sc Scope, id string) (*contextfs.Store, Scope, error) {
	if sc == Repo || sc == User {
		return s.set.Target(ctx, sc, contextfs.SaveRequest{})
	}
	return s.storeOf(ctx, sc, id)
}
