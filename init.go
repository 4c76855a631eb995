package contextfs

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
)

// Init creates .contextfs/config.yaml with the commented defaults and
// registers the merge driver (git config and .gitattributes). It is
// idempotent and returns what it created or changed.
func (s *Store) Init(ctx context.Context) ([]string, error) {
	var created []string
	// Nothing is created through a link out of the repository.
	for _, rel := range []string{gitstore.Dir, gitstore.Dir + "/" + gitstore.ConfigFile, gitstore.Dir + "/" + gitstore.GitignoreFile} {
		if err := s.Repo.NoSymlink(rel); err != nil {
			return nil, err
		}
	}
	p := filepath.Join(s.Repo.MemoryDir(), gitstore.ConfigFile)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		// Missing from the work tree, not from the repository: the
		// defaults written there would replace the team's settings.
		if err := s.Repo.OutsideSparse(ctx); err != nil {
			return nil, err
		}
		if err := s.Repo.CreateFile(p, []byte(DefaultConfig)); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		created = append(created, s.Repo.Rel(p))
	}
	// Temporary files of interrupted writes are never committed.
	ign := filepath.Join(s.Repo.MemoryDir(), gitstore.GitignoreFile)
	if err := s.Repo.CreateFile(ign, []byte(gitstore.GitignoreRules)); err == nil {
		created = append(created, s.Repo.Rel(ign))
	} else if !errors.Is(err, os.ErrExist) {
		return created, err
	}
	before, _ := hooks.CheckMergeDriver(ctx, s.Repo.Root)
	if !before.Configured || !before.Attributes {
		if err := hooks.RegisterMergeDriver(ctx, s.Repo.Root); err != nil {
			return created, err
		}
		if !before.Attributes {
			created = append(created, ".gitattributes (merge=contextfs for .contextfs/**/*.md)")
		}
		if !before.Configured {
			created = append(created, "git config merge.contextfs.driver")
		}
	}
	return created, nil
}
