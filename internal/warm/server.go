package warm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/branchdiff"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/watch"
)

// Runner runs one command line for a caller over the server's open
// stores, writing what the command would have written; it returns the
// exit code. The program supplies it: what a command line means is its
// business.
type Runner interface {
	Run(ctx context.Context, s *Session, req *Request, stdout, stderr io.Writer) int
}

// Session is what a command run by the server uses instead of opening
// the stores: they stay open for the next caller, with what the server
// keeps beside them, as the MCP server keeps it.
type Session struct {
	// Set is the repository's store and, on demand, the user's.
	Set *scope.Set

	notes  *switchWriter
	diff   *branchdiff.Resolver
	blocks *contextblock.Builder
}

// SetNotes sends what the stores print from now on (notices, warnings)
// to w: the running command's standard error, in order with its own.
func (ss *Session) SetNotes(w io.Writer) { ss.notes.set(w) }

// ContextBlock is the context command's block, built with what the
// server keeps between calls (the branch's changed files, the last
// blocks); s is the repository's store, borrowed from Set.
func (ss *Session) ContextBlock(ctx context.Context, s *contextfs.Store, task string, budget int) (*contextblock.Block, error) {
	user, err := ss.Set.ExistingUser(ctx)
	if err != nil {
		fmt.Fprintf(ss.notes, "contextfs: the user store's preferences are left out: %v\n", err)
	}
	diff := ss.diff
	changed := func(ctx context.Context, within []string) ([]string, error) {
		ch, err := diff.FilesUnder(ctx, within)
		return ch.Files, err
	}
	return ss.blocks.Build(ctx, s, contextblock.Options{Task: task, Budget: budget, ChangedUnder: changed, User: user})
}

// Server runs commands for their callers inside the watcher, over stores
// it keeps open between calls. Its methods are watch.ServeOptions' Call
// and OnChange.
type Server struct {
	root   string
	build  string
	exe    string // the path this program was started from
	pinned []string
	run    Runner

	mu      sync.Mutex // one command at a time: the stores and the environment are not shared
	session *Session
	stamp   string
	carried []string // the carried variables the open stores were opened under
	notes   *switchWriter
	used    time.Time
}

// NewServer prepares answering for the repository at root, for the
// program of the given version; the stores open on the first call.
func NewServer(root, version string, run Runner) (*Server, error) {
	build, err := BuildID(version)
	if err != nil {
		return nil, err
	}
	exe, _ := os.Executable()
	return &Server{root: root, build: build, exe: exe, pinned: pinnedOf(os.Environ()), run: run,
		notes: &switchWriter{w: io.Discard}}, nil
}

// errDeclined is the daemon's "run it yourself".
var errDeclined = errors.New("warm: declined")

// Call is the watcher's ServeOptions.Call. A command that panics is
// declined (the caller runs it cold and shows the failure) rather than
// taking the watcher down with it.
func (w *Server) Call(ctx context.Context, name string, payload []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: panic: %v", errDeclined, r)
		}
	}()
	if name != CallName {
		return nil, fmt.Errorf("%w: unknown call %q", errDeclined, name)
	}
	var req Request
	if err := json.Unmarshal(payload, &req); err != nil {
		return nil, fmt.Errorf("%w: %v", errDeclined, err)
	}
	if req.Build != w.build {
		if w.replaced() {
			return nil, fmt.Errorf("%w: this program was replaced: %w", errDeclined, watch.ErrRetire)
		}
		return nil, fmt.Errorf("%w: another build", errDeclined)
	}
	if !slices.Equal(pinnedOf(req.Env), w.pinned) {
		return nil, fmt.Errorf("%w: another environment (GIT_DIR or another variable that names another repository)", errDeclined)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.openFor(ctx, req.Env); err != nil {
		return nil, fmt.Errorf("%w: %v", errDeclined, err)
	}
	set := w.session.Set
	if set.Repo.WatchMode() == contextfs.WatchOff {
		return nil, fmt.Errorf("%w: watch.mode is off", errDeclined)
	}
	var stdout, stderr bytes.Buffer
	w.notes.set(&stderr)
	defer w.notes.set(io.Discard)
	// What a cold command says once when it opens the store (unknown
	// keys, settings ignored for trust), said to each caller: the stores
	// here were opened for the first.
	for _, n := range set.Repo.Config.Notices() {
		fmt.Fprintln(&stderr, n)
	}
	repo := set.Repo
	gen := repo.IndexGeneration(ctx)
	code := w.run.Run(ctx, w.session, &req, &stdout, &stderr)
	w.used = time.Now()
	// A command that changed the memories leaves the next one the search
	// state to bring up to date: do it as the answer goes out.
	if w.session != nil && w.session.Set.Repo == repo && repo.IndexGeneration(ctx) != gen {
		repo.PrepareSearchLater()
	}
	return json.Marshal(Answer{Code: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()})
}

// openFor makes the process environment carry the caller's variables
// and opens the stores under it, reopening them when those variables
// differ from the ones they were opened under (another user store,
// another embedder setting) or a file they were opened from changed.
// w.mu is held.
func (w *Server) openFor(ctx context.Context, env []string) error {
	// The embedder's API key variable is named by the repository's
	// config: known once the stores are open, so a second pass may
	// carry it too.
	for range 2 {
		apiKeyEnv := ""
		if w.session != nil {
			apiKeyEnv = w.session.Set.Repo.Config.Embedder.APIKeyEnv
		}
		want := Carried(env, apiKeyEnv)
		if w.session != nil && !slices.Equal(want, w.carried) {
			w.closeLocked()
		}
		if err := apply(Carried(os.Environ(), apiKeyEnv), want); err != nil {
			return err
		}
		if err := w.open(ctx); err != nil {
			return err
		}
		w.carried = want
		if w.session.Set.Repo.Config.Embedder.APIKeyEnv == apiKeyEnv {
			return nil
		}
	}
	return nil
}

