package scope

import (
	"context"
	"runtime"
	"sync"

	"github.com/contextfs/contextfs"
)

// registered is a registered repository opened for a search across
// stores: its store, whether phase one synced it (it is then searched
// without syncing again), or why it cannot be searched.
type registered struct {
	st     *contextfs.Store
	synced bool
	err    error
}

// openRegistered opens the registered repositories repos that skip does
// not leave out, in parallel (one per core: each is CPU-bound in SQLite),
// syncs each and returns what each attains of q: phase one of a search
// across stores (shareScale). A repository whose ranking fails here adds
// nothing and is synced again by its search, which reports the error.
// The caller closes the stores (closeRegistered).
func (s *Set) openRegistered(ctx context.Context, repos []RepoEntry, skip func(int) bool, q contextfs.Query) ([]registered, []contextfs.Attainable) {
	out := make([]registered, len(repos))
	atts := make([]contextfs.Attainable, len(repos))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, e := range repos {
		if skip(i) {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &out[i]
			if r.st, r.err = s.openOne(ctx, e); r.err != nil {
				return
			}
			if a, err := r.st.Attainable(ctx, q); err == nil {
				atts[i], r.synced = a, true
			}
		})
	}
	wg.Wait()
	return out, atts
}

// searchRegistered searches the opened repositories with q, in parallel,
// and tags their hits with the repositories' names; errs[i] is why
// repository i was not searched (nil: searched, or left out).
func (s *Set) searchRegistered(ctx context.Context, repos []RepoEntry, opened []registered, q contextfs.Query) (lists [][]Result, errs []error) {
	lists, errs = make([][]Result, len(repos)), make([]error, len(repos))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, r := range opened {
		if r.err != nil {
			errs[i] = r.err
			continue
		}
		if r.st == nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			search := r.st.Search
			if r.synced {
				search = r.st.SearchIndexed
			}
			res, err := search(ctx, q)
			lists[i], errs[i] = tag(res, Repo, repos[i].Name), err
		})
	}
	wg.Wait()
	return lists, errs
}

func closeRegistered(opened []registered) {
	for _, r := range opened {
		if r.st != nil {
			r.st.Close()
		}
	}
}

// attainable is what the stores sts attain of q, syncing each (phase
// one); synced[i] says store i was synced and ranked.
func attainable(ctx context.Context, sts []*contextfs.Store, q contextfs.Query) (as []contextfs.Attainable, synced []bool) {
	synced = make([]bool, len(sts))
	for i, st := range sts {
		if a, err := st.Attainable(ctx, q); err == nil {
			as, synced[i] = append(as, a), true
		}
	}
	return as, synced
}
