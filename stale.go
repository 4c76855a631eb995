package contextfs

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/pathglob"
	"github.com/contextfs/contextfs/internal/search"
)

// MayBeStale returns which of the memories ids may be stale: a file that
// their paths: cover was committed after the memory itself last changed
// (the later of its updated: and the last commit of its own file, so that
// a memory committed with its code is not stale by its own commit). Only
// commits count: an edit not yet committed is work in progress.
//
// It is cheap enough for every context block: the memories' globs come
// from the index, a memory without paths: costs nothing, and when some
// have them one git log answers for all, over the folders their globs lie
// in (pathglob.Roots) and only back to the oldest of them. Memories the
// index does not know are left out.
func (s *Store) MayBeStale(ctx context.Context, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	globsOf, err := s.cache.CurrentAttrs(ctx, cache.KindMemory, search.AttrPath)
	if err != nil {
		return nil, fmt.Errorf("may be stale: %w", err)
	}
	type attached struct {
		id, path string
		globs    []string
		since    time.Time // when the memory last changed
	}
	var ms []attached
	var globs []string
	var oldest time.Time
	for _, id := range ids {
		gs := globsOf[id]
		if len(gs) == 0 {
			continue
		}
		rows, err := s.cache.ResolveID(ctx, cache.KindMemory, id)
		if err != nil {
			return nil, fmt.Errorf("may be stale: %w", err)
		}
		i := slices.IndexFunc(rows, func(r cache.Row) bool { return r.MID == id })
		if i < 0 {
			continue
		}
		r := rows[i]
		ms = append(ms, attached{id: id, path: r.Path, globs: gs, since: r.Updated})
		globs = append(globs, gs...)
		if oldest.IsZero() || r.Updated.Before(oldest) {
			oldest = r.Updated
		}
	}
	if len(ms) == 0 {
		return nil, nil
	}
	// In a repository without commits git log fails: nothing is stale.
	if s.Repo.HeadCommit(ctx) == "" {
		return nil, nil
	}
	args := []string{"-c", "core.quotePath=false", "log", "--no-merges", "--format=%x01%ct", "--name-only"}
	if oldest.Unix() > 0 { // a memory without updated: looks at all of history
		args = append(args, "--since=@"+strconv.FormatInt(oldest.Unix(), 10))
	}
	args = append(args, "HEAD")
	if roots := pathglob.Roots(globs); roots != nil {
		args = append(args, "--")
		for _, p := range roots {
			args = append(args, ":(literal)"+p)
		}
		for _, m := range ms {
			args = append(args, ":(literal)"+m.path)
		}
	}
	out, err := git.Run(ctx, s.Repo.Root, args...)
	if err != nil {
		// An unborn branch or a shallow clone's edge: no answer is no flag.
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, nil
	}
	type commit struct {
		at    time.Time
		files []string
	}
	var commits []commit // newest first
	for _, rec := range bytes.Split(out, []byte{1}) {
		lines := strings.Split(strings.TrimSpace(string(rec)), "\n")
		secs, err := strconv.ParseInt(strings.TrimSpace(lines[0]), 10, 64)
		if err != nil {
			continue
		}
		c := commit{at: time.Unix(secs, 0)}
		for _, f := range lines[1:] {
			if f = strings.TrimSpace(f); f != "" {
				c.files = append(c.files, f)
			}
		}
		commits = append(commits, c)
	}
	stale := map[string]bool{}
	for _, m := range ms {
		// Newest first, down to the memory's own last commit: the log's
		// order, not commit times, which have one-second steps, so code
		// committed in the same second just after the memory counts.
		// updated: bounds by time only when it is later than that commit
		// (an edit since, or a memory never committed).
		own := slices.IndexFunc(commits, func(c commit) bool { return slices.Contains(c.files, m.path) })
		byTime := own < 0 || m.since.After(commits[own].at)
		for i, c := range commits {
			if i == own || byTime && !c.at.After(m.since) {
				break
			}
			if slices.ContainsFunc(c.files, func(f string) bool { return !gitstore.IsMemoryPath(f) && pathglob.Any(m.globs, []string{f}) }) {
				stale[m.id] = true
				break
			}
		}
	}
	return stale, nil
}