// Refresh is the watcher's ServeOptions.OnChange: after memory files
// changed (a pull, an editor, a command that ran without the watcher), it
// brings the open stores' index and search state up to date, so that the
// next command answered here finds them ready instead of doing it first.
// Stores closed for idleness stay closed: nobody is asking.
func (w *Server) Refresh() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.session == nil || w.session.Set.Repo == nil || w.session.Set.Repo.WatchMode() == contextfs.WatchOff {
		return
	}
	// With the memory folder gone there is nothing to get ready, and it
	// may be the work tree being deleted (rm -rf, git worktree remove):
	// the update would write the cache's files into the git dir, creating
	// it again. The next command syncs by itself.
	if _, err := os.Stat(filepath.Join(w.root, gitstore.Dir)); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	repo := w.session.Set.Repo
	if _, err := repo.Sync(ctx); err != nil {
		return // the next command meets it and reports it
	}
	_ = repo.PrepareSearch(ctx)
}

// replaced reports whether the file this program was started from is now
// another one: an upgrade. Such a daemon retires, so that the next
// command starts the new program.
func (w *Server) replaced() bool {
	f, err := os.Open(w.exe)
	if err != nil {
		return true
	}
	defer f.Close()
	version, _, _ := strings.Cut(w.build, ":")
	id, err := fileBuildID(f, version)
	return err != nil || id != w.build
}

// open opens the stores, or reopens them when a file they were opened
// from changed: a setting, the user store's appearance, or a cache
// database replaced by a rebuild. w.mu is held.
func (w *Server) open(ctx context.Context) error {
	repo, err := gitstore.Discover(w.root)
	if err != nil {
		return err
	}
	stamp := stampOf(repo)
	if w.session != nil && stamp == w.stamp {
		return nil
	}
	w.closeLocked()
	set, err := scope.Open(ctx, scope.Options{
		Store:    contextfs.Options{Dir: w.root, Notices: w.notes, LongLived: true},
		Warnings: w.notes,
	})
	if err != nil {
		return err
	}
	if set.Repo == nil {
		set.Close()
		return errors.New("not a repository")
	}
	if _, err := set.ExistingUser(ctx); err != nil {
		set.Close()
		return err
	}
	w.stamp = stamp
	w.session = &Session{Set: set, notes: w.notes,
		diff:   branchdiff.NewResolver(set.Repo.Repo.Root, set.Repo.Repo.GitDir, set.Repo.Repo.CommonDir),
		blocks: new(contextblock.Builder)}
	return nil
}

// stampOf describes the files whose change means reopening the stores.
func stampOf(repo *gitstore.Repo) string {
	var b strings.Builder
	one := func(path string) {
		fi, err := os.Stat(path)
		if err != nil {
			b.WriteString("-|")
			return
		}
		fmt.Fprintf(&b, "%d:%d", fi.Size(), fi.ModTime().UnixNano())
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			fmt.Fprintf(&b, ":%d:%d", st.Dev, st.Ino)
		}
		b.WriteByte('|')
	}
	ident := func(path string) { // which file, not its content: a database changes with every write
		fi, err := os.Stat(path)
		if st, ok := fi.Sys().(*syscall.Stat_t); err == nil && ok {
			b.WriteString(strconv.FormatUint(st.Ino, 10) + "|")
			return
		}
		b.WriteString("-|")
	}
	one(filepath.Join(repo.Root, gitstore.Dir, "config.yaml"))
	// Whether the clone is trusted decides the embedder and what is
	// indexed (config.TrustKey): an answer computed under the other
	// decision must not be served.
	fmt.Fprintf(&b, "trust:%t|", config.Trusted(repo))
	ident(filepath.Join(repo.GitDir, "contextfs", cache.DBFile))
	if p, err := scope.ConfigPath(); err == nil {
		one(p)
	}
	if d, err := scope.UserDir(); err == nil {
		b.WriteString(d + "|")
		one(filepath.Join(d, ".git"))
		one(filepath.Join(d, gitstore.Dir, "config.yaml"))
		if u, err := gitstore.Discover(d); err == nil {
			fmt.Fprintf(&b, "trust:%t|", config.Trusted(u))
			ident(filepath.Join(u.GitDir, "contextfs", cache.DBFile))
		}
	}
	return b.String()
}

// Idle is how long the watcher keeps the stores open without a call: it
// then gives their memory back, and the next call opens them again.
const Idle = 5 * time.Minute

// CloseWhenIdle closes the stores once no command came for after, until
// ctx ends.
func (w *Server) CloseWhenIdle(ctx context.Context, after time.Duration) {
	t := time.NewTicker(after / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.mu.Lock()
			if w.session != nil && time.Since(w.used) > after {
				w.closeLocked()
			}
			w.mu.Unlock()
		}
	}
}

// Close closes the open stores.
func (w *Server) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeLocked()
}

func (w *Server) closeLocked() {
	if w.session != nil {
		w.session.Set.Close()
		w.session, w.stamp = nil, ""
	}
}

// switchWriter sends what the stores print (notices, warnings) to the
// standard error of the command being run.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

// Write writes to the current target.
func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
