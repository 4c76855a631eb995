package workflow

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/contextfs/contextfs/internal/branchdiff"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/scope"
)

// Block is the context block: what an agent should know before its first
// prompt, in sections, within a token budget (docs/CONTEXT.md).
type Block = contextblock.Block

// ContextRequest is a context block.
type ContextRequest struct {
	// Task, when set, adds the memories a search for it finds.
	Task string
	// Budget is the size in estimated tokens; 0 is the config's
	// context.budget, else 2000. A negative one is an *InputError.
	Budget int
	// Repos (registered repositories' names, or "all") adds what Task
	// finds in them ("From registered repositories"); it needs a Task.
	// Off by default: other repositories' memories are not this one's
	// business unless asked (docs/SCOPES.md).
	Repos []string
}

// contextState is what the service keeps between context blocks: what
// the branch changes (with its base and merge-base while the refs are
// unchanged) and the last blocks (contextblock.Builder), so that a
// long-lived adapter (the MCP server) answers get_context again without
// building it again.
type contextState struct {
	mu     sync.Mutex
	diff   *branchdiff.Resolver
	file   string // where diff's state is kept between processes
	blocks contextblock.Builder
}

// Context is the context block of the served store, with the person's
// preferences from their own store (left out, with a warning, when it
// cannot be opened). Outside any repository it is the user store's block
// alone, and an empty one (its header only) when there is no user store
// yet: nothing is created.
func (s *Service) Context(ctx context.Context, req ContextRequest) (*Block, error) {
	if req.Budget < 0 {
		return nil, &InputError{Field: "budget", Err: errNegative(req.Budget)}
	}
	if len(req.Repos) > 0 && strings.TrimSpace(req.Task) == "" {
		return nil, &InputError{Field: "repos", Err: fmt.Errorf("adds what the task finds in other repositories: give a task too")}
	}
	st := s.Home()
	if st == nil {
		user, err := s.set.ExistingUser(ctx)
		if err != nil {
			return nil, err
		}
		if user == nil {
			return &Block{Budget: req.Budget, Estimator: contextblock.Estimator}, nil
		}
		return contextblock.Build(ctx, user, contextblock.Options{Task: req.Task, Budget: req.Budget})
	}
	user, err := s.set.ExistingUser(ctx)
	if err != nil {
		s.warnf("contextfs: the user store's preferences are left out: %v", err)
		user = nil // the repository's block is still worth having
	}
	cs := &s.context
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.diff == nil {
		// What the last command found, while nothing it came from
		// changed (the resolver checks); else git answers.
		cs.diff = branchdiff.NewResolver(st.Repo.Root, st.Repo.GitDir, st.Repo.CommonDir)
		cs.file = filepath.Join(st.CacheDir(), "branchdiff.json")
		cs.diff.Load(cs.file)
	}
	changed := func(ctx context.Context, within []string) ([]string, error) {
		ch, err := cs.diff.FilesUnder(ctx, within)
		return ch.Files, err
	}
	o := contextblock.Options{Task: req.Task, Budget: req.Budget, ChangedUnder: changed, User: user}
	if len(req.Repos) > 0 {
		// The Builder keeps no block that reads other repositories.
		cfg, err := scope.LoadConfig()
		if err != nil {
			return nil, err
		}
		if o.Repos, err = cfg.Pick(req.Repos); err != nil {
			return nil, &InputError{Field: "repos", Err: err}
		}
		o.Scopes = s.set
	}
	b, err := cs.blocks.Build(ctx, st, o)
	if err != nil {
		return nil, err
	}
	if !st.CacheReadOnly() {
		// Only a saving for the next command (written when it changed):
		// git answers if it fails.
		_ = cs.diff.Save(cs.file)
	}
	return b, nil
}

// errNegative says a number must not be negative.
func errNegative(n int) error { return fmt.Errorf("must not be negative, got %d", n) }
