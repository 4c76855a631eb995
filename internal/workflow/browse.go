package workflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/lineage"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/internal/review"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// Browser is the read-only workflows of the memory viewer (git contextfs
// serve, docs/VIEWER.md): an overview of the stores, search, a memory with
// its links, chain and git history, a drawing of the links, what the
// branch changes and the sessions. It reads through the service's stores
// and, for the registered repositories it was given, stores of its own,
// opened on first use. It writes nothing but the disposable caches. A
// Browser is not safe for concurrent use: the viewer reads one page at a
// time, as a store syncs its cache from one goroutine.
type Browser struct {
	s *Service
	// repos are the registered repositories searches cover besides the
	// set's stores; others are those of them opened, by name.
	repos  []RepoEntry
	others map[string]*contextfs.Store
}

// Browse returns the browser over the service's stores and the registered
// repositories repos names ("all": every one). A name not registered is
// an *InputError of field "repos".
func (s *Service) Browse(repos []string) (*Browser, error) {
	b := &Browser{s: s, others: map[string]*contextfs.Store{}}
	if len(repos) > 0 {
		picked, err := s.set.Config.Pick(repos)
		if err != nil {
			return nil, &InputError{Field: "repos", Err: err}
		}
		b.repos = picked
	}
	return b, nil
}

// Close closes the registered repositories the browser opened; the
// service's stores are the service's to close.
func (b *Browser) Close() error {
	var errs []error
	for name, st := range b.others {
		errs = append(errs, st.Close())
		delete(b.others, name)
	}
	return errors.Join(errs...)
}

// RepoNames are the names of the registered repositories searches cover.
func (b *Browser) RepoNames() []string {
	names := make([]string, 0, len(b.repos))
	for _, e := range b.repos {
		names = append(names, e.Name)
	}
	return names
}

// TypeCount is how many memories of one type each store holds.
type TypeCount struct {
	Type       string
	Repo, User int
}

// Overview is what the stores hold at a glance: counts by type, the
// context block an agent gets at session start and the latest memories.
type Overview struct {
	Counts               []TypeCount // by type
	RepoTotal, UserTotal int
	HasRepo, HasUser     bool
	RepoRoot, UserDir    string
	// Block is the repository's context block (nil outside a repository,
	// or when it could not be built: Note says why).
	Block *Block
	// Note says what was left out: the user store, the block, or both.
	Note   string
	Recent []Entry
}

