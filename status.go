package contextfs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/watch"
)

// Status describes the repository's memories and cache.
type Status struct {
	Root     string         `json:"root"`
	Memories int            `json:"memories"`
	ByType   map[string]int `json:"by_type"`
	Files    int            `json:"files"`
	// OnDisk is the number of memory files in the work tree when the
	// cache could not be brought up to date (Cache.Fresh false), so that
	// the counts above, which are the cache's, can be told stale; nil
	// (left out of JSON) when the cache is fresh, and 0 is a count.
	OnDisk    *int           `json:"files_on_disk,omitempty"`
	Invalid   []Problem      `json:"invalid,omitempty"`
	Cache     CacheStatus    `json:"cache"`
	Code      map[string]int `json:"code,omitempty"`
	Commits   int            `json:"commits"`
	Embedder  string         `json:"embedder"`
	Initiated bool           `json:"initialized"`
	// Sparse says .contextfs/ is tracked but left out of a sparse
	// checkout, when it looks uninitialised: there are memories, not here.
	Sparse  bool          `json:"outside_sparse_checkout,omitempty"`
	Watcher WatcherStatus `json:"watcher"`
}

// WatcherStatus describes the change watcher of the work tree.
type WatcherStatus struct {
	Mode    string    `json:"mode"`
	Running bool      `json:"running"`
	PID     int       `json:"pid,omitempty"`
	Started time.Time `json:"started,omitzero"`
	// Degraded says why the watcher answers "check everything" to every
	// command (for example, the system's inotify watches ran out).
	Degraded string `json:"degraded,omitempty"`
	// NotAnswering says the watcher took the status request but gave no
	// answer (watch.ErrNotAnswering): it is stopped (SIGSTOP) or stuck.
	// Running is then true and PID the process holding its lock; Started
	// is unknown. `watch stop` stops it.
	NotAnswering bool `json:"not_answering,omitempty"`
}

// WatcherStatus asks the work tree's change watcher how it is, within
// the status request's timeout (0.2 s).
func (s *Store) WatcherStatus(ctx context.Context) WatcherStatus {
	w := WatcherStatus{Mode: s.WatchMode()}
	socket := s.WatchSocket()
	d, err := watch.Status(ctx, socket)
	switch {
	case err == nil:
		w.Running, w.PID, w.Started, w.Degraded = true, d.PID, d.Started, d.Degraded
	case !errors.Is(err, watch.ErrNotRunning):
		// It took the request and gave no answer: name it, if it is the
		// process holding the watcher's lock (watch.Holder asks it
		// nothing).
		if pid, _ := watch.Holder(socket); pid > 0 {
			w.Running, w.PID, w.NotAnswering = true, pid, true
		}
	}
	return w
}

// CacheStatus describes the cache.
type CacheStatus struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	Schema string `json:"schema"`
	// Fresh is false when the cache could not be written (read-only, a
	// full disk): every answer then comes from what it last held.
	Fresh bool `json:"fresh"`
}

// Status syncs and reports counts by type, problem files and the cache.
func (s *Store) Status(ctx context.Context) (*Status, error) {
	_, fresh, err := s.syncFresh(ctx)
	if err != nil {
		return nil, err
	}
	// Rows deleted from the cache's tables would drop memories from
	// results silently; status (and doctor) check, at ~1 ms per 3,000
	// memories, and rebuild.
	if err := s.cache.CheckConsistency(ctx, cache.KindMemory); !s.cache.ReadOnly() && cache.IsCorrupt(err) {
		if _, err := s.rebuild(ctx, err.Error()); err != nil {
			return nil, err
		}
	}
	by, files, err := s.cache.Counts(ctx, cache.KindMemory)
	if err != nil {
		return nil, err
	}
	st := &Status{Root: s.Repo.Root, ByType: by, Files: files, Embedder: s.emb.Model(),
		Cache: CacheStatus{Path: s.CacheDir(), Schema: cache.SchemaVersion, Fresh: fresh}}
	if !fresh {
		if ents, err := s.Repo.List(); err == nil {
			n := len(ents)
			st.OnDisk = &n
		}
	}
	for _, n := range by {
		st.Memories += n
	}
	invalid, err := s.invalid(ctx, true)
	if err != nil {
		return nil, err
	}
	st.Invalid = invalid
	// Files that memories skip silently: temp files, symlinks, odd names.
	odd, _ := s.Repo.Oddities()
	for _, o := range odd {
		st.Invalid = append(st.Invalid, Problem{Path: o.Path, Rule: string(o.Kind), Message: o.Advice()})
	}
	if ents, err := os.ReadDir(s.CacheDir()); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				st.Cache.Bytes += fi.Size()
			}
		}
	}
	if code, _, err := s.cache.Counts(ctx, cache.KindCode); err == nil && len(code) > 0 {
		st.Code = code
	}
	if c, _, err := s.cache.Counts(ctx, cache.KindCommit); err == nil {
		for _, n := range c {
			st.Commits += n
		}
	}
	_, err = os.Stat(filepath.Join(s.Repo.MemoryDir(), "config.yaml"))
	st.Initiated = err == nil
	if !st.Initiated {
		var se *gitstore.SparseError
		st.Sparse = errors.As(s.Repo.OutsideSparse(ctx), &se)
	}
	st.Watcher = s.WatcherStatus(ctx)
	return st, nil
}

// Skipped returns the memory files that reads (search, list, recall) leave
// out because they cannot be read as memories: bad YAML, no frontmatter,
// a missing required field. It reads the cache as the last sync left it,
// so call it after the read whose omissions it explains.
func (s *Store) Skipped(ctx context.Context) ([]Problem, error) {
	return s.invalid(ctx, false)
}

// invalid returns the memory files with problems: those left out of the
// index, and with notes also those indexed with a remark (a schema
// mismatch).
func (s *Store) invalid(ctx context.Context, notes bool) ([]Problem, error) {
	probs, err := s.cache.Problems(ctx, cache.KindMemory)
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, p := range probs {
		msg := p.Msg
		rule := "syntax"
		if msg == "" {
			if !notes {
				continue
			}
			msg, rule = p.Note, "schema"
		}
		out = append(out, Problem{Path: p.Path, Line: p.Line, Rule: rule, Message: msg})
	}
	return out, nil
}
