package scope

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
)

// RepoID is a repository's identity, the same for every clone: its
// origin remote's URL normalised to host/path (so
// git@github.com:acme/api.git and https://github.com/acme/api are both
// github.com/acme/api), or its work tree's path when it has no remote.
//
// The URL is read from git's configuration files without starting git
// (gitstore.Repo.RemoteURL): every `search --repos` asks for the current
// repository's.
func RepoID(ctx context.Context, root string) string {
	var u string
	if r, err := gitstore.Discover(root); err == nil {
		u = r.RemoteURL(ctx, "origin")
	}
	if strings.TrimSpace(u) == "" {
		return filepath.ToSlash(root)
	}
	return NormalizeRemote(u)
}

// NormalizeRemote turns a git remote URL into host/path: no scheme, user,
// port or .git suffix, the host in lower case.
func NormalizeRemote(u string) string {
	u = strings.TrimSpace(u)
	var host, p string
	if strings.Contains(u, "://") {
		pu, err := url.Parse(u)
		if err != nil {
			return strings.TrimSuffix(u, ".git")
		}
		host, p = pu.Hostname(), pu.Path
		if pu.Scheme == "file" {
			host = ""
		}
	} else if i := strings.Index(u, ":"); i > 0 && !strings.Contains(u[:i], "/") {
		host, p = u[:i], u[i+1:] // scp-like: [user@]host:path
		if j := strings.LastIndex(host, "@"); j >= 0 {
			host = host[j+1:]
		}
	} else {
		p = u
	}
	p = strings.TrimSuffix(strings.Trim(path.Clean("/"+filepath.ToSlash(p)), "/"), ".git")
	if host == "" {
		return p
	}
	return strings.ToLower(host) + "/" + p
}

// nameOf is the default name of a repository: the last part of its ID.
// nameOf is the default name of a repository of identity id: the last
// part of it, with the spaces and commas a name may not hold turned into
// dashes ("My Project" is my-project's folder, and searched as such).
func nameOf(id string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || unicode.IsSpace(r) {
			return '-'
		}
		return r
	}, path.Base(strings.TrimRight(id, "/")))
}

// isDir reports whether dir names an existing folder: a path that does not
// exist must not be looked up as the repository around it (Discover walks
// up, and a typo inside a repository would name that repository).
func isDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// AddRepo registers the repository around dir under name ("" is the last
// part of its identity) and saves the config. A repository whose identity
// is already registered (another clone of the same project) keeps its
// name and takes the new path.
func (c *Config) AddRepo(ctx context.Context, dir, name string) (RepoEntry, error) {
	if !isDir(dir) {
		return RepoEntry{}, fmt.Errorf("repos add %s: no such folder", dir)
	}
	r, err := gitstore.Discover(dir)
	if err != nil {
		return RepoEntry{}, fmt.Errorf("repos add %s: %w", dir, err)
	}
	e := RepoEntry{ID: RepoID(ctx, r.Root), Path: r.Root}
	if isUserStore(ctx, e) {
		// search --repos searches the user store anyway: registered, it
		// answered every search with each user memory twice.
		return RepoEntry{}, fmt.Errorf("repos add %s: that is your user store, which every search reads already (--scope user for it alone)", dir)
	}
	e.Name = name
	if e.Name == "" {
		e.Name = nameOf(e.ID)
	}
	if strings.ContainsAny(e.Name, ", \t\n") {
		return RepoEntry{}, fmt.Errorf("repos add: name %q may not hold commas or spaces", e.Name)
	}
	for i, x := range c.Repos {
		if x.ID == e.ID {
			if name != "" {
				c.Repos[i].Name = name
			}
			c.Repos[i].Path = e.Path
			return c.Repos[i], c.Save()
		}
		if x.Name == e.Name {
			return RepoEntry{}, fmt.Errorf("repos add: the name %q is taken by %s (%s); give another with --name", e.Name, x.ID, x.Path)
		}
	}
	c.Repos = append(c.Repos, e)
	return e, c.Save()
}

// isUserStore reports whether e is the user store, or a clone of it:
// the same folder, or the same identity (its remote).
func isUserStore(ctx context.Context, e RepoEntry) bool {
	dir, err := UserDir()
	if err != nil {
		return false
	}
	if sameDir(e.Path, dir) {
		return true
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return false
	}
	return RepoID(ctx, dir) == e.ID
}

// ErrUnknownRepo is a name (or path) that no registered repository has.
var ErrUnknownRepo = errors.New("no registered repository")

// RemoveRepo unregisters the repository named arg (its name, or a path
// to it) and saves the config.
func (c *Config) RemoveRepo(ctx context.Context, arg string) (RepoEntry, error) {
	i := slices.IndexFunc(c.Repos, func(e RepoEntry) bool { return e.Name == arg })
	if i < 0 && isDir(arg) {
		if r, err := gitstore.Discover(arg); err == nil {
			id := RepoID(ctx, r.Root)
			i = slices.IndexFunc(c.Repos, func(e RepoEntry) bool { return e.ID == id || e.Path == r.Root })
		}
	}
	if i < 0 {
		return RepoEntry{}, fmt.Errorf("%w named %q (see git contextfs repos list)", ErrUnknownRepo, arg)
	}
	e := c.Repos[i]
	c.Repos = slices.Delete(c.Repos, i, i+1)
	return e, c.Save()
}

