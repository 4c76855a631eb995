package scope

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// Result is a search hit and where it came from.
type Result struct {
	contextfs.Result
	Scope Scope `json:"scope"`
	// Repo names the registered repository of a hit found by a search
	// across repositories; empty otherwise.
	Repo string `json:"repo,omitempty"`
}

// Entry is a listed memory and its scope.
type Entry struct {
	contextfs.Entry
	Scope Scope `json:"scope"`
}

// SaveResult is a saved memory, where it went and the user store's commit.
type SaveResult struct {
	*contextfs.SaveResult
	Scope Scope `json:"scope"`
	// Commit is the user store's commit of the new file; empty for the
	// repository scope (committed with the code) or when committing
	// failed (a warning says why; the file is saved).
	Commit string `json:"commit,omitempty"`
}

// store returns the store of a single scope.
func (s *Set) store(ctx context.Context, sc Scope) (*contextfs.Store, error) {
	switch sc {
	case User:
		return s.User(ctx)
	case Repo:
		if s.Repo == nil {
			return nil, ErrNoRepo
		}
		return s.Repo, nil
	}
	return nil, fmt.Errorf("scope %q names more than one store", sc)
}

// Target is the store a save of req in sc goes to, and its scope: sc, or
// with "" the type's default scope (see Config.DefaultScope). Callers that
// save with checks of their own (duplicates, sessions) pick the store here,
// save there, and commit with CommitUser when the scope is User.
func (s *Set) Target(ctx context.Context, sc Scope, req contextfs.SaveRequest) (*contextfs.Store, Scope, error) {
	if sc == "" {
		sc = s.Config.DefaultScope(cmp.Or(req.Type, "fact"))
		// A user memory says whom it applies to: a team's or a project's
		// preference belongs in the repository.
		if w, _ := req.Data["scope"].(string); w == "team" || w == "project" {
			sc = Repo
		}
	}
	if sc == All {
		return nil, sc, errors.New("save needs one scope: repo or user, not all")
	}
	st, err := s.store(ctx, sc)
	return st, sc, err
}

