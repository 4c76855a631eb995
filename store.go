// Package contextfs is the Go API of contextfs, a git-native memory for AI
// coding assistants. Memories are Markdown files with YAML frontmatter
// under .contextfs/ in a git repository; a disposable cache in the git
// directory makes them searchable by keyword and by meaning.
//
//	s, err := contextfs.Open(ctx, contextfs.Options{Dir: "."})
//	m, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Body: "Use pgx pools of 20."})
//	res, err := s.Search(ctx, contextfs.Query{Text: "how do we pool db connections"})
//
// The CLI (cmd/git-contextfs) and the hooks are thin layers over this API.
package contextfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/autoindex"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/memory"
)

// Options configure Open.
type Options struct {
	// Dir is where to look for the repository (any folder inside its work
	// tree); "" means the current directory.
	Dir string
	// Embedder overrides the one chosen by config and environment.
	Embedder embed.Embedder
	// Notices receives one-line notices, such as a cache rebuild; nil
	// discards them.
	Notices io.Writer
	// Now returns the time used for created/updated; nil means time.Now.
	Now func() time.Time
	// StartWatcher starts, in the background, a change watcher for the
	// work tree at root (package watch) when the watch mode asks for one
	// and none is running; nil never starts one. Only the program that
	// can serve it knows how: the CLI runs itself as `watch run`.
	StartWatcher func(root string) error
	// Private makes every file and folder the store writes its owner's
	// only (0600, 0700): the user store's. A store whose work tree's root
	// folder is already private is treated so without it.
	Private bool
	// LongLived says the process keeps the store open for many commands
	// (the watcher answering warm commands, the MCP server): the code
	// index then watches the tracked files' folders (inotify) instead of
	// stat'ing every tracked file at each search.
	LongLived bool
	// VectorIndexFrom is the number of documents from which an unfiltered
	// semantic search reads the column index (an int8 copy of the vectors,
	// re-ranked exactly) instead of scanning every vector; 0 is the
	// cache's default. For measuring the two against each other.
	VectorIndexFrom int
}

// Store is an open contextfs repository: its memory files and its cache.
type Store struct {
	Repo   *gitstore.Repo
	Config Config
	emb    embed.Embedder
	ownEmb bool // emb was made by Open, which Close then closes
	cache  *cache.Cache
	notes  io.Writer
	now    func() time.Time

	// repoEmb: emb is one the repository's (trusted) config chose, not
	// the user's (EmbedderChosenByRepo).
	repoEmb bool

	startWatcher func(root string) error

	// tracked keeps git's tracked-file list while the index file is
	// unchanged, so that a long-lived process (the watcher, the MCP
	// server) does not read it at every search.
	tracked *autoindex.Tracked

	// unavailMu guards unavailNoted: whether the embedding server's
	// error was told once (noteUnavailable).
	unavailMu    sync.Mutex
	unavailNoted bool

	// bgMu is held by background work on the cache (PrepareSearchLater)
	// and by whoever closes or replaces the cache, so that such work
	// never runs on a closed cache; bgClosed says the store is closed.
	bgMu     sync.Mutex
	bgClosed bool
}

// ErrNotFound is returned when no memory has the given ID or prefix.
var ErrNotFound = errors.New("no memory with that ID")

