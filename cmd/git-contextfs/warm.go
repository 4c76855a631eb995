package main

// Warm answers: a command that only reads (search, context, a page of
// list) asks the repository's running watcher to run it, since the
// watcher keeps the store open (the cache's connection, its vectors, the embedder's tables)
// and a fresh process would rebuild all of that to answer one query. The
// watcher runs the same command code over the same files, syncing first
// as every command does, so the answer is the one the command would have
// printed; on any doubt the command runs cold, as it always could.
//
// A daemon is trusted only when it is this very program (the same
// executable file, see buildID) run by the same user (the socket's peer
// credentials, checked by package watch) with the same environment where
// it matters (envMatters). See docs/DESIGN.md, "Warm answers".

import (
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

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/branchdiff"
	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/config"
	"github.com/contextfs/contextfs/contextblock"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/scope"
	"github.com/contextfs/contextfs/watch"
)

// warmCallName is the watch call that runs a command line.
const warmCallName = "run"

// warmTimeout is how long a command waits for a warm answer before doing
// the work itself. The first call of a daemon opens the store (what a
// cold command does anyway); later ones take milliseconds. A daemon that
// does not answer at all (stopped, stuck) is given up on far sooner: see
// watch.CallDaemon and hungWatcher.
const warmTimeout = 10 * time.Second

// warmRequest is what a command sends to the watcher.
type warmRequest struct {
	// Build identifies the sending program; see buildID.
	Build string `json:"build"`
	// Env is the sender's environment, KEY=VALUE: the daemon compares
	// what matters to its own.
	Env []string `json:"env"`
	// Args is the command line to run, starting with -C ROOT.
	Args []string `json:"args"`
	// Color and Width are the sender's standard output: whether it is
	// coloured and the terminal width to fit lines to (0: none), which
	// the watcher, writing to a buffer, cannot know. Standard error is
	// coloured by the sender as it writes it.
	Color bool `json:"color,omitempty"`
	Width int  `json:"width,omitempty"`
}

// warmAnswer is what the command would have written and its exit code.
type warmAnswer struct {
	Code   int    `json:"code"`
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
}

// warmListMax is the longest listing list asks the watcher for. A warm
// answer comes back whole, in one frame, where a cold listing is written
// as it goes; and past a page the answer's transfer costs what it saves
// (see docs/DESIGN.md, "Warm answers": at 10K memories, --all warm costs
// the command and the watcher together more than it does cold).
const warmListMax = 1000

// warmable reports whether c, run with args, may be answered by the
// watcher: commands whose output depends only on the repository, the
// user's files and the environment, not on the terminal, standard input
// or the current directory. save writes through the same code as a cold
// save (atomic file, cache update, duplicate check), one call at a time.
// tty says whether standard output is a terminal: list's text then goes
// through a pager, which only the command itself can start.
func warmable(c *cobra.Command, args []string, tty bool) bool {
	if c.Parent() == nil || c.Parent().Parent() != nil {
		return false
	}
	switch c.Name() {
	case "search":
		// --path names files relative to where the command runs; --repos
		// reads other repositories, whose watchers are their own.
		return len(args) > 0 && !c.Flags().Changed("path") && !c.Flags().Changed("repos")
	case "context", "prompt-context":
		return true
	case "list":
		// --path names files relative to where the command runs.
		all, _ := c.Flags().GetBool("all")
		n, _ := c.Flags().GetInt("limit")
		asJSON, _ := c.Flags().GetBool("json")
		return (asJSON || !tty) && !all && n <= warmListMax && !c.Flags().Changed("path")
	case "save":
		// The content on the command line, not on standard input, which
		// the watcher does not have.
		return len(args) > 0 && !(len(args) == 1 && args[0] == "-")
	}
	return false
}

// tryWarm asks the repository's watcher to run c with args. It returns
// the exit code and true when the watcher answered (its output is then
// written), false when the command must run itself. CONTEXTFS_WARM=off
// never asks; CONTEXTFS_WARM=only fails rather than run cold, to check
// that a watcher answers: a command never sent to the watcher fails too,
// since a benchmark or test that set it must not time or check a cold
// run believing it warm.
func (a *app) tryWarm(c *cobra.Command, args []string) (int, bool) {
	if !a.askWarm || a.warm != nil {
		return 0, false
	}
	mode := os.Getenv("CONTEXTFS_WARM")
	if !warmable(c, args, a.io.StdoutIsTerminal()) {
		if mode == "only" && !onlyExempt(c) {
			fmt.Fprintf(a.io.ErrOut, "git-contextfs: no warm answer (CONTEXTFS_WARM=only): %s; unset CONTEXTFS_WARM to run it cold\n", notSentReason(c))
			return exitFail, true
		}
		return 0, false
	}
	if mode == "off" || os.Getenv("CONTEXTFS_WATCH") == contextfs.WatchOff && mode != "only" {
		return 0, false
	}
	ans, err := a.askWatcher(c, args)
	if err != nil {
		if mode == "only" {
			fmt.Fprintf(a.io.ErrOut, "git-contextfs: no warm answer (CONTEXTFS_WARM=only): %v\n", err)
			return exitFail, true
		}
		var hung *hungWatcher
		if errors.As(err, &hung) {
			// One line; then the command runs cold, and its query of
			// changes gives up on the watcher silently (0.2 s).
			fmt.Fprintln(a.io.ErrOut, hung.notice())
		}
		return 0, false
	}
	a.io.Out.Write(ans.Stdout)
	a.io.ErrOut.Write(ans.Stderr)
	return ans.Code, true
}

