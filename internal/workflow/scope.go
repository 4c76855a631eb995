package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/memory"
)

// Scope names the store a workflow works in: Repo, User, or All (both,
// for reads and for finding a memory).
type Scope = scope.Scope

// The scopes.
const (
	Repo = scope.Repo // the repository's .contextfs/, shared with the team
	User = scope.User // the person's own store
	All  = scope.All  // both
)

// ParseScope reads a scope as a person or an agent writes it; "" is the
// workflow's default.
func ParseScope(s string) (Scope, error) { return scope.Parse(s) }

// Entry is a listed memory and the scope of its store.
type Entry = scope.Entry

// Result is a search hit, its scope and, for a search across registered
// repositories, the repository's name.
type Result = scope.Result

// RepoEntry is a registered repository.
type RepoEntry = scope.RepoEntry

// ForStore is the service of an adapter that serves one store it opened
// and keeps: the repository's, or outside any repository the person's own
// (then set holds the user store and no repository). Sessions and the
// context block are st's. set nil is the set around st, the user store
// opened on demand, its warnings going to warnings; Close closes only
// what the service opened.
func ForStore(st *contextfs.Store, set *scope.Set, warnings io.Writer) *Service {
	if warnings == nil {
		warnings = io.Discard
	}
	own := set == nil
	if own {
		set = scope.FromStore(st, scope.Options{Warnings: warnings})
	}
	return &Service{set: set, home: st, warn: warnings, ownSet: own}
}

// Open opens the stores of a command: the repository's around o.Dir
// (none outside a repository; then Home is nil) and, on demand, the
// user's. Warnings about stores left out go to warnings.
func Open(ctx context.Context, o contextfs.Options, warnings io.Writer) (*Service, error) {
	set, err := scope.Open(ctx, scope.Options{Store: o, Warnings: warnings})
	if err != nil {
		return nil, err
	}
	return &Service{set: set, warn: cmpWriter(warnings), ownSet: true}, nil
}

// Over is New with warnings going to warnings; Close closes set.
func Over(set *scope.Set, warnings io.Writer) *Service {
	return &Service{set: set, warn: cmpWriter(warnings), ownSet: true}
}

