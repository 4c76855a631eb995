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
// cosine part is absolute, and the keyword part is BM25 with the
// statistics of every store searched together (two phases: shareScale,
// openRegistered). See docs/SCOPES.md.
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
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/git"
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
// A relative CONTEXTFS_USER_DIR is a *UserDirError: it would name another
// store from every directory, and one inside the repository a command runs
// in.
func UserDir() (string, error) {
	dir, _, err := userDirFrom()
	return dir, err
}

// userDirFrom is UserDir and the environment variable that chose it, for
// messages ("" when it is the home directory's default).
func userDirFrom() (dir, from string, err error) {
	if d := os.Getenv("CONTEXTFS_USER_DIR"); d != "" {
		if !filepath.IsAbs(d) {
			return "", "", &UserDirError{Var: "CONTEXTFS_USER_DIR", Path: d,
				Reason: "a relative path names another store from every directory: give an absolute path, outside any git work tree"}
		}
		return filepath.Clean(d), "CONTEXTFS_USER_DIR", nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "contextfs", "user"), "XDG_DATA_HOME", nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", "", fmt.Errorf("user store: no CONTEXTFS_USER_DIR, XDG_DATA_HOME or home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "contextfs", "user"), "", nil
}

// UserDirError is a user store refused for where it is: a relative
// CONTEXTFS_USER_DIR, a directory in another repository's work tree, or
// an existing repository not marked as a user store that holds more than
// memories (another project's checkout), whose commits (or nested
// repository) would land in that repository.
// Reads warn about it and go on without the user store; a user-scope
// save fails with it, having written nothing.
type UserDirError struct {
	// Var is the environment variable that set Path; "" for the default.
	Var    string
	Path   string
	Reason string
}

// Error names the variable and the path, then why they are refused.
func (e *UserDirError) Error() string {
	where := e.Path
	if e.Var != "" {
		where += " (from " + e.Var + ")"
	}
	return "user store " + where + ": " + e.Reason
}