// onlyExempt reports whether c is left alone by CONTEXTFS_WARM=only,
// which is about the commands a benchmark or test runs: help and
// completions (nothing to run cold), and what git or contextfs itself
// starts with the environment it was given (a hook, the merge driver,
// the watcher), which must not fail a commit, a merge or the watcher;
// nor the session commands an agent's hooks run (setup claude), which a
// CONTEXTFS_WARM=only left in a shell profile would fail at every start
// and end of an agent session.
func onlyExempt(c *cobra.Command) bool {
	switch c.Name() {
	case "help", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "hook", "merge-driver":
		return c.Parent() == c.Root()
	case "run":
		return c.Parent() != nil && c.Parent().Name() == "watch"
	case "start", "end":
		return c.Parent() != nil && c.Parent().Name() == "session"
	}
	return c == c.Root()
}

// notSentReason says why c, which warmable refused, is not sent to the
// watcher, naming the command as typed after git-contextfs.
func notSentReason(c *cobra.Command) string {
	name := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	switch c.Name() {
	case "search", "context", "prompt-context", "list", "save":
		if c.Parent() == c.Root() {
			return fmt.Sprintf("%s is not sent to the watcher with these arguments or this output (see docs/DESIGN.md, \"Warm answers\")", name)
		}
	}
	return fmt.Sprintf("%s is never sent to the watcher", name)
}

// askWatcher sends c's command line to the watcher of the repository
// around --repo and returns its answer.
func (a *app) askWatcher(c *cobra.Command, args []string) (warmAnswer, error) {
	var ans warmAnswer
	repo, err := gitstore.Discover(a.workDir())
	if err != nil {
		return ans, err
	}
	build, err := buildID()
	if err != nil {
		return ans, err
	}
	req := warmRequest{Build: build, Env: os.Environ(), Args: warmArgs(repo.Root, c, args),
		Color: a.io.ColorEnabled(), Width: a.io.TerminalWidth()}
	payload, err := json.Marshal(req)
	if err != nil {
		return ans, err
	}
	socket := contextfs.WatchSocketOf(repo)
	data, err := watch.CallDaemon(c.Context(), socket, warmCallName, payload, warmTimeout)
	if errors.Is(err, watch.ErrNotAnswering) {
		pid, _ := watch.Holder(socket)
		return ans, &hungWatcher{pid: pid, err: err}
	}
	if err != nil {
		return ans, err
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return ans, fmt.Errorf("malformed answer: %w", err)
	}
	return ans, nil
}

// hungWatcher is askWatcher's error for a watcher that accepts requests
// but answers none, not even a status request (watch.ErrNotAnswering):
// stopped (SIGSTOP, a debugger) or stuck. pid is 0 when unknown.
type hungWatcher struct {
	pid int
	err error
}

func (h *hungWatcher) Error() string { return h.what() + "; " + hungFix }

func (h *hungWatcher) Unwrap() error { return h.err }

// notice is the line a command prints before it runs without the watcher.
func (h *hungWatcher) notice() string {
	return "git-contextfs: " + h.what() + ", so this command runs without it; " + hungFix
}

func (h *hungWatcher) what() string {
	who := "the change watcher"
	if h.pid > 0 {
		who += fmt.Sprintf(" (pid %d)", h.pid)
	}
	return who + " is not answering (stopped or stuck)"
}

// hungFix is what to do about a watcher that does not answer.
const hungFix = "`git contextfs watch stop` stops it"

// warmArgs rebuilds the command line of c: -C root, the command's name,
// each flag set (as --name=value, repeated for lists), then the
// positional arguments after "--".
func warmArgs(root string, c *cobra.Command, args []string) []string {
	out := []string{"-C", root, c.Name()}
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Changed || f.Name == "repo" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	out = append(out, "--")
	return append(out, args...)
}

// buildID names the running executable file: its device, inode, size and
// modification time, and the version. Two processes with the same ID run
// the same bytes; a rebuilt or upgraded binary gets a new one.
func buildID() (string, error) {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		exe, xerr := os.Executable()
		if xerr != nil {
			return "", err
		}
		if f, err = os.Open(exe); err != nil {
			return "", err
		}
	}
	defer f.Close()
	return fileBuildID(f)
}

