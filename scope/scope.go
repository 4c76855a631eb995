// Package scope puts several contextfs stores behind one set of
// operations: the repository's own store, the user's personal store (a git
// repository of its own that follows the developer across repositories)
// and the other repositories the user registered. It resolves which store
// a memory goes to, opens the user store (creating it on first use), fans
// reads out to every store in scope and merges their results, each tagged
// with its scope and repository.
//
// Every store is a contextfs.Store opened with contextfs.Open: the user
// store is the same code path as a repository store, with its own
// .contextfs/ layout, validation, merge driver and cache in its own git
// directory. Writes to the user store are committed at once (commitflow),
// so `git -C "$(git contextfs user path)" push` backs it up.
//
// Scores from different stores are comparable because every store ranks
// with the same fusion (see package search) and the same embedder: the
// cosine part is absolute, and the keyword part is normalised per store
// (BM25 divided by that store's best score for the query). See
// docs/SCOPES.md.
package scope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/git"
	"github.com/contextfs/contextfs/gitstore"
)

// Scope names where memories live.
type Scope string

// Scopes. Reads default to All; saves default by type (see Config.Scopes).
const (
	Repo Scope = "repo" // the repository's .contextfs/, shared with the team
	User Scope = "user" // the user's own store, in no team's repository
	All  Scope = "all"  // both, for reads
)

// Parse reads a --scope value; "" is "" (the caller's default).
func Parse(s string) (Scope, error) {
	switch sc := Scope(strings.ToLower(strings.TrimSpace(s))); sc {
	case "", Repo, User, All:
		return sc, nil
	}
	return "", fmt.Errorf("scope must be repo, user or all, not %q", s)
}

// UserDir is where the user store lives: $CONTEXTFS_USER_DIR, else
// $XDG_DATA_HOME/contextfs/user, else ~/.local/share/contextfs/user.
func UserDir() (string, error) {
	if d := os.Getenv("CONTEXTFS_USER_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "contextfs", "user"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("user store: no CONTEXTFS_USER_DIR, XDG_DATA_HOME or home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "contextfs", "user"), nil
}

// ConfigDir is where the user's own settings live (the repos registry,
// default scopes): $XDG_CONFIG_HOME/contextfs, else ~/.config/contextfs.
func ConfigDir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "contextfs"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("user config: no XDG_CONFIG_HOME or home directory: %w", err)
	}
	return filepath.Join(home, ".config", "contextfs"), nil
}

// Options configure Open.
type Options struct {
	// Store are the options the repository store is opened with; the
	// user store and registered repositories get the same notices and
	// clock, and the repository's embedder (so cosines are comparable).
	Store contextfs.Options
	// Warnings receives one line per store or file skipped; nil discards.
	Warnings io.Writer
}

// Set is the stores one command works with. The repository store is open
// from the start (nil outside a repository); the user store opens on first
// use.
type Set struct {
	// Repo is the store of the repository around Options.Store.Dir, or
	// nil when there is none.
	Repo   *contextfs.Store
	Config Config
	opts   Options
	user   *contextfs.Store
	// borrowed is a Repo the caller owns (FromStore, Borrow);
	// userBorrowed a user store the caller owns (Borrow).
	borrowed, userBorrowed bool
	// mu guards warn: repositories are searched in parallel.
	mu   sync.Mutex
	warn io.Writer
}

// ErrNoRepo is a repository-scope operation run outside a repository.
var ErrNoRepo = errors.New("not in a git repository: use --scope user, or cd into a repository")

// Open opens the repository store around opts.Store.Dir (none outside a
// repository) and reads the user's config. The user store is not touched
// until an operation needs it.
//
// A user config that cannot be read is warned about and the defaults
// used: a typo in it must not stop work in every repository.
func Open(ctx context.Context, opts Options) (*Set, error) {
	s := &Set{opts: opts, warn: opts.Warnings}
	if s.warn == nil {
		s.warn = io.Discard
	}
	cfg, err := LoadConfig()
	if err != nil {
		s.warnf("%v (using the defaults)", err)
		cfg = Config{}
	}
	s.Config = cfg
	repo, err := contextfs.Open(ctx, opts.Store)
	switch {
	case errors.Is(err, gitstore.ErrNotRepo):
	case err != nil:
		return nil, err
	default:
		s.Repo = repo
	}
	return s, nil
}