// Overview syncs the stores and reads their counts by type, the context
// block (as Context builds it) and the recent newest memories of both.
// A user store that cannot be opened, or a block that cannot be built,
// is a Note, not a failure.
func (b *Browser) Overview(ctx context.Context, recent int) (*Overview, error) {
	o := &Overview{}
	counts := map[string]*TypeCount{}
	count := func(st *contextfs.Store, user bool) (int, error) {
		if _, err := st.Sync(ctx); err != nil {
			return 0, err
		}
		by, err := st.CountByType(ctx)
		if err != nil {
			return 0, err
		}
		total := 0
		for t, n := range by {
			c := counts[t]
			if c == nil {
				c = &TypeCount{Type: t}
				counts[t] = c
			}
			if user {
				c.User += n
			} else {
				c.Repo += n
			}
			total += n
		}
		return total, nil
	}
	var err error
	repo := b.s.set.Repo
	if repo != nil {
		o.HasRepo, o.RepoRoot = true, repo.Repo.Root
		if o.RepoTotal, err = count(repo, false); err != nil {
			return nil, err
		}
	}
	user, uerr := b.s.set.ExistingUser(ctx)
	if uerr != nil {
		o.Note = "the user store is left out: " + uerr.Error()
	}
	if user != nil {
		o.HasUser, o.UserDir = true, user.Repo.Root
		if o.UserTotal, err = count(user, true); err != nil {
			return nil, err
		}
	}
	for _, c := range counts {
		o.Counts = append(o.Counts, *c)
	}
	slices.SortFunc(o.Counts, func(a, b TypeCount) int { return cmp.Compare(a.Type, b.Type) })
	if repo != nil {
		blk, err := b.s.Context(ctx, ContextRequest{})
		if err != nil {
			o.Note = joinNote(o.Note, "the context block could not be built: "+err.Error())
		} else {
			o.Block = blk
		}
	}
	if o.HasRepo || o.HasUser {
		if o.Recent, err = b.s.set.List(ctx, All, contextfs.ListOptions{Limit: recent}); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// joinNote adds note to what a page already says was left out.
func joinNote(notes, note string) string {
	if notes == "" {
		return note
	}
	return notes + "; " + note
}

// Search runs q over the stores of sc and the browser's registered
// repositories, merged by score.
func (b *Browser) Search(ctx context.Context, sc Scope, q contextfs.Query) ([]Result, error) {
	if len(b.repos) > 0 {
		return b.s.set.SearchRepos(ctx, b.repos, sc, q)
	}
	return b.s.set.Search(ctx, sc, q)
}

// Place names the store a memory is read from: the registered repository
// Repo (one of the browser's) when set, else the stores of Scope (All:
// the repository's, then the user's).
type Place struct {
	Scope Scope
	Repo  string
}

// Located is a memory and where it was found.
type Located struct {
	Memory *memory.Memory
	// Repo is the registered repository that holds it; "" for the
	// service's stores, and then Scope is the store's.
	Repo  string
	Scope Scope
	st    *contextfs.Store
}

// Locate finds the memory id (an ID or a unique prefix) in the store p
// names. A registered repository the browser was not given is
// contextfs.ErrNotFound.
func (b *Browser) Locate(ctx context.Context, p Place, id string) (*Located, error) {
	if p.Repo != "" {
		st, err := b.other(ctx, p.Repo)
		if err != nil {
			return nil, err
		}
		m, err := st.Resolve(ctx, id)
		if err != nil {
			return nil, err
		}
		return &Located{Memory: m, Repo: p.Repo, st: st}, nil
	}
	m, where, st, err := b.s.set.Resolve(ctx, p.Scope, id)
	if err != nil {
		return nil, err
	}
	return &Located{Memory: m, Scope: where, st: st}, nil
}

// other returns the store of the registered repository name, which must
// be one of the browser's, opening it on first use.
func (b *Browser) other(ctx context.Context, name string) (*contextfs.Store, error) {
	if st := b.others[name]; st != nil {
		return st, nil
	}
	i := slices.IndexFunc(b.repos, func(e RepoEntry) bool { return e.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("%w: %q is not a repository this viewer serves (see --repos)", contextfs.ErrNotFound, name)
	}
	e := b.repos[i]
	if _, err := os.Stat(e.Path); err != nil {
		return nil, fmt.Errorf("repository %s: %w", name, err)
	}
	st, err := contextfs.Open(ctx, contextfs.Options{Dir: e.Path})
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", name, err)
	}
	b.others[name] = st
	return st, nil
}

// Commit is one commit that touched a memory's file.
type Commit = lineage.Commit

// MemoryView is a memory with what the viewer shows around it.
type MemoryView struct {
	*Located
	// Links are the memories one link away, both ways, from the store's
	// index; Chain its supersedes chain, both ways, within the depth
	// asked.
	Links, Chain []Neighbour
	// Commits are the commits that touched its file, newest first.
	Commits []Commit
}

// Memory is the memory id of p with its links, its supersedes chain up to
// chain links away, and its file's git history.
func (b *Browser) Memory(ctx context.Context, p Place, id string, chain int) (*MemoryView, error) {
	l, err := b.Locate(ctx, p, id)
	if err != nil {
		return nil, err
	}
	v := &MemoryView{Located: l}
	// From the cache's edges: Locate synced it.
	if v.Links, err = links.WalkIndexed(ctx, l.st, l.Memory.ID, 1, ""); err != nil {
		return nil, err
	}
	if v.Chain, err = links.WalkIndexed(ctx, l.st, l.Memory.ID, chain, memory.RelSupersedes); err != nil {
		return nil, err
	}
	if v.Commits, err = lineage.History(ctx, l.st.Repo.Root, l.Memory.Path); err != nil {
		return nil, err
	}
	return v, nil
}

// History is the memory id of p and its supersedes chain through it, both
// ways, oldest first, each version with its file's git history.
func (b *Browser) History(ctx context.Context, p Place, id string) (*Located, []Version, error) {
	l, err := b.Locate(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	vs, err := lineage.Lineage(ctx, l.st, l.Memory.ID)
	if err != nil {
		return nil, nil, err
	}
	return l, vs, nil
}

// SessionMemory is a memory saved in a session. Type and Title are empty
// for one the repository's index does not list (saved in the user store,
// or gone since).
type SessionMemory struct{ ID, Type, Title string }

// EndedSession is an ended session with the memories saved in it, its
// summary memory left out.
type EndedSession struct {
	SessionSummary
	Memories []SessionMemory
}

// SessionsView is the repository's open session and its ended ones.
type SessionsView struct {
	// Open is the open session, nil when none; Note says why it could
	// not be read, which does not stop the list.
	Open  *Session
	Note  string
	Ended []EndedSession
}

// Sessions is the repository's open session and its ended ones, newest
// first, at most limit of them, each with the memories saved in it.
// Outside a repository it is ErrNoRepo.
func (b *Browser) Sessions(ctx context.Context, limit int) (*SessionsView, error) {
	repo := b.s.set.Repo
	if repo == nil {
		return nil, ErrNoRepo
	}
	v := &SessionsView{}
	cur, err := session.Current(repo.Repo)
	if err != nil {
		v.Note = err.Error()
	}
	v.Open = cur
	list, err := session.List(ctx, repo, limit)
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		es := EndedSession{SessionSummary: s}
		listed, err := repo.ListIndexed(ctx, contextfs.ListOptions{Session: s.ID, All: true})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{s.Memory: true}
		for _, e := range listed {
			if !seen[e.ID] {
				seen[e.ID] = true
				es.Memories = append(es.Memories, SessionMemory{ID: e.ID, Type: e.Type, Title: e.Title})
			}
		}
		for _, id := range s.Saved {
			if !seen[id] {
				seen[id] = true
				es.Memories = append(es.Memories, SessionMemory{ID: id})
			}
		}
		v.Ended = append(v.Ended, es)
	}
	return v, nil
}

// ReviewChange is one memory a reviewed change adds, changes, supersedes
// or deletes.
type ReviewChange = review.Change

// The kinds of ReviewChange.
const (
	ReviewAdded      = review.Added
	ReviewChanged    = review.Changed
	ReviewSuperseded = review.Superseded
	ReviewDeleted    = review.Deleted
)

// ReviewKinds are the kinds of ReviewChange in the order a report lists
// them.
func ReviewKinds() []string {
	return []string{ReviewAdded, ReviewChanged, ReviewSuperseded, ReviewDeleted}
}

// Branch is what Review reports for the repository's branch without a
// range (the default branch's merge base to HEAD), with the memories
// attached to the code it changes. A branch with no default branch or no
// commit is the *RangeError Review returns; outside a repository it is
// ErrNoRepo.
func (b *Browser) Branch(ctx context.Context) (*Reviewed, error) {
	repo := b.s.set.Repo
	if repo == nil {
		return nil, ErrNoRepo
	}
	r, err := Review(ctx, ReviewRequest{Dir: repo.Repo.Root})
	if errors.Is(err, ErrNoCommonHistory) {
		// A branch with no history in common with the default one (an
		// orphan branch) is something to say on the page, not a failure.
		return nil, &RangeError{err}
	}
	if err != nil {
		return nil, err
	}
	if r.Report.Relevant, err = RelevantToRange(ctx, repo, r.Report.BaseCommit, r.Report.HeadCommit); err != nil {
		return nil, err
	}
	return r, nil
}