func fileBuildID(f *os.File) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	id := fmt.Sprintf("%s:%d:%d", version(), fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(":%d:%d", st.Dev, st.Ino)
	}
	return id, nil
}

// envMatters reports whether an environment variable can change what a
// command reads or prints: where the stores and settings are, git's view
// of the repository, the embedder's endpoint and keys, the watch mode.
func envMatters(key, apiKeyEnv string) bool {
	switch {
	case key == "CONTEXTFS_WARM", key == "CONTEXTFS_PEAK_RSS": // about the asking process only
		return false
	case key == "CONTEXTFS_WATCH":
		// Whether to use a watcher: a process that asks has decided
		// (off never asks), and a watcher started by a command run
		// without the variable serves one run with it set to on.
		return false
	case key == "HOME", key == "PATH", key == apiKeyEnv && key != "",
		strings.HasPrefix(key, "CONTEXTFS_"), strings.HasPrefix(key, "XDG_"),
		strings.HasPrefix(key, "GIT_"), strings.HasPrefix(key, "OPENAI_"):
		return true
	}
	return false
}

// envSubset is the part of env (KEY=VALUE lines) that matters, sorted,
// less what git adds when it runs this program as `git contextfs` (or a
// hook that runs it): GIT_EXEC_PATH, and that folder put first in PATH.
// The hooks run git-contextfs and people type git contextfs, so a watcher
// started one way serves commands run the other. The rest of PATH is
// compared as it is: the git found there is the git that was typed, whose
// own programs are in its exec path. A GIT_EXEC_PATH that is not at the
// head of PATH was not put there by git, and is compared.
func envSubset(env []string, apiKeyEnv string) []string {
	var execPath, path string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_EXEC_PATH="); ok {
			execPath = v
		} else if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	added := false
	if execPath != "" {
		// git prepends it each time it runs a program: an alias or a
		// hook that runs git contextfs has it twice.
		for path == execPath || strings.HasPrefix(path, execPath+string(os.PathListSeparator)) {
			path = strings.TrimPrefix(strings.TrimPrefix(path, execPath), string(os.PathListSeparator))
			added = true
		}
	}
	var out []string
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok || !envMatters(k, apiKeyEnv):
		case added && k == "GIT_EXEC_PATH":
		case added && k == "PATH":
			out = append(out, "PATH="+path)
		default:
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}

// warmServer runs commands for their callers inside the watcher, over
// stores it keeps open between calls.
type warmServer struct {
	root  string
	build string
	exe   string // the path this program was started from
	env   []string

	mu    sync.Mutex // one command at a time: the app and stores are not shared
	set   *scope.Set
	stamp string
	notes *switchWriter
	used  time.Time

	// Kept while the stores stay open, as the MCP server keeps them: the
	// changed files of the branch and the last context blocks.
	diff   *branchdiff.Resolver
	blocks *contextblock.Builder
}

// newWarmServer prepares answering for the repository at root; the
// stores open on the first call.
func newWarmServer(root string) (*warmServer, error) {
	build, err := buildID()
	if err != nil {
		return nil, err
	}
	exe, _ := os.Executable()
	return &warmServer{root: root, build: build, exe: exe, env: os.Environ(), notes: &switchWriter{w: io.Discard}}, nil
}

// errWarmDeclined is the daemon's "run it yourself".
var errWarmDeclined = errors.New("warm: declined")

// call is the watcher's ServeOptions.Call. A command that panics is
// declined (the caller runs it cold and shows the failure) rather than
// taking the watcher down with it.
func (w *warmServer) call(ctx context.Context, name string, payload []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: panic: %v", errWarmDeclined, r)
		}
	}()
	if name != warmCallName {
		return nil, fmt.Errorf("%w: unknown call %q", errWarmDeclined, name)
	}
	var req warmRequest
	if err := json.Unmarshal(payload, &req); err != nil {
		return nil, fmt.Errorf("%w: %v", errWarmDeclined, err)
	}
	if req.Build != w.build {
		if w.replaced() {
			return nil, fmt.Errorf("%w: this program was replaced: %w", errWarmDeclined, watch.ErrRetire)
		}
		return nil, fmt.Errorf("%w: another build", errWarmDeclined)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.open(ctx); err != nil {
		return nil, fmt.Errorf("%w: %v", errWarmDeclined, err)
	}
	apiKeyEnv := w.set.Repo.Config.Embedder.APIKeyEnv
	if !slices.Equal(envSubset(req.Env, apiKeyEnv), envSubset(w.env, apiKeyEnv)) {
		return nil, fmt.Errorf("%w: another environment", errWarmDeclined)
	}
	if w.set.Repo.WatchMode() == contextfs.WatchOff {
		return nil, fmt.Errorf("%w: watch.mode is off", errWarmDeclined)
	}
	ios, _, stdout, stderr := iostreams.Test()
	ios.SetColor(req.Color, false)
	ios.SetTerminalWidth(req.Width)
	w.notes.set(stderr)
	defer w.notes.set(io.Discard)
	// What a cold command says once when it opens the store (unknown
	// keys, settings ignored for trust), said to each caller: the stores
	// here were opened for the first.
	for _, n := range w.set.Repo.Config.Notices() {
		fmt.Fprintln(stderr, n)
	}
	a := &app{io: ios, warm: w}
	repo := w.set.Repo
	gen := repo.IndexGeneration(ctx)
	code := a.run(ctx, req.Args)
	w.used = time.Now()
	// A command that changed the memories leaves the next one the search
	// state to bring up to date: do it as the answer goes out.
	if w.set != nil && w.set.Repo == repo && repo.IndexGeneration(ctx) != gen {
		repo.PrepareSearchLater()
	}
	return json.Marshal(warmAnswer{Code: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()})
}

