package contextfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/watch"
)

// Watch modes (config watch.mode, or CONTEXTFS_WATCH).
const (
	WatchAuto = config.WatchAuto
	WatchOn   = config.WatchOn
	WatchOff  = config.WatchOff
)

// WatchAutoFiles is the repository size, in memory files, from which the
// auto mode starts a watcher: below it a command's check of every file
// costs a few milliseconds, not worth a background process.
const WatchAutoFiles = 10000

// watchTokenKey is where the cache keeps the watcher's last token.
const watchTokenKey = "watch:token"

// WatchSocket is where this work tree's watcher listens: in the cache
// directory, so worktrees each have their own.
func (s *Store) WatchSocket() string { return WatchSocketOf(s.Repo) }

// WatchSocketOf is where the watcher of repo listens, found without
// opening the store: a command asks it for a warm answer before paying
// for the store's opening.
func WatchSocketOf(repo *gitstore.Repo) string {
	return filepath.Join(repo.GitDir, "contextfs", "watch.sock")
}

// WatchMode is the effective watch mode: CONTEXTFS_WATCH, else the config,
// else auto. Open has checked both.
func (s *Store) WatchMode() string {
	if m := strings.ToLower(strings.TrimSpace(os.Getenv("CONTEXTFS_WATCH"))); m != "" {
		return m
	}
	if s.Config.Watch.Mode != "" {
		return s.Config.Watch.Mode
	}
	return WatchAuto
}

// checkWatchEnv rejects a CONTEXTFS_WATCH the config would not accept.
func checkWatchEnv() error {
	switch m := strings.ToLower(strings.TrimSpace(os.Getenv("CONTEXTFS_WATCH"))); m {
	case "", WatchAuto, WatchOn, WatchOff:
		return nil
	default:
		return fmt.Errorf("CONTEXTFS_WATCH must be auto, on or off, not %q", m)
	}
}

// WatchIdle is how long a watcher started for this repository waits for a
// command before it exits.
func (s *Store) WatchIdle() time.Duration {
	if d, err := time.ParseDuration(s.Config.Watch.Idle); err == nil && d > 0 {
		return d
	}
	return watch.DefaultIdle
}

// WatchOptions are the ServeOptions of this work tree's watcher.
func (s *Store) WatchOptions() watch.ServeOptions {
	return watch.ServeOptions{Root: s.Repo.Root, Dir: gitstore.Dir, Socket: s.WatchSocket(), Idle: s.WatchIdle()}
}

// memoryFiles returns the memory files to sync and, when a watcher says
// which files may have changed, only those (with only naming every path
// the sync must consider, including the deleted), and the watcher's new
// token to store once the sync succeeded ("" if there is none, or it is
// the one stored). Without a watcher, or when it cannot vouch for its
// answer, it lists every file (only is nil).
func (s *Store) memoryFiles(ctx context.Context) (entries []gitstore.Entry, only map[string]bool, token string, err error) {
	mode := s.WatchMode()
	if mode == WatchOff {
		entries, err = s.Repo.List()
		return entries, nil, "", err
	}
	stored := s.cache.Meta(ctx, watchTokenKey)
	ch, qerr := watch.Query(ctx, s.WatchSocket(), stored)
	if ch.Token == stored {
		ch.Token = ""
	}
	if qerr != nil || ch.Full {
		// Everything, listed after the answer: changes made from now on
		// are numbered after its token.
		if entries, err = s.Repo.List(); err != nil {
			return nil, nil, "", err
		}
		if errors.Is(qerr, watch.ErrNotRunning) && s.startWatcher != nil && (mode == WatchOn || len(entries) >= WatchAutoFiles) {
			if err := s.startWatcher(s.Repo.Root); err != nil && !errors.Is(err, watch.ErrUnsupported) {
				fmt.Fprintf(s.notes, "contextfs: could not start the change watcher: %v\n", err)
			}
		}
		return entries, nil, ch.Token, nil
	}
	only = map[string]bool{}
	var stat []string
	for _, p := range ch.Paths {
		if gitstore.IsMemoryPath(p) {
			only[p] = true
			stat = append(stat, p)
		}
	}
	entries = s.Repo.StatPaths(stat)
	for _, pre := range ch.Prefixes {
		if pre != gitstore.Dir && !strings.HasPrefix(pre, gitstore.Dir+"/") {
			continue
		}
		known, err := s.cache.KnownUnder(ctx, cache.KindMemory, pre+"/")
		if err != nil {
			return nil, nil, "", err
		}
		for _, p := range known {
			only[p] = true
		}
		under, err := s.Repo.ListUnder(pre)
		if err != nil {
			return nil, nil, "", err
		}
		for _, e := range under {
			if !only[e.Path] {
				only[e.Path] = true
				entries = append(entries, e)
			}
		}
	}
	slices.SortFunc(entries, func(a, b gitstore.Entry) int { return strings.Compare(a.Path, b.Path) })
	entries = slices.CompactFunc(entries, func(a, b gitstore.Entry) bool { return a.Path == b.Path })
	return entries, only, ch.Token, nil
}