// FromStore is a set around a repository store the caller already opened
// and keeps: Close leaves it open. A user config that cannot be read is
// warned about and the defaults used, so a server built on a store keeps
// serving the repository.
func FromStore(repo *contextfs.Store, opts Options) *Set {
	s := &Set{Repo: repo, opts: opts, warn: opts.Warnings, borrowed: true}
	if s.warn == nil {
		s.warn = io.Discard
	}
	cfg, err := LoadConfig()
	if err != nil {
		s.warnf("%v (using the defaults)", err)
		cfg = Config{}
	}
	s.Config = cfg
	return s
}

// Borrow returns a set over the same open stores whose Close leaves them
// open: a long-lived process (the watcher answering commands) keeps its
// stores warm across the commands it runs. A user store the borrowed set
// opens itself is its own, and closed with it.
func (s *Set) Borrow() *Set {
	return &Set{Repo: s.Repo, Config: s.Config, opts: s.opts, user: s.user, borrowed: true,
		userBorrowed: s.user != nil, warn: s.warn}
}

// Close closes every store the set opened.
func (s *Set) Close() error {
	var errs []error
	if s.Repo != nil && !s.borrowed {
		errs = append(errs, s.Repo.Close())
	}
	if s.user != nil && !s.userBorrowed {
		errs = append(errs, s.user.Close())
		s.user = nil
	}
	return errors.Join(errs...)
}

// warnf writes a warning line.
func (s *Set) warnf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.warn, "warning: "+format+"\n", args...)
}

// storeOptions are the options another store (the user's, a registered
// repository's) is opened with: those of the repository store, at dir,
// with the repository's embedder.
func (s *Set) storeOptions(dir string) contextfs.Options {
	o := s.opts.Store
	o.Dir = dir
	o.StartWatcher = nil // a watcher serves the work tree a person is in
	if s.Repo != nil && o.Embedder == nil {
		o.Embedder = s.Repo.Embedder()
	}
	return o
}

// User opens the user store, creating it (git init and the .contextfs/
// layout of Init) on first use.
func (s *Set) User(ctx context.Context) (*contextfs.Store, error) {
	if s.user != nil {
		return s.user, nil
	}
	dir, err := UserDir()
	if err != nil {
		return nil, err
	}
	u, err := OpenUser(ctx, dir, s.storeOptions(dir))
	if err != nil {
		return nil, err
	}
	s.user = u
	return u, nil
}

// userExists reports whether the user store has been created: reads
// skip it until then rather than create it.
// ExistingUser returns the user store when one has been written, else nil:
// reading never creates it.
func (s *Set) ExistingUser(ctx context.Context) (*contextfs.Store, error) {
	if !s.userExists() {
		return nil, nil
	}
	return s.User(ctx)
}

func (s *Set) userExists() bool {
	if s.user != nil {
		return true
	}
	dir, err := UserDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// OpenUser opens the user store at dir with opts (whose Dir is ignored),
// creating the git repository and its .contextfs/ layout when they are
// missing. A dir that is inside another repository but not its root is
// refused: the user store must never write into a team's work tree.
func OpenUser(ctx context.Context, dir string, opts contextfs.Options) (*contextfs.Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("user store: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); errors.Is(err, os.ErrNotExist) {
		if _, err := (git.Cmd{Dir: dir}).Run(ctx, "init", "-q"); err != nil {
			return nil, fmt.Errorf("user store: git init %s: %w", dir, err)
		}
	}
	opts.Dir = dir
	st, err := contextfs.Open(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("user store %s: %w", dir, err)
	}
	if !sameDir(st.Repo.Root, dir) {
		st.Close()
		return nil, fmt.Errorf("user store %s: not the root of its own git repository (it is inside %s)", dir, st.Repo.Root)
	}
	if _, err := st.Init(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("user store %s: init: %w", dir, err)
	}
	return st, nil
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