// refresh is the watcher's ServeOptions.OnChange: after memory files
// changed (a pull, an editor, a command that ran without the watcher), it
// brings the open stores' index and search state up to date, so that the
// next command answered here finds them ready instead of doing it first.
// Stores closed for idleness stay closed: nobody is asking.
func (w *warmServer) refresh() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.set == nil || w.set.Repo == nil || w.set.Repo.WatchMode() == contextfs.WatchOff {
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
	repo := w.set.Repo
	if _, err := repo.Sync(ctx); err != nil {
		return // the next command meets it and reports it
	}
	_ = repo.PrepareSearch(ctx)
}

// replaced reports whether the file this program was started from is now
// another one: an upgrade. Such a daemon retires, so that the next
// command starts the new program.
func (w *warmServer) replaced() bool {
	f, err := os.Open(w.exe)
	if err != nil {
		return true
	}
	defer f.Close()
	id, err := fileBuildID(f)
	return err != nil || id != w.build
}

// open opens the stores, or reopens them when a file they were opened
// from changed: a setting, the user store's appearance, or a cache
// database replaced by a rebuild. w.mu is held.
func (w *warmServer) open(ctx context.Context) error {
	repo, err := gitstore.Discover(w.root)
	if err != nil {
		return err
	}
	stamp := w.stampOf(repo)
	if w.set != nil && stamp == w.stamp {
		return nil
	}
	w.closeLocked()
	set, err := scope.Open(ctx, scope.Options{
		Store:    contextfs.Options{Dir: w.root, Notices: w.notes},
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
	w.set, w.stamp = set, stamp
	w.diff = branchdiff.NewResolver(set.Repo.Repo.Root, set.Repo.Repo.GitDir, set.Repo.Repo.CommonDir)
	w.blocks = new(contextblock.Builder)
	return nil
}

// contextBlock is the context command's block, built by the watcher with
// what it keeps between calls; s is the repository's store, borrowed from
// w.set. w.mu is held.
func (w *warmServer) contextBlock(ctx context.Context, s *contextfs.Store, task string, budget int) (*contextblock.Block, error) {
	user, err := w.set.ExistingUser(ctx)
	if err != nil {
		fmt.Fprintf(w.notes, "contextfs: the user store's preferences are left out: %v\n", err)
	}
	return w.blocks.Build(ctx, s, contextblock.Options{Task: task, Budget: budget, ChangedUnder: changedUnder(w.diff), User: user})
}

// stampOf describes the files whose change means reopening the stores.
func (w *warmServer) stampOf(repo *gitstore.Repo) string {
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
		one(filepath.Join(d, ".git"))
		one(filepath.Join(d, gitstore.Dir, "config.yaml"))
		if u, err := gitstore.Discover(d); err == nil {
			fmt.Fprintf(&b, "trust:%t|", config.Trusted(u))
			ident(filepath.Join(u.GitDir, "contextfs", cache.DBFile))
		}
	}
	return b.String()
}

// warmIdle is how long the watcher keeps the stores open without a call:
// it then gives their memory back, and the next call opens them again.
const warmIdle = 5 * time.Minute

// closeWhenIdle closes the stores once no command came for after, until
// ctx ends.
func (w *warmServer) closeWhenIdle(ctx context.Context, after time.Duration) {
	t := time.NewTicker(after / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.mu.Lock()
			if w.set != nil && time.Since(w.used) > after {
				w.closeLocked()
			}
			w.mu.Unlock()
		}
	}
}

func (w *warmServer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeLocked()
}

func (w *warmServer) closeLocked() {
	if w.set != nil {
		w.set.Close()
		w.set, w.stamp = nil, ""
		w.diff, w.blocks = nil, nil
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