// Pick returns the registered repositories that names ask for: "all" is
// every one; otherwise names, comma-separated. An unknown name is an
// ErrUnknownRepo.
func (c Config) Pick(names []string) ([]RepoEntry, error) {
	var out []RepoEntry
	for _, n := range cleanNames(names) {
		if n == "all" {
			return slices.Clone(c.Repos), nil
		}
		i := slices.IndexFunc(c.Repos, func(e RepoEntry) bool { return e.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("%w named %q (see git contextfs repos list)", ErrUnknownRepo, n)
		}
		if !slices.Contains(out, c.Repos[i]) {
			out = append(out, c.Repos[i])
		}
	}
	return out, nil
}

func cleanNames(xs []string) []string {
	var out []string
	for _, x := range xs {
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// SearchRepos searches the registered repositories repos, in parallel,
// together with the stores of sc (the current repository's, unless it is
// one of repos, and the user's). Each repository's cache is brought up to
// date first. A repository that is missing or cannot be opened or
// searched is warned about and skipped. Hits carry the repository's name.
func (s *Set) SearchRepos(ctx context.Context, repos []RepoEntry, sc Scope, q contextfs.Query) ([]Result, error) {
	return s.SearchReposPrepared(ctx, repos, sc, q, nil)
}

// SearchReposPrepared is SearchRepos with prepare run on the current
// repository's store before it is searched (the CLI refreshes its code
// index there), while the other repositories are already being searched:
// run first, it kept one core idle for as long as it took. An error from
// prepare is returned, and nothing else.
func (s *Set) SearchReposPrepared(ctx context.Context, repos []RepoEntry, sc Scope, q contextfs.Query, prepare func() error) ([]Result, error) {
	var cur string
	if s.Repo != nil {
		cur = RepoID(ctx, s.Repo.Repo.Root)
	}
	// What of its own the set searches besides the registered ones: the
	// current repository once, under its registered name when it has one.
	if sc == "" {
		sc = All
	}
	curAt := slices.IndexFunc(repos, func(e RepoEntry) bool { return s.Repo != nil && e.ID == cur })
	own := sc
	switch {
	case curAt >= 0 && sc == All:
		own = User
	case curAt >= 0 && sc == Repo, sc == Repo && s.Repo == nil:
		own = ""
	}
	if (own == All || own == User) && s.Repo == nil && !s.userExists() || own == User && !s.userExists() {
		own = "" // nothing saved in the user store yet, and no repository here
	}

	// Phase one (see shareScale): the registered repositories are opened,
	// synced and ranked by keyword in parallel, the stores already open
	// here meanwhile, after prepare.
	var opened []registered
	var atts []contextfs.Attainable
	done := make(chan struct{})
	go func() {
		defer close(done)
		opened, atts = s.openRegistered(ctx, repos, func(i int) bool { return i == curAt }, q)
	}()
	defer func() {
		<-done
		closeRegistered(opened)
	}()
	if prepare != nil {
		if err := prepare(); err != nil {
			return nil, err
		}
	}
	var ownSts []*contextfs.Store
	var ownScs []Scope
	if own != "" {
		var err error
		if ownSts, ownScs, err = s.readers(ctx, own); err != nil {
			return nil, err
		}
	}
	ownAtts, ownSynced := attainable(ctx, ownSts, q)
	var curSynced []bool
	if curAt >= 0 {
		var curAtts []contextfs.Attainable
		curAtts, curSynced = attainable(ctx, []*contextfs.Store{s.Repo}, q)
		ownAtts = append(ownAtts, curAtts...)
	}
	<-done
	q.Shared = contextfs.ShareKeywordStats(append(atts, ownAtts...)...)

	// Phase two: every store ranked with the statistics of them all, the
	// registered ones in parallel, the stores open here meanwhile.
	var lists [][]Result
	var errs []error
	searched := make(chan struct{})
	go func() {
		defer close(searched)
		lists, errs = s.searchRegistered(ctx, repos, opened, q)
	}()
	var curRes []contextfs.Result
	var curErr, ownErr error
	if curAt >= 0 {
		search := s.Repo.Search
		if curSynced[0] {
			search = s.Repo.SearchIndexed
		}
		curRes, curErr = search(ctx, q)
	}
	var ownRes []Result
	if len(ownSts) > 0 {
		ownRes, ownErr = s.searchStores(ctx, ownSts, ownScs, q, ownSynced)
	}
	<-searched
	if ownErr != nil {
		return nil, ownErr
	}
	if curAt >= 0 {
		lists[curAt], errs[curAt] = tag(curRes, Repo, repos[curAt].Name), curErr
	}
	lists = append(lists, ownRes)
	for i, err := range errs {
		if err != nil {
			s.warnf("repository %s skipped: %v", repos[i].Name, err)
			lists[i] = nil
		}
	}
	return Merge(limitOf(q, s.Repo), lists...), nil
}

// openOne opens a registered repository to search it.
func (s *Set) openOne(ctx context.Context, e RepoEntry) (*contextfs.Store, error) {
	if _, err := os.Stat(e.Path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing (git contextfs repos remove %s forgets it)", e.Path, e.Name)
	} else if err != nil {
		return nil, err
	}
	o := s.storeOptions(e.Path)
	o.Embedder = nil // its own config's; see the package doc
	st, err := contextfs.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	if s.Repo != nil && st.Embedder().Model() != s.Repo.Embedder().Model() {
		s.warnf("repository %s uses the embedder %s, not %s: its scores do not compare with the others'", e.Name,
			st.Embedder().Model(), s.Repo.Embedder().Model())
	}
	if !sameDir(st.Repo.Root, e.Path) {
		st.Close()
		return nil, fmt.Errorf("%s is no longer the root of a git repository", e.Path)
	}
	return st, nil
}
