// Package workflow is the one place the workflows of contextfs run end to
// end, for every adapter: the CLI, the MCP server and Go callers parse
// their inputs into its requests, call it, and format what it returns.
// Before it, each adapter ran "save with checks" and "update" itself, and
// they drifted (docs/ARCHITECTURE.md, "The service").
//
// It owns save with checks (Save: progress aging, duplicates and
// contradictions, secrets, supersedes, the session stamp, the user
// store's commit), update as a patch (Update: an UpdatePatch that changes
// nothing writes nothing), evolve, merge and split, links, recall,
// sessions, the context block, review, search, list and delete across
// scopes, the graph, import and export, the agent hooks' capture, status
// and doctor, and prune: one file each. The rule for the default branch
// that review and the context block compare with is
// branchdiff.DefaultBranch, named here as DefaultBranch.
package workflow

import (
	"context"
	"fmt"
	"io"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/branchdiff"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/scope"
)

// Service runs the workflows over a set of stores: the repository's, the
// user's and the registered repositories (scope.Set). An adapter makes
// one per set it opens; what it keeps between calls is the context
// block's state (context.go), for a long-lived adapter.
type Service struct {
	set *scope.Set
	// home is the store the adapter serves (ForStore), when it is not
	// set.Repo: the user store, outside any repository.
	home *contextfs.Store
	// warn receives warnings (a store left out); ownSet says Close
	// closes set.
	warn   io.Writer
	ownSet bool
	// context is the context block's state.
	context contextState
}

// New returns the service over set. The caller keeps ownership of set and
// closes it.
func New(set *scope.Set) *Service {
	return &Service{set: set}
}

// InputError is a request the service refuses before doing anything: a
// field holds a value it does not take. Field is the request's name for
// it ("dedup"), which an adapter maps to its own (a flag, a tool
// argument).
type InputError struct {
	Field string
	Err   error
}

// Error says which field and what is wrong with it.
func (e *InputError) Error() string { return fmt.Sprintf("%s: %v", e.Field, e.Err) }

// Unwrap returns the reason.
func (e *InputError) Unwrap() error { return e.Err }

// Action is what a checked save did: saved, skipped or updated.
type Action = dedup.Action

// The actions of Save.
const (
	Saved   = dedup.Saved   // a new file was written
	Skipped = dedup.Skipped // nothing was written; the memory is the existing one
	Updated = dedup.Updated // the existing memory took the new content
)

// Match is an existing memory a save repeats or may replace.
type Match = dedup.Match

// DuplicateError is a save refused by the error policy.
type DuplicateError = dedup.DuplicateError

// ErrNoDefaultBranch is DefaultBranch's answer in a repository without
// any of the refs the rule looks for.
var ErrNoDefaultBranch = branchdiff.ErrNoDefaultBranch

// ErrNoRepo is a workflow of the repository's store asked outside any
// repository (its message names the CLI's --scope user).
var ErrNoRepo = scope.ErrNoRepo

// DefaultBranch names the branch that review and the context block
// compare a branch with: origin/HEAD, main, master, origin/main,
// origin/master, then the upstream (branchdiff.DefaultBranch).
func DefaultBranch(ctx context.Context, root string) (string, error) {
	return branchdiff.DefaultBranch(ctx, root)
}