// ConfigDir is where the user's own settings live (the repos registry,
// default scopes, the embedder): $XDG_CONFIG_HOME/contextfs, else
// ~/.config/contextfs (config.UserConfigDir).
func ConfigDir() (string, error) { return config.UserConfigDir() }

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
	// noRepo is why Repo is nil (gitstore.ErrNotRepo or a *BareError),
	// for the operations that needed one.
	noRepo error
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
		s.noRepo = err
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
// with the repository's embedder unless its config chose it.
func (s *Set) storeOptions(dir string) contextfs.Options {
	o := s.opts.Store
	o.Dir = dir
	o.StartWatcher = nil // a watcher serves the work tree a person is in
	// An embedder the repository's config chose (a trusted clone's) is
	// that repository's: the user's memories, and other repositories',
	// never go to it. Such a store makes its own, from the user's
	// settings, and its cosines are its own scale.
	if s.Repo != nil && o.Embedder == nil && !s.Repo.EmbedderChosenByRepo() {
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
	dir, from, err := userDirFrom()
	if err != nil {
		return nil, err
	}
	var cur string
	if s.Repo != nil {
		cur = s.Repo.Repo.Root
	}
	u, err := openUser(ctx, dir, from, cur, s.storeOptions(dir))
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
		// A CONTEXTFS_USER_DIR set wrong is said (by User), not read as
		// a store with nothing in it.
		var ude *UserDirError
		return errors.As(err, &ude)
	}
	_, err = os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// OpenUser opens the user store at dir with opts (whose Dir is ignored),
// creating the git repository and its .contextfs/ layout when they are
// missing. A dir inside another repository's work tree is refused (a
// *UserDirError), as is one that is not the root of its own repository,
// and an existing repository not marked as a user store unless it holds
// only memories (see notAUserStore; such a store is adopted and marked):
// the user store must never write into a team's work tree.
func OpenUser(ctx context.Context, dir string, opts contextfs.Options) (*contextfs.Store, error) {
	return openUser(ctx, dir, "", "", opts)
}

// userStoreKey is the git config key (in the store's own .git/config,
// never committed) that marks a repository created (or adopted) as a user
// store: the only repository the user store may be when a command runs
// inside it, and the only existing one taken as it is whatever it holds.
const userStoreKey = "contextfs.userStore"

// openUser is OpenUser for the user store set by the environment variable
// from ("" for the default), seen from the repository whose work tree is
// cur ("" outside one).
//
// Every check runs before anything is written: a user store in the
// current repository used to commit the team's pending memories, its
// config and the "private" preference into the team's history, one
// anywhere under a work tree was created as a repository nested in it,
// and one at the root of another project's checkout committed user
// memories into that project's history.
//
// An existing repository is taken as it is when marked (userStoreKey,
// read from its .git/config without starting git). Unmarked, it is
// adopted and marked when it holds nothing but memories (notAUserStore),
// and refused otherwise; from inside it (the repository you are in) it
// is refused unmarked whatever it holds, as before.
func openUser(ctx context.Context, dir, from, cur string, opts contextfs.Options) (*contextfs.Store, error) {
	refuse := func(reason, or string) error {
		return &UserDirError{Var: from, Path: dir, Reason: reason + ": set CONTEXTFS_USER_DIR to an absolute path outside any git work tree" + or}
	}
	_, err := os.Stat(filepath.Join(dir, ".git"))
	isNew := errors.Is(err, os.ErrNotExist)
	markHint := "; or, if it is your user store and no team's repository, mark it so: " + markCommand(dir)
	switch {
	case cur != "" && sameDir(dir, cur):
		if !markedUserStore(ctx, dir) {
			return nil, refuse("it is the repository you are in, and user memories would be committed to its history", markHint)
		}
	case cur != "" && within(dir, cur):
		return nil, refuse("it is inside the work tree of the repository you are in ("+cur+"), where user memories do not belong", "")
	case isNew:
		// A folder that repository ignores is fine (a home directory kept
		// in git with everything ignored but the dotfiles): the nested
		// store shows nowhere in it.
		if r, err := gitstore.Discover(existingAncestor(dir)); err == nil && !ignoredIn(ctx, r.Root, dir) {
			return nil, refuse("it is inside the git work tree "+r.Root+", and a store there would be a repository nested in it", "")
		}
	case !markedUserStore(ctx, dir):
		// An existing repository not marked: another project's checkout
		// is refused; a store made before the mark existed (memories
		// only) is adopted, and marked so that this is asked once.
		why, err := notAUserStore(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("user store %s: %w", dir, err)
		}
		if why != "" {
			return nil, refuse(why, markHint)
		}
		// A mark that fails to be set (another process adopting it at
		// the same time holds the config lock) only means the question
		// is asked again: the store passed.
		_, _ = (git.Cmd{Dir: dir}).Run(ctx, "config", userStoreKey, "true")
	}
	// Private from the start: other local users may not read it (see
	// private.go). An existing store is left as it is; doctor says so.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("user store: %w", err)
	}
	if isNew {
		if _, err := (git.Cmd{Dir: dir}).Run(ctx, "init", "-q", "--shared="+privateShared); err != nil {
			return nil, fmt.Errorf("user store: git init %s: %w", dir, err)
		}
		if _, err := (git.Cmd{Dir: dir}).Run(ctx, "config", userStoreKey, "true"); err != nil {
			return nil, fmt.Errorf("user store: mark %s: %w", dir, err)
		}
	}
	opts.Dir = dir
	opts.Private = true
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
	if isNew {
		// What git and Init wrote with the umask's modes (.gitattributes,
		// git's hooks samples and description) is made private too.
		if _, err := MakePrivate(ctx, dir); err != nil {
			st.Close()
			return nil, err
		}
		// Its first commit holds what Init wrote (config, .gitignore,
		// .gitattributes): a store just made is not "uncommitted changes"
		// for doctor to warn about. A failure only leaves them for the
		// first save's commit, as before.
		_, _ = st.CommitMemories(ctx, contextfs.CommitOptions{Message: "contextfs: create the user store", LeaveRefused: true})
	}
	return st, nil
}