// Save saves req in sc ("" is the type's default scope, see
// Config.DefaultScope). A user-scope save writes only in the user store,
// never under the repository's work tree, and commits it there.
func (s *Set) Save(ctx context.Context, sc Scope, req contextfs.SaveRequest) (*SaveResult, error) {
	st, sc, err := s.Target(ctx, sc, req)
	if err != nil {
		return nil, err
	}
	res, err := st.Save(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &SaveResult{SaveResult: res, Scope: sc}
	if sc == User {
		out.Commit = s.CommitUser(ctx, st)
	}
	return out, nil
}

// CommitUser commits the user store's changed memory files and returns the
// commit; a failure is a warning, since the file itself is saved. A file
// refused (a suspected secret, an invalid memory) is left uncommitted, with
// a warning naming it, and the other changes are committed: one such file
// used to keep every later change of the store uncommitted.
func (s *Set) CommitUser(ctx context.Context, st *contextfs.Store) string {
	res, err := st.CommitMemories(ctx, contextfs.CommitOptions{Message: s.Config.UserStore.CommitMessage, LeaveRefused: true})
	if err != nil {
		s.warnf("saved in the user store %s, but not committed: %v", st.Repo.Root, err)
		return ""
	}
	for _, p := range res.LeftOut {
		s.warnf("left uncommitted in the user store %s: %s", st.Repo.Root, p)
	}
	return res.SHA
}

// Resolve finds the memory id in sc: in one store, or with All in the
// repository and the user store. It returns the store that holds it.
//
// With All a prefix is looked up in both stores, and one that matches in
// each is a *contextfs.AmbiguousError naming every match with its store,
// as a prefix matching twice in one store is: taking the repository's
// made `delete` remove a memory the person may not have meant. A full ID
// found in a store is that memory, whatever the other store holds.
func (s *Set) Resolve(ctx context.Context, sc Scope, id string) (*memory.Memory, Scope, *contextfs.Store, error) {
	scopes := []Scope{sc}
	if sc == All || sc == "" {
		scopes = []Scope{Repo}
		if s.userExists() {
			scopes = append(scopes, User)
		}
	}
	type match struct {
		m   *memory.Memory
		sc  Scope
		st  *contextfs.Store
		err error // a store's own *contextfs.AmbiguousError
	}
	var matches []match
	var labelled []string // every match, "ID  path (store)"
	var firstErr error
	for _, one := range scopes {
		if one == User && !s.userExists() {
			continue // nothing saved there yet; reading creates nothing
		}
		st, err := s.store(ctx, one)
		if err != nil {
			if (sc == All || sc == "") && (errors.Is(err, ErrNoRepo) || one == User) {
				if one == User {
					s.warnf("%v", err)
				}
				continue
			}
			return nil, "", nil, err
		}
		m, err := st.Resolve(ctx, id)
		var amb *contextfs.AmbiguousError
		switch {
		case err == nil && strings.EqualFold(m.ID, strings.TrimSpace(id)):
			return m, one, st, nil
		case err == nil:
			matches = append(matches, match{m: m, sc: one, st: st})
			labelled = append(labelled, m.ID+"  "+m.Path+" ("+storeName(one)+")")
		case errors.As(err, &amb):
			matches = append(matches, match{sc: one, err: err})
			for _, x := range amb.Matches {
				labelled = append(labelled, x+" ("+storeName(one)+")")
			}
		case errors.Is(err, contextfs.ErrNotFound):
			firstErr = cmp.Or(firstErr, err)
		default:
			return nil, "", nil, err
		}
	}
	switch {
	case len(matches) > 1:
		return nil, "", nil, &contextfs.AmbiguousError{Prefix: strings.TrimSpace(id), Matches: labelled}
	case len(matches) == 1 && matches[0].err != nil:
		return nil, "", nil, matches[0].err
	case len(matches) == 1:
		return matches[0].m, matches[0].sc, matches[0].st, nil
	}
	if firstErr == nil && s.Repo == nil {
		firstErr = s.whyNoRepo() // and no user store yet
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%w %s", contextfs.ErrNotFound, contextfs.QuoteID(id))
	}
	return nil, "", nil, firstErr
}

// storeName names a store of scope sc in a message.
func storeName(sc Scope) string {
	if sc == User {
		return "user store"
	}
	return "repository"
}

// Update applies edit to the memory id of sc (All finds it in either
// store), and commits it when it is in the user store.
//
// warnings are the possible secrets in the file as written, as Save
// reports them: an edit can bring one in as a save can.
func (s *Set) Update(ctx context.Context, sc Scope, id string, edit func(*memory.Memory) error) (m *memory.Memory, where Scope, warnings []secrets.Finding, err error) {
	m, where, st, err := s.Resolve(ctx, sc, id)
	if err != nil {
		return nil, "", nil, err
	}
	m, err = st.Update(ctx, m.ID, edit)
	if err != nil {
		return nil, "", nil, err
	}
	if scan, err := st.SecretScanner(); err == nil {
		if raw, err := st.Repo.ReadFile(m.Path); err == nil {
			warnings = contextfs.ScanFile(scan, m.Path, raw)
		}
	}
	if where == User {
		s.CommitUser(ctx, st)
	}
	return m, where, warnings, nil
}

// Delete deletes the memory id of sc (All finds it in either store), and
// commits the deletion when it is in the user store.
func (s *Set) Delete(ctx context.Context, sc Scope, id string) (*memory.Memory, Scope, error) {
	m, where, st, err := s.Resolve(ctx, sc, id)
	if err != nil {
		return nil, "", err
	}
	m, err = st.Delete(ctx, m.ID)
	if err != nil {
		return nil, "", err
	}
	if where == User {
		s.CommitUser(ctx, st)
	}
	return m, where, nil
}

// readers are the stores a read of sc covers, with their scopes. With
// All, a store that cannot be opened is warned about and skipped.
func (s *Set) readers(ctx context.Context, sc Scope) ([]*contextfs.Store, []Scope, error) {
	if sc == User && !s.userExists() {
		return nil, nil, nil // nothing saved there yet; reading creates nothing
	}
	if sc != All && sc != "" {
		st, err := s.store(ctx, sc)
		if err != nil {
			return nil, nil, err
		}
		return []*contextfs.Store{st}, []Scope{sc}, nil
	}
	var sts []*contextfs.Store
	var scs []Scope
	if s.Repo != nil {
		sts, scs = append(sts, s.Repo), append(scs, Repo)
	}
	if !s.userExists() {
		// Reading creates nothing: a store never written has nothing to find.
	} else if u, err := s.User(ctx); err != nil {
		s.warnf("user store skipped: %v", err)
	} else {
		sts, scs = append(sts, u), append(scs, User)
	}
	if len(sts) == 0 {
		return nil, nil, s.whyNoRepo() // and no user store yet
	}
	return sts, scs, nil
}

// List lists the memories of sc, newest first; with All, the repository's
// and the user's merged (on equal times, the repository's first).
func (s *Set) List(ctx context.Context, sc Scope, o contextfs.ListOptions) ([]Entry, error) {
	out := []Entry{}
	for e, err := range s.ListSeq(ctx, sc, o) {
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ListSeq is List one memory at a time: each store's listing is read as
// it goes and the listings are merged by time, so that listing every
// memory never holds them all. With several stores, one that fails is
// skipped with a warning; an error ends the sequence.
func (s *Set) ListSeq(ctx context.Context, sc Scope, o contextfs.ListOptions) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		sts, scs, err := s.readers(ctx, sc)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		// A listing per store, each newest first, and its next entry.
		type head struct {
			next  func() (contextfs.Entry, error, bool)
			scope Scope
			e     Entry
			ok    bool
		}
		heads := make([]*head, len(sts))
		advance := func(h *head) error {
			e, err, ok := h.next()
			h.e, h.ok = Entry{Entry: e, Scope: h.scope}, ok && err == nil
			if err != nil && len(sts) > 1 {
				s.warnf("%s memories skipped: %v", h.scope, err)
				return nil
			}
			return err
		}
		for i, st := range sts {
			next, stop := iter.Pull2(st.ListSeq(ctx, o))
			defer stop()
			heads[i] = &head{next: next, scope: scs[i]}
			if err := advance(heads[i]); err != nil {
				yield(Entry{}, err)
				return
			}
			if scs[i] == User {
				s.warnProblems(ctx, st) // synced by the first read
			}
		}
		for n := 0; o.Limit <= 0 || n < o.Limit; n++ {
			var best *head // the newest; on equal times the first store's
			for _, h := range heads {
				if h.ok && (best == nil || h.e.Updated.After(best.e.Updated)) {
					best = h
				}
			}
			if best == nil || !yield(best.e, nil) {
				return
			}
			if err := advance(best); err != nil {
				yield(Entry{}, err)
				return
			}
		}
	}
}

// warnProblems names the user store's files that cannot be read: they are
// left out of results, and the person should know why.
func (s *Set) warnProblems(ctx context.Context, st *contextfs.Store) {
	probs, err := st.Skipped(ctx)
	if err != nil {
		return
	}
	for _, p := range probs {
		s.warnf("user store: %s skipped: %s", st.Repo.Abs(p.Path), p.Message)
	}
}

// Search searches sc and merges the hits by score (see the package doc on
// why scores of two stores compare). Each store returns its best q.Limit;
// the merge keeps the best q.Limit of them all.
func (s *Set) Search(ctx context.Context, sc Scope, q contextfs.Query) ([]Result, error) {
	sts, scs, err := s.readers(ctx, sc)
	if err != nil {
		return nil, err
	}
	synced := make([]bool, len(sts))
	if len(sts) > 1 {
		q, synced = shareScale(ctx, sts, q)
	}
	return s.searchStores(ctx, sts, scs, q, synced)
}

// searchStores searches the stores sts (of scopes scs) with q, those
// synced already without syncing again, and merges the hits.
func (s *Set) searchStores(ctx context.Context, sts []*contextfs.Store, scs []Scope, q contextfs.Query, synced []bool) ([]Result, error) {
	var lists [][]Result
	errs := make([]error, len(sts))
	for i, st := range sts {
		search := st.Search
		if synced[i] {
			search = st.SearchIndexed
		}
		res, err := search(ctx, q)
		if err != nil {
			errs[i] = err
			continue
		}
		if scs[i] == User {
			s.warnProblems(ctx, st)
		}
		lists = append(lists, tag(res, scs[i], ""))
	}
	// A store that fails is skipped with a warning; when every store
	// fails, the query is at fault (a limit out of range) and it is the
	// error: skipped, it read as "no matches".
	for i, err := range errs {
		switch {
		case err == nil:
		case len(lists) == 0:
			return nil, err
		default:
			s.warnf("%s memories skipped: %v", scs[i], err)
		}
	}
	return Merge(limitOf(q, s.Repo), lists...), nil
}

// shareScale is q with the keyword statistics of the stores sts shared
// (contextfs.ShareKeywordStats), their caches synced: the first phase of
// a search across stores, whose second searches each (SearchIndexed) on
// those statistics. Without them each store divides BM25 by what its own
// documents attain, and a user store whose one memory shares a single
// generic word with the question ("use") scored that word as a full
// keyword match, above the repository's memory that answers it. A store
// whose sync or ranking fails here adds nothing and is not synced
// (synced[i] false): its search syncs it again and reports the error.
func shareScale(ctx context.Context, sts []*contextfs.Store, q contextfs.Query) (_ contextfs.Query, synced []bool) {
	as, synced := attainable(ctx, sts, q)
	q.Shared = contextfs.ShareKeywordStats(as...)
	return q, synced
}

// limitOf is the number of results a merged search keeps: the query's,
// else the repository's configured default, else 10.
func limitOf(q contextfs.Query, repo *contextfs.Store) int {
	if q.Limit > 0 {
		return q.Limit
	}
	if repo != nil && repo.Config.Search.Limit > 0 {
		return repo.Config.Search.Limit
	}
	return 10
}

func tag(res []contextfs.Result, sc Scope, repo string) []Result {
	out := make([]Result, len(res))
	for i, r := range res {
		out[i] = Result{Result: r, Scope: sc, Repo: repo}
	}
	return out
}

// Merge merges ranked lists into one of at most limit results: memories
// first, as each store ranks them (package search), then best score
// first; ties are broken by scope, repository, kind and ID so the order
// does not depend on which store answered first.
func Merge(limit int, lists ...[]Result) []Result {
	out := []Result{}
	for _, l := range lists {
		out = append(out, l...)
	}
	notMemory := func(r Result) int {
		if r.Kind == "memory" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		return cmp.Or(cmp.Compare(notMemory(a), notMemory(b)), cmp.Compare(b.Score, a.Score), cmp.Compare(a.Scope, b.Scope), cmp.Compare(a.Repo, b.Repo),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// whyNoRepo is why the set has no repository store: the error finding one
// said (a bare repository is named as such), else gitstore.ErrNotRepo.
func (s *Set) whyNoRepo() error {
	if s.noRepo != nil {
		return s.noRepo
	}
	return gitstore.ErrNotRepo
}
