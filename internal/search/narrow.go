package search

import (
	"context"
	"sort"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/pathglob"
)

// Attribute keys the cache keeps for memories (see cache.Attr): the globs
// of the code a memory bears on, the tool that wrote it, its session, and
// its edges to other memories ("TARGET REL", in the order links.Graph.Out
// gives them, supersedes: entries as REL supersedes), so that what links
// to a memory, and what supersedes it, are indexed look-ups rather than a
// read of every memory file.
const (
	AttrPath    = "path"
	AttrSource  = "source"
	AttrSession = "session"
	AttrLink    = "link"
)

// Narrow restricts f to memories attached to any of files, written by the
// source tool and in the session given (each when not empty).
func Narrow(ctx context.Context, c *cache.Cache, f *cache.Filter, files []string, source, session string) error {
	if source != "" {
		f.Attrs = append(f.Attrs, cache.Attr{Key: AttrSource, Value: source})
	}
	if session != "" {
		f.Attrs = append(f.Attrs, cache.Attr{Key: AttrSession, Value: session})
	}
	if len(files) == 0 {
		return nil
	}
	// Every current memory with paths, whatever f says: the listing or
	// search that follows applies f to the IDs kept here, and this reads
	// the few memories with paths instead of testing f on every memory.
	globs, err := c.CurrentAttrs(ctx, cache.KindMemory, AttrPath)
	if err != nil {
		return err
	}
	f.MIDs = []string{}
	for mid, gs := range globs {
		if pathglob.Any(gs, files) {
			f.MIDs = append(f.MIDs, mid)
		}
	}
	sort.Strings(f.MIDs)
	return nil
}