// markCommand is the command that marks the repository at dir as a user
// store, for messages.
func markCommand(dir string) string {
	return "git -C " + dir + " config " + userStoreKey + " true"
}

// markedUserStore reports whether the repository at dir, which must be
// its root, is marked as a user store (see userStoreKey) in its own
// configuration. The file is read here, not by git: opening the user
// store, on every user-scope command, starts no process for the mark. Git
// answers only where the file uses what gitstore does not read.
func markedUserStore(ctx context.Context, dir string) bool {
	r, err := gitstore.Discover(dir)
	if err != nil || !sameDir(r.Root, dir) {
		return false
	}
	marked, _, err := r.LocalConfigBool(userStoreKey)
	if err == nil {
		return marked
	}
	out, err := git.Cmd{Dir: dir}.Output(ctx, "config", "--local", "--includes", "--type=bool", "--get", userStoreKey)
	return err == nil && out == "true"
}

// notAUserStore says why the existing repository at dir, not marked as a
// user store, cannot be one: "" when it holds nothing but what contextfs
// writes to a store (.contextfs/ and the top .gitattributes, where init
// registers the merge driver), in its index, in its work tree (untracked
// files git does not ignore: a project not committed yet) and in the
// history of every ref. That is a user store made before the mark
// existed, or a clone of one, and is adopted. Anything else is some
// project whose history user memories must not enter.
func notAUserStore(ctx context.Context, dir string) (string, error) {
	const why = "it is an existing git repository not marked as a user store, and "
	others := []string{"--", ":(top,exclude)" + gitstore.Dir, ":(top,exclude).gitattributes"}
	cmd := git.Cmd{Dir: dir}
	r, err := gitstore.Discover(dir)
	if err != nil {
		return "", err
	}
	if !sameDir(r.Root, dir) {
		return "", fmt.Errorf("not the root of its own git repository (it is inside %s)", r.Root)
	}
	out, err := cmd.Run(ctx, append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard"}, others...)...)
	if err != nil {
		return "", err
	}
	if p, _, _ := strings.Cut(string(out), "\x00"); p != "" {
		return why + "it holds " + p + ", outside " + gitstore.Dir + "/: user memories would be committed to its history", nil
	}
	// --full-history: a file added and removed on a merged branch counts.
	c, err := cmd.Output(ctx, append([]string{"rev-list", "--all", "--full-history", "-n1", "--abbrev-commit"}, others...)...)
	if err != nil {
		return "", err
	}
	if c != "" {
		return why + "its history (commit " + c + ") has files outside " + gitstore.Dir + "/: user memories would be committed to it", nil
	}
	return "", nil
}

// ignoredIn reports whether the repository whose work tree is root
// ignores path (which need not exist).
func ignoredIn(ctx context.Context, root, path string) bool {
	rel, err := filepath.Rel(realPath(root), realPath(path))
	if err != nil {
		return false
	}
	_, err = git.Cmd{Dir: root}.Run(ctx, "check-ignore", "-q", "--no-index", "--", filepath.ToSlash(rel)+"/")
	return err == nil
}

// existingAncestor is dir or its nearest ancestor that exists: where the
// search for a work tree around a store not created yet starts.
func existingAncestor(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// within reports whether path is root or below it, symlinks resolved
// (path need not exist yet).
func within(path, root string) bool {
	rel, err := filepath.Rel(realPath(root), realPath(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath is p with the symlinks of its longest existing part resolved.
func realPath(p string) string {
	var rest []string
	for d := p; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		rest = append([]string{filepath.Base(d)}, rest...)
		d = parent
	}
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
