package scope

import (
	"context"

	"github.com/contextfs/contextfs"
)

// SearchRegistered searches the registered repositories repos and nothing
// else: not the current repository (a registered clone of it is left
// out, its memories are the set's own) and not the user store. It is what
// the context block adds from other repositories (contextblock's
// Options.Repos). A repository that is missing or cannot be searched is
// warned about and skipped, as SearchRepos does; the results are merged
// to q's limit, memories first.
func (s *Set) SearchRegistered(ctx context.Context, repos []RepoEntry, q contextfs.Query) ([]Result, error) {
	var cur string
	if s.Repo != nil {
		cur = RepoID(ctx, s.Repo.Repo.Root)
	}
	skip := func(i int) bool { return cur != "" && repos[i].ID == cur }
	opened, atts := s.openRegistered(ctx, repos, skip, q)
	defer closeRegistered(opened)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(atts) > 1 {
		q.Shared = contextfs.ShareKeywordStats(atts...)
	}
	lists, errs := s.searchRegistered(ctx, repos, opened, q)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			s.warnf("repository %s skipped: %v", repos[i].Name, err)
			lists[i] = nil
		}
	}
	return Merge(q.Limit, lists...), nil
}
