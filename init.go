package contextfs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

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
	// Asking git takes three processes; the user store runs Init at every
	// open, so a registration found complete is remembered with the
	// files that decide it (hooks.MergeDriverStamp) and not asked again
	// while they are the same.
	stamp, stampOK := hooks.MergeDriverStamp(s.Repo.Root, s.Repo.GitDir, s.Repo.CommonDir, time.Now())
	if stampOK && s.cache.Meta(ctx, mergeDriverMeta) == stamp {
		return created, nil
	}
	before, _ := hooks.CheckMergeDriver(ctx, s.Repo.Root)
	if before.Configured && before.Attributes && stampOK {
		_ = s.cache.SetMeta(ctx, mergeDriverMeta, stamp) // only a saving: a read-only cache asks again
	}
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

// mergeDriverMeta is the cache's key for the stamp of a merge driver
// registration found complete (see Init).
const mergeDriverMeta = "init:mergedriver"