// Open finds the repository containing opts.Dir, reads its config and
// opens (or rebuilds) its cache. It does not require `init`: a repository
// without .contextfs/ simply has no memories yet.
func Open(ctx context.Context, opts Options) (*Store, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(repo)
	if err != nil {
		return nil, err
	}
	if err := checkWatchEnv(); err != nil {
		return nil, err
	}
	notes := opts.Notices
	if notes == nil {
		notes = io.Discard
	}
	// Once per store: unknown keys, and the settings left out because
	// the clone is not trusted (before anything could be sent).
	for _, n := range cfg.Notices() {
		fmt.Fprintln(notes, n)
	}
	emb, ownEmb := opts.Embedder, opts.Embedder == nil
	repoEmb := false
	if ownEmb {
		ec := embedConfig(cfg.Embedder)
		// The repository chose the embedder when what is in force is
		// not what the user's own settings give (a trusted clone's).
		repoEmb = cfg.EmbedderFromRepo && ec != embedConfig(cfg.User.Embedder)
		if emb, err = embed.New(ec); err != nil {
			return nil, fmt.Errorf("embedder: %w", err)
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	repo.MaxFileBytes = cfg.Limits.WithDefaults().MaxFileBytes
	repo.Private = opts.Private || privateDir(repo.Root)
	s := &Store{Repo: repo, Config: cfg, emb: emb, ownEmb: ownEmb, repoEmb: repoEmb, notes: notes, now: now, startWatcher: opts.StartWatcher,
		tracked: &autoindex.Tracked{File: filepath.Join(repo.GitDir, "contextfs", "tracked"), Watch: opts.LongLived}}
	if err := s.openCache(ctx, opts.VectorIndexFrom); err != nil {
		return nil, err
	}
	return s, nil
}

// CacheDir is where the cache lives: inside this work tree's git
// directory, so it is never committed and worktrees do not share it.
func (s *Store) CacheDir() string { return filepath.Join(s.Repo.GitDir, "contextfs") }

// CacheReadOnly reports whether the cache was opened read-only (a git
// directory this process may not write): then nothing that only saves
// work for the next command is written beside it either.
func (s *Store) CacheReadOnly() bool { return s.cache.ReadOnly() }

func (s *Store) openCache(ctx context.Context, vectorIndexFrom int) error {
	c, err := cache.Open(ctx, s.CacheDir(), s.emb)
	if err != nil {
		return err
	}
	if vectorIndexFrom > 0 {
		c.SetVectorIndexFrom(vectorIndexFrom)
	}
	if c.Notice != "" {
		fmt.Fprintln(s.notes, c.Notice)
	}
	c.OnDamage = func(msg string) { fmt.Fprintln(s.notes, msg) }
	s.cache = c
	return nil
}

// Close releases the cache, after background work on it
// (PrepareSearchLater) has finished; work not yet started is dropped.
func (s *Store) Close() error {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	s.bgClosed = true
	s.tracked.Close()
	if c, ok := s.emb.(io.Closer); ok && s.ownEmb {
		c.Close() // ends provider openai's program, if it was started
	}
	if s.cache == nil {
		return nil
	}
	return s.cache.Close()
}

// PrepareSearchLater brings what searches of the memories read (the
// rankers' document set) up to the cache's current generation in the
// background, rather than at the next search. A long-lived process (the
// watcher, the MCP server) calls it once a command has changed the
// memories, as the answer goes out: the next command, often a save's
// duplicate check or a search, then finds it ready instead of building it
// first (at 100K memories, a few milliseconds after every save). The work
// is the same; it moves to the time between commands, and a command that
// comes sooner waits for it as it would have done it.
func (s *Store) PrepareSearchLater() {
	c := s.cache
	go func() {
		s.bgMu.Lock()
		defer s.bgMu.Unlock()
		if s.bgClosed || s.cache != c {
			return
		}
		// An error is the next search's to meet and report, when it does
		// the same work.
		_ = c.Prepare(context.Background(), cache.KindMemory)
	}()
}

// Embedder returns the embedder in use.
func (s *Store) Embedder() embed.Embedder { return s.emb }

// EmbedderChosenByRepo reports whether the embedder in use is one the
// repository's own config chose (a clone trusted with
// config.TrustCommand), rather than the user's settings or the caller's:
// the memories of other stores, the user's above all, are never given to
// it (package scope).
func (s *Store) EmbedderChosenByRepo() bool { return s.repoEmb }

// embedConfig is the embedder that settings c give, the environment
// (CONTEXTFS_EMBEDDER and the rest, the user's) over them.
func embedConfig(c EmbedderConfig) embed.Config {
	ec := embed.Config{Provider: c.Provider, Model: c.Model, BaseURL: c.URL}
	if c.APIKeyEnv != "" {
		ec.APIKey = os.Getenv(c.APIKeyEnv)
	}
	return embed.ConfigFromEnv(ec)
}

// privateDir reports whether dir is its owner's only: no permission for
// group or others.
func privateDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode().Perm()&0o077 == 0
}

// Sync brings the memory index up to date with the files: a stat of each
// memory file, and a parse only of content never seen before. Every
// command calls it first. A corrupt cache is rebuilt and the sync retried.
func (s *Store) Sync(ctx context.Context) (cache.SyncStats, error) {
	st, _, err := s.syncFresh(ctx)
	return st, err
}

// syncFresh is Sync, also saying whether the cache now matches the files:
// not when it is read-only or could not be written, and the answers come
// from what it last held.
func (s *Store) syncFresh(ctx context.Context) (cache.SyncStats, bool, error) {
	if s.cache.ReadOnly() {
		return cache.SyncStats{}, false, nil // answers from the cache as it is (Open said so)
	}
	st, err := s.syncOrRebuild(ctx)
	switch {
	case err != nil && cache.IsUnwritable(err):
		// A full disk or a cache turned read-only: answer from what it has.
		fmt.Fprintln(s.notes, "contextfs: the cache could not be updated ("+err.Error()+"); results may be stale")
		return st, false, nil
	case err != nil && errors.Is(err, embed.ErrUnavailable):
		// The files that changed need vectors the server cannot give now.
		// Nothing of them was written, so the next sync finds them again;
		// until then, answer from what the cache has (docs/RELIABILITY.md).
		s.noteUnavailable("new and changed memories are not indexed until it answers; results may be stale", err)
		return st, false, nil
	}
	return st, err == nil, err
}

// noteUnavailable tells, in a one-line notice, what a command does
// without the embedding server: with the server's error the first time,
// which says how to start it, and shortly after that.
func (s *Store) noteUnavailable(what string, err error) {
	s.unavailMu.Lock()
	first := !s.unavailNoted
	s.unavailNoted = true
	s.unavailMu.Unlock()
	if first {
		fmt.Fprintf(s.notes, "contextfs: the embedding server is unavailable (%v): %s\n", err, what)
		return
	}
	fmt.Fprintf(s.notes, "contextfs: the embedding server is unavailable: %s\n", what)
}

// syncOrRebuild syncs, and rebuilds a cache found corrupt.
func (s *Store) syncOrRebuild(ctx context.Context) (cache.SyncStats, error) {
	st, err := s.sync(ctx)
	if err != nil && cache.IsCorrupt(err) {
		return s.rebuild(ctx, "corrupt: "+err.Error())
	}
	return st, err
}

// rebuild deletes the cache and builds it again from the files, saying
// why in a one-line notice.
func (s *Store) rebuild(ctx context.Context, why string) (cache.SyncStats, error) {
	fmt.Fprintln(s.notes, "contextfs: cache rebuilt ("+why+")")
	if err := s.resetCache(ctx); err != nil {
		return cache.SyncStats{}, err
	}
	return s.sync(ctx)
}

// rebuildIfCorrupt rebuilds the cache when err says it is corrupt (a
// damaged page, a table gone), and reports whether it did: corruption
// that opening and syncing did not reach, in pages only a search or a
// listing reads, must not fail every command until someone runs reindex.
// The caller then runs its read again, once. A read-only cache is
// answered from as it is.
func (s *Store) rebuildIfCorrupt(ctx context.Context, err error) (bool, error) {
	if err == nil || s.cache.ReadOnly() || !cache.IsCorrupt(err) {
		return false, err
	}
	if _, err := s.rebuild(ctx, "corrupt: "+err.Error()); err != nil {
		return false, err
	}
	return true, nil
}

// VerifyCache runs the cache's full check (cache.Verify: SQLite's
// integrity check, FTS5's against the documents, the row checksums). A
// damaged cache is rebuilt, as reads do, and the damage returned in an
// error that cache.IsCorrupt reports, so that doctor fails on it. A
// read-only cache is not checked: nothing could be done about it.
func (s *Store) VerifyCache(ctx context.Context) error {
	if s.cache.ReadOnly() {
		return nil
	}
	err := s.cache.Verify(ctx)
	if err == nil || !cache.IsCorrupt(err) {
		return err
	}
	if _, rerr := s.rebuild(ctx, err.Error()); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// syncWritten brings the index up to date with files this store has just
// written or removed, and only with them: after a save the cache reads,
// parses and embeds that one file, where Sync would first ask the watcher
// or stat every memory. Other changes are left to the next Sync, which
// every read does first. A corrupt cache falls back to Sync, which
// rebuilds it.
func (s *Store) syncWritten(ctx context.Context, rels ...string) error {
	if s.cache.ReadOnly() {
		return nil
	}
	only := make(map[string]bool, len(rels))
	for _, p := range rels {
		only[p] = true
	}
	_, err := s.cache.SyncFilesWith(ctx, cache.KindMemory, s.Repo.Root, s.Repo.StatPaths(rels), cache.SyncOptions{
		NewAnalyzer:  func() (cache.Analyzer, func()) { return analyzeMemory, func() {} },
		Only:         only,
		MaxFileBytes: s.Repo.MaxFileBytes,
		TooLarge: func(p string, n int64) {
			fmt.Fprintf(s.notes, "contextfs: %s\n", &memory.TooLargeError{Path: p, Size: n, Limit: s.Repo.MaxFileBytes})
		},
	})
	switch {
	case err != nil && cache.IsUnwritable(err):
		fmt.Fprintln(s.notes, "contextfs: the cache could not be updated ("+err.Error()+"); results may be stale")
		return nil
	case err != nil && errors.Is(err, embed.ErrUnavailable):
		// The file is written; the next sync with the server up indexes it.
		s.noteUnavailable("written, but not indexed until it answers", err)
		return nil
	case err != nil && cache.IsCorrupt(err):
		_, err = s.Sync(ctx)
	}
	return err
}

func (s *Store) sync(ctx context.Context) (cache.SyncStats, error) {
	// The watcher's token is stored only into the database its answer was
	// compared with: one replaced meanwhile by a reindex may lack changes
	// the token says were seen.
	id := s.cache.ID(ctx)
	entries, only, token, err := s.memoryFiles(ctx)
	if err != nil {
		return cache.SyncStats{}, err
	}
	st, err := s.syncInto(ctx, s.cache, entries, only, nil)
	if err != nil {
		return st, err
	}
	// The watcher's token goes with the state its answer built; a change
	// since then is numbered after it and reported next time.
	if token != "" {
		if err := s.cache.SetMetaAt(ctx, id, watchTokenKey, token); err != nil {
			return st, err
		}
	}
	if _, err := s.cache.EnsureModel(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// syncInto syncs the memory files entries (only those in only, when not
// nil) into c, telling progress (when not nil) as files are analysed.
func (s *Store) syncInto(ctx context.Context, c *cache.Cache, entries []gitstore.Entry, only map[string]bool, progress func(done, total int)) (cache.SyncStats, error) {
	return c.SyncFilesWith(ctx, cache.KindMemory, s.Repo.Root, entries, cache.SyncOptions{
		Progress:    progress,
		Workers:     runtime.NumCPU(),
		NewAnalyzer: func() (cache.Analyzer, func()) { return analyzeMemory, func() {} },
		Only:        only,
		Reported:    only != nil, // the watcher saw them written: an edit can keep size and time
		Recheck:     s.Repo.StatPaths,
		// A file over the limit is reported, never read.
		MaxFileBytes: s.Repo.MaxFileBytes,
		TooLarge: func(p string, n int64) {
			fmt.Fprintf(s.notes, "contextfs: %s\n", &memory.TooLargeError{Path: p, Size: n, Limit: s.Repo.MaxFileBytes})
		},
	})
}

func (s *Store) resetCache(ctx context.Context) error {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	s.cache.Close()
	if err := cache.Remove(s.CacheDir()); err != nil {
		return err
	}
	c, err := cache.Open(ctx, s.CacheDir(), s.emb)
	if err != nil {
		return err
	}
	c.OnDamage = func(msg string) { fmt.Fprintln(s.notes, msg) }
	s.cache = c
	return nil
}

// ReindexLockFile is the lock, in the git directory's contextfs folder,
// that reindexes of a work tree take in turn.
const ReindexLockFile = "reindex.lock"

// Reindex builds the cache again from the files, beside the one in use,
// and then puts the new content in place of the old in one SQLite write
// transaction (cache.Replace): commands running meanwhile, in this
// process or others, go on with the old content and then see the new,
// never a missing or half-built cache (docs/RELIABILITY.md). A cache too
// damaged to be replaced that way is deleted and built again in place.
func (s *Store) Reindex(ctx context.Context) (cache.SyncStats, error) {
	return s.ReindexWith(ctx, ReindexOptions{})
}

// ReindexOptions tune ReindexWith.
type ReindexOptions struct {
	// Progress, when set, is called as the memory files are analysed
	// (done of total), for a progress line on a terminal.
	Progress func(done, total int)
	// Stage, when set, is called as each step after the analysis begins
	// (the Reindex* stage names), in that order: at a million files each
	// takes minutes, with no file count to show.
	Stage func(stage string)
}

// The steps of a reindex after its files are analysed, as
// ReindexOptions.Stage names them.
const (
	// ReindexStageReplace: the new cache takes the place of the old.
	ReindexStageReplace = "replacing the cache"
	// ReindexStageSync: the files written meanwhile are indexed.
	ReindexStageSync = "indexing the files written meanwhile"
	// ReindexStagePrepare: the rankers' files (the document set, the
	// vector index) are built.
	ReindexStagePrepare = "building the search files"
)

// ReindexWith is Reindex with options.
func (s *Store) ReindexWith(ctx context.Context, o ReindexOptions) (cache.SyncStats, error) {
	unlock, err := s.Repo.LockFile(ctx, ReindexLockFile)
	if err != nil {
		return cache.SyncStats{}, fmt.Errorf("reindex: %w", err)
	}
	defer unlock()
	stage := func(string) {}
	if o.Stage != nil {
		stage = o.Stage
	}
	st, err := s.rebuildBeside(ctx, o.Progress, stage)
	if err != nil && cache.IsCorrupt(err) {
		if err := s.resetCache(ctx); err != nil {
			return cache.SyncStats{}, err
		}
		st, err = s.Sync(ctx)
	} else if err == nil {
		// The files written while the new cache was built.
		stage(ReindexStageSync)
		_, err = s.Sync(ctx)
	}
	if err != nil {
		return st, err
	}
	// Build the rankers' files too, so that the first search does not.
	stage(ReindexStagePrepare)
	return st, s.cache.Prepare(ctx, cache.KindMemory)
}

// rebuildBeside builds a new cache of the memory files in a folder of
// its own inside the cache's, and replaces the content of the cache in
// use with it. The caller holds ReindexLockFile, so what the folder holds
// is a killed reindex's, removed first.
func (s *Store) rebuildBeside(ctx context.Context, progress func(done, total int), stage func(string)) (cache.SyncStats, error) {
	dir := filepath.Join(s.CacheDir(), "reindex")
	if err := os.RemoveAll(dir); err != nil {
		return cache.SyncStats{}, fmt.Errorf("reindex: %w", err)
	}
	defer os.RemoveAll(dir)
	c, err := cache.Open(ctx, dir, s.emb)
	if err != nil {
		return cache.SyncStats{}, fmt.Errorf("reindex: %w", err)
	}
	defer c.Close()
	// Every file, listed now: a watcher's answer belongs to the cache in
	// use, and the new one starts with no token (the next sync lists all).
	entries, err := s.Repo.List()
	if err != nil {
		return cache.SyncStats{}, err
	}
	st, err := s.syncInto(ctx, c, entries, nil, progress)
	if err != nil {
		return st, fmt.Errorf("reindex: %w", err)
	}
	if _, err := c.EnsureModel(ctx); err != nil {
		return st, fmt.Errorf("reindex: %w", err)
	}
	stage(ReindexStageReplace)
	return st, s.cache.Replace(ctx, c)
}

// analyzeMemory is the cache's view of a memory file.
func analyzeMemory(path string, raw []byte) cache.Analysis {
	m, _, err := gitstore.Decode(path, raw)
	if err != nil {
		var de *gitstore.DecodeError
		if errors.As(err, &de) {
			return cache.Analysis{Err: de.Msg, Line: de.Line}
		}
		return cache.Analysis{Err: err.Error()}
	}
	fillDerived(m)
	status, _ := m.Data["status"].(string)
	// What it supersedes hides those memories from list and search: its
	// supersedes: entries and its links of rel supersedes alike.
	d := cache.Doc{
		MID: strings.ToLower(m.ID), Type: m.Type, Title: m.Title, Tags: m.Tags, Summary: m.Summary,
		Body: searchBody(m), Created: m.Created, Updated: m.Updated, Author: m.Author,
		Status: status, Supersedes: m.SupersededIDs(), Attrs: memoryAttrs(m),
	}
	a := cache.Analysis{Docs: []cache.Doc{d}}
	if issues := memory.Validate(m); len(issues) > 0 {
		a.Note = "invalid: " + issues[0].String()
	}
	return a
}

// searchBody is the text searched by keyword: the body and the values of
// the structured data, so "rationale: pgx is faster" is findable too.
func searchBody(m *memory.Memory) string {
	var b strings.Builder
	b.WriteString(m.Body)
	if len(m.Data) > 0 {
		b.WriteString("\n")
		writeValues(&b, m.Data)
	}
	return b.String()
}

func writeValues(b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			writeValues(b, v[k])
		}
	case []any:
		for _, x := range v {
			writeValues(b, x)
		}
	case string:
		b.WriteString(v)
		b.WriteString("\n")
	case nil:
	default:
		fmt.Fprintf(b, "%v\n", v)
	}
}

// fillDerived gives a memory without a title or summary the ones its
// body suggests.
func fillDerived(m *memory.Memory) {
	if m.Title != "" && m.Summary != "" {
		return
	}
	// The title and summary come from the head of the body; parsing a long
	// body whole would cost more than the rest of indexing it.
	head := m.Body
	if len(head) > 4096 {
		head = head[:4096]
	}
	t, sum := frontmatter.Derive([]byte(head))
	if m.Title == "" {
		m.Title = t
	}
	if m.Summary == "" && sum != m.Title {
		m.Summary = sum
	}
}
