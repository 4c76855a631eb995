package workflow

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/scope"
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
	cfg, err := scope.LoadConfig()
	if err != nil {
		return RepoEntry{}, err
	}
	e, err := cfg.AddRepo(ctx, dir, name)
	if err != nil {
		return RepoEntry{}, err
	}
	return e, nil
}
