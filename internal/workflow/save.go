package workflow

import (
	"context"
	"fmt"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/aging"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// SaveRequest is a save with checks: the memory, the store it goes to and
// what to do when it repeats one.
type SaveRequest struct {
	contextfs.SaveRequest
	// Scope is the store: repo or user; "" is the type's default
	// (scope.Config.DefaultScope).
	Scope scope.Scope
	// Dedup is the policy when the memory repeats one of its type: skip,
	// update, error, allow, supersede or off; "" is the config's hygiene.dedup, else
	// skip. A name it does not know is an *InputError of field "dedup". The
	// default is the config of the store written to.
	Dedup string
}

// SaveResult is what a checked save did and found.
type SaveResult struct {
	// Action is what was done; Memory the memory written, updated or
	// (when skipped) repeated.
	Action Action
	Memory *memory.Memory
	// Scope is the store it went to; Commit the user store's commit of
	// it (empty for the repository, which the user commits).
	Scope  scope.Scope
	Commit string
	// Similar are the memories of its type it repeats; MaySupersede
	// those on the same subject it may contradict.
	Similar      []Match
	MaySupersede []Match
	// Superseded are the memories the new one supersedes by the
	// newest-wins rule (docs/HYGIENE.md): a plain change of position,
	// or, under the supersede policy, the memories it repeats.
	Superseded []Match
	// Unchecked says why the memory was compared for identical content
	// only (the embedder was unavailable).
	Unchecked string
	// SupersededProgress are the progress memories a new progress
	// replaced (one progress is current); none when nothing was written.
	SupersededProgress []string
	// Warnings are possible secrets in the file written: the pre-commit
	// hook refuses it until they are removed or allowed.
	Warnings []secrets.Finding
}

// Save saves req with the checks every adapter runs: the open session is
// stamped on it (the repository's, wherever the memory goes), a progress
// memory supersedes the current ones, then duplicates and contradictions
// are looked for and req.Dedup decides, the file is written and scanned
// for secrets, and a save to the user store is committed there.
//
// When the checks refuse the save (a *DuplicateError under the error
// policy), the result is returned with the error: what was found is for
// the caller to show.
func (s *Service) Save(ctx context.Context, req SaveRequest) (*SaveResult, error) {
	policy, err := dedup.ParsePolicy(req.Dedup)
	if err != nil {
		return nil, &InputError{Field: "dedup", Err: err}
	}
	st, sc, err := s.set.Target(ctx, req.Scope, req.SaveRequest)
	if err != nil {
		return nil, err
	}
	// The policy by default is the config of the store written to, as
	// the progress rule's is.
	if req.Dedup == "" {
		if policy, err = dedup.ParsePolicy(st.Config.Hygiene.Dedup); err != nil {
			return nil, fmt.Errorf("hygiene.dedup in %s's config: %w", st.Repo.Root, err)
		}
	}
	stamp := st
	if s.set.Repo != nil {
		stamp = s.set.Repo
	}
	r := req.SaveRequest
	if err := session.Stamp(stamp.Repo, &r); err != nil {
		return nil, err
	}
	res, err := save(ctx, st, r, policy)
	if res != nil {
		res.Scope = sc
		if err == nil && sc == scope.User && res.Action != Skipped {
			res.Commit = s.set.CommitUser(ctx, st)
		}
	}
	return res, err
}

// save runs the progress rule and the checks in st and writes, under st's
// write lock: no other save may change the memories they decide on until
// this one is written.
func save(ctx context.Context, st *contextfs.Store, req contextfs.SaveRequest, policy dedup.Policy) (*SaveResult, error) {
	ctx, unlock, err := st.LockWrites(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	prev, err := aging.SupersedeProgress(ctx, st, &req, aging.RulesOf(st.Config.Hygiene))
	if err != nil {
		return nil, err
	}
	out, err := dedup.Save(ctx, st, req, policy, dedup.DefaultThresholds)
	if out == nil {
		return nil, err
	}
	res := &SaveResult{Action: out.Action, Memory: out.Memory, Similar: out.Similar,
		MaySupersede: out.MaySupersede, Superseded: out.Superseded, Unchecked: out.Unchecked}
	if err == nil && out.Action != Skipped {
		res.SupersededProgress = prev
	}
	if out.Saved != nil {
		res.Warnings = out.Saved.Warnings
	}
	return res, err
}