// cmpWriter is w, or io.Discard for nil.
func cmpWriter(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// Close closes the stores the service opened (the user store it opened
// on demand); the caller's own stay open.
func (s *Service) Close() error {
	if s.ownSet {
		return s.set.Close()
	}
	return nil
}

// Home is the store the service serves: the repository's, or the user's
// when the adapter runs outside any repository; nil when it has neither.
func (s *Service) Home() *contextfs.Store {
	if s.home != nil {
		return s.home
	}
	return s.set.Repo
}

// warnf writes one warning line for the person.
func (s *Service) warnf(format string, args ...any) {
	w := s.warn
	if w == nil {
		w = io.Discard
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// SearchRequest is a search of the stores of a scope, and of registered
// repositories.
type SearchRequest struct {
	Query contextfs.Query
	Scope Scope
	// Repos names registered repositories to search too ("all": every
	// one); none searches the scope's stores alone. A name not
	// registered is an *InputError of field "repos".
	Repos []string
	// Prepare, when set, runs before the repository's store is searched
	// (an adapter refreshes its code index there), while the registered
	// repositories are already being searched. Its error is returned,
	// and nothing else.
	Prepare func() error
}

// ErrEmptyQuery is a search for nothing: an empty or blank query, which
// every adapter refuses alike (the CLI as a usage error).
var ErrEmptyQuery = errors.New("query is empty: say in words what to look for")

// CheckQuery returns ErrEmptyQuery for a query of no words; adapters call
// it before they prepare anything for the search.
func CheckQuery(text string) error {
	if strings.TrimSpace(text) == "" {
		return ErrEmptyQuery
	}
	return nil
}

// Search runs req over its stores and merges the hits by score (package
// scope says why scores of two stores compare). A query of no words is
// ErrEmptyQuery.
func (s *Service) Search(ctx context.Context, req SearchRequest) ([]Result, error) {
	if err := CheckQuery(req.Query.Text); err != nil {
		return nil, err
	}
	if len(req.Repos) == 0 {
		if req.Prepare != nil {
			if err := req.Prepare(); err != nil {
				return nil, err
			}
		}
		return s.set.Search(ctx, req.Scope, req.Query)
	}
	repos, err := s.set.Config.Pick(req.Repos)
	if err != nil {
		return nil, &InputError{Field: "repos", Err: err}
	}
	return s.set.SearchReposPrepared(ctx, repos, req.Scope, req.Query, req.Prepare)
}

// Repo is the repository's store, nil outside any repository.
func (s *Service) Repo() *contextfs.Store { return s.set.Repo }

// User opens the person's own store, creating it on first use.
func (s *Service) User(ctx context.Context) (*contextfs.Store, error) { return s.set.User(ctx) }

// ListSeq is List one memory at a time, never holding them all; with
// several stores, one that fails is skipped with a warning.
func (s *Service) ListSeq(ctx context.Context, sc Scope, o contextfs.ListOptions) iter.Seq2[Entry, error] {
	return s.set.ListSeq(ctx, sc, o)
}

// List lists the memories of sc, newest first; with All, both stores'
// merged.
func (s *Service) List(ctx context.Context, sc Scope, o contextfs.ListOptions) ([]Entry, error) {
	return s.set.List(ctx, sc, o)
}

// Find is the memory id of sc (All: the repository's, then the user's),
// and the scope it was found in.
func (s *Service) Find(ctx context.Context, sc Scope, id string) (*memory.Memory, Scope, error) {
	m, where, _, err := s.set.Resolve(ctx, sc, id)
	return m, where, err
}

// Read is the memory id of sc as Find finds it, with its file's bytes.
func (s *Service) Read(ctx context.Context, sc Scope, id string) (*memory.Memory, Scope, []byte, error) {
	m, where, st, err := s.set.Resolve(ctx, sc, id)
	if err != nil {
		return nil, "", nil, err
	}
	raw, err := st.Repo.ReadFile(m.Path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("read %s: %w", m.Path, err)
	}
	return m, where, raw, nil
}

// RecallIndexed is the code chunk or commit of the repository that id
// names (as search gives them), after a sync; ok is false when id names
// none, or there is no repository.
func (s *Service) RecallIndexed(ctx context.Context, id string) (x *contextfs.Indexed, ok bool, err error) {
	if s.set.Repo == nil {
		return nil, false, nil
	}
	if _, err := s.set.Repo.Sync(ctx); err != nil {
		return nil, false, err
	}
	return s.set.Repo.RecallIndexed(ctx, id)
}

// DeleteResult is what Delete removed.
type DeleteResult struct {
	Memory *memory.Memory
	Scope  Scope
	// LinkedFrom are the memories whose links named it: they now name no
	// memory, which validate reports.
	LinkedFrom []string
}

// Delete deletes the memory id of sc (All finds it in either store) and
// commits the deletion in the user store.
func (s *Service) Delete(ctx context.Context, sc Scope, id string) (*DeleteResult, error) {
	var from []string
	if m, _, st, err := s.set.Resolve(ctx, sc, id); err == nil {
		from, _ = st.LinkedFrom(ctx, m.ID) // only for the warning
	}
	m, where, err := s.set.Delete(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return &DeleteResult{Memory: m, Scope: where, LinkedFrom: from}, nil
}

// RegisteredRepos are the registered repositories as the user's config
// file now lists them (another process may have registered one since the
// service started).
func RegisteredRepos() ([]RepoEntry, error) {
	cfg, err := scope.LoadConfig()
	if err != nil {
		return nil, err
	}
	return cfg.Repos, nil
}

// ExistingUser is the user store when one has been written, else nil:
// reading never creates it.
func (s *Service) ExistingUser(ctx context.Context) (*contextfs.Store, error) {
	return s.set.ExistingUser(ctx)
}

// storeOf is the store of sc that holds the memory id (All: the
// repository's first, then the user's), and its scope: the workflows that
// change or walk a memory work where it is.
func (s *Service) storeOf(ctx context.Context, sc Scope, id string) (*contextfs.Store, Scope, error) {
	_, where, st, err := s.set.Resolve(ctx, sc, id)
	if err != nil {
		return nil, "", err
	}
	return st, where, nil
}

// committed commits what a workflow wrote to the user store, which
// commits every change at once (the repository's are the person's to
// commit).
func (s *Service) committed(ctx context.Context, st *contextfs.Store, where Scope) {
	if where == User {
		s.set.CommitUser(ctx, st)
	}
}
