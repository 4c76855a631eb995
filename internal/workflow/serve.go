package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/scope"
)

// Served is what a long-lived adapter (the MCP server) serves: the store
// it answers from and the service over it.
type Served struct {
	Service *Service
	// Store is the repository's store, or outside any repository the
	// person's own.
	Store *contextfs.Store
	// Outside says there was no repository: Store is the user store.
	Outside bool
	set     *scope.Set
}

// Close closes what OpenServed opened.
func (s *Served) Close() error {
	err := s.Service.Close()
	if s.set != nil {
		return errors.Join(err, s.set.Close()) // and the user store with it
	}
	return errors.Join(err, s.Store.Close())
}

// OpenServed opens the store a long-lived adapter serves: the repository's
// around o.Dir, or, outside any repository (an agent started in a home
// folder), the person's own store alone, created if there is none yet, so
// that an agent's memory tools work wherever it runs.
func OpenServed(ctx context.Context, o contextfs.Options, warnings io.Writer) (*Served, error) {
	warnings = cmpWriter(warnings)
	st, err := contextfs.Open(ctx, o)
	switch {
	case errors.Is(err, gitstore.ErrNotRepo):
		uo := o
		uo.StartWatcher = nil // no work tree to watch
		set, err := scope.Open(ctx, scope.Options{Store: uo, Warnings: warnings})
		if err != nil {
			return nil, err
		}
		user, err := set.User(ctx)
		if err != nil {
			set.Close()
			return nil, fmt.Errorf("not in a git repository, and the user store: %w", err)
		}
		return &Served{Service: ForStore(user, set, warnings), Store: user, Outside: true, set: set}, nil
	case err != nil:
		return nil, err
	}
	return &Served{Service: ForStore(st, nil, warnings), Store: st}, nil
}
