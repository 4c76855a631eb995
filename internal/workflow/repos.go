package workflow

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/internal/scope"
)

// AddRepo registers the repository at dir (relative to the served
// repository's root when not absolute) under name ("" derives one), as
// `git contextfs repos add` does, and returns its entry.
func (s *Service) AddRepo(ctx context.Context, dir, name string) (RepoEntry, error) {
	if strings.TrimSpace(dir) == "" {
		return RepoEntry{}, &InputError{Field: "add", Err: fmt.Errorf("names no folder")}
	}
	if !filepath.IsAbs(dir) {
		if st := s.Home(); st != nil && st.Repo != nil {
			dir = filepath.Join(st.Repo.Root, dir)
		}
	}
	return AddRepo(ctx, dir, name)
}

// AddRepo registers the repository at dir under name ("" derives one
// from its remote URL or folder) in the user's config file.
func AddRepo(ctx context.Context, dir, name string) (RepoEntry, error) {
	cfg, err := scope.LoadConfig()
	if err != nil {
		return RepoEntry{}, err
	}
	return cfg.AddRepo(ctx, dir, name)
}

// RemoveRepo unregisters a repository by its registered name or, when no
// repository has that name, by its folder: pathOf turns the argument into
// the folder the person meant (relative to where they run).
func RemoveRepo(ctx context.Context, arg string, pathOf func(string) string) (RepoEntry, error) {
	cfg, err := scope.LoadConfig()
	if err != nil {
		return RepoEntry{}, err
	}
	if !slices.ContainsFunc(cfg.Repos, func(e RepoEntry) bool { return e.Name == arg }) {
		arg = pathOf(arg)
	}
	return cfg.RemoveRepo(ctx, arg)
}
