package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/contextblock"
	"github.com/contextfs/contextfs/scope"
)

// ReposInput is the argument of list_repos: with add, it registers that
// repository first, as the CLI's repos add does.
type ReposInput struct {
	Add  string `json:"add,omitempty" jsonschema:"a repository folder to register"`
	Name string `json:"name,omitempty" jsonschema:"add: its name"`
}

// addRepo registers in.Add (relative to this repository's root) when
// given, and says what it did ("" when nothing was asked).
func (sv *server) addRepo(ctx context.Context, in ReposInput) (string, error) {
	if in.Name != "" && in.Add == "" {
		return "", fmt.Errorf("name names a repository to add: give add too")
	}
	if strings.TrimSpace(in.Add) == "" {
		return "", nil
	}
	dir := in.Add
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(sv.store.Repo.Root, dir)
	}
	cfg, err := scope.LoadConfig()
	if err != nil {
		return "", err
	}
	e, err := cfg.AddRepo(ctx, dir, in.Name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("registered %s (%s) %s\n", e.Name, e.ID, e.Path), nil
}

// blockWithRepos is the context block with "From registered
// repositories": the memories of the registered repositories names (or
// all) that task finds. Built every time (contextblock.Builder keeps no
// block that reads other repositories).
func (sv *server) blockWithRepos(ctx context.Context, task string, budget int, names []string) (*contextblock.Block, error) {
	if strings.TrimSpace(task) == "" {
		return nil, fmt.Errorf("repos adds what the task finds in other repositories: give task too")
	}
	cfg, err := scope.LoadConfig()
	if err != nil {
		return nil, err
	}
	repos, err := cfg.Pick(names)
	if err != nil {
		return nil, err
	}
	changed := func(ctx context.Context, within []string) ([]string, error) {
		ch, err := sv.diff.FilesUnder(ctx, within)
		return ch.Files, err
	}
	user, err := sv.set.ExistingUser(ctx)
	if err != nil {
		user = nil
	}
	return sv.blocks.Build(ctx, sv.store, contextblock.Options{Task: task, Budget: budget, ChangedUnder: changed, User: user,
		Repos: repos, Scopes: sv.set})
}
