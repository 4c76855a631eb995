package scope

import (
	"context"
	"runtime"
	"sync"

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
	lists := make([][]Result, len(repos))
	errs := make([]error, len(repos))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, e := range repos {
		if cur != "" && e.ID == cur {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			lists[i], errs[i] = s.searchOne(ctx, e, q)
		})
	}
	wg.Wait()
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
