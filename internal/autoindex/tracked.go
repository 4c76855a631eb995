package autoindex

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/gitindex"
)

// Tracked keeps the list of files git tracks between index runs, in
// memory for a long-lived process (the watcher answering warm commands,
// the MCP server) and in File for the next command: while git's index
// file is the same file, unchanged, its parse and the filtering by the
// index options are reused, so that a search that finds nothing changed
// does not read the index again (at 100,000 files a 9–15 MB read, its
// checksum and a pass over every path).
//
// The file is the same when its device, inode, size, modification and
// status-change times are. git never rewrites its index in place (it
// writes index.lock and renames it), so any change gives a new inode or
// new times; but two writes within one tick of the file system's clock
// could leave equal times, the case git calls racy. As git re-checks an
// entry whose time is not older than the index's, a list read from an
// index whose modification time is not older than the read by
// racyWindow is not trusted: the next run reads the file again.
//
// The zero value is ready to use; a Tracked is safe for concurrent use.
type Tracked struct {
	// File, when set, keeps the list between processes too: a command
	// run cold reads it instead of git's index while the index is the
	// file it was made from (see load). It lives in the cache's folder,
	// and is as disposable as the cache.
	File string
	// Watch, set by a process that keeps its store open for many commands
	// (the watcher, the MCP server), watches the tracked files' folders
	// with inotify (dirWatch) and stats only the files events name, not
	// every tracked file at every run. A command that runs once would
	// spend more adding the watches than it saves.
	Watch bool

	mu    sync.Mutex
	gitID fileID
	trust bool
	opts  string // the options the list was filtered with
	list  *trackedList
	reads atomic.Int64
	stats atomic.Int64 // files stat'ed

	// With Watch: the watch over the folders of statsOf's files, their
	// last stats and each path's place in them.
	dw      *dirWatch
	noWatch bool // a watch could not be set up (no inotify, no watches left): stat every time from then on
	statsOf *trackedList
	last    []tracked
	pos     map[string]int
}

// racyWindow is how much older than its read git's index file must be for
// the list read from it to be reused: more than any file system's clock
// tick (FAT's two seconds are the coarsest).
const racyWindow = 2 * time.Second

// trackedList is the git index filtered by the indexer's options.
type trackedList struct {
	paths   []string        // tracked regular files to index, in index order
	skipped []Skipped       // submodules and symbolic links
	seen    map[string]bool // every path of the index, when asked for (index.include)
}

// fileID is what identifies one version of a file without reading it.
type fileID struct {
	dev, ino    uint64
	size        int64
	mtime, ctim int64
}

func idOf(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	id.dev, id.ino, id.ctim = fileDevIno(fi)
	return id
}

// Reads is how many times git's index file was read and parsed: tests
// use it to show that an unchanged index is not read again.
func (t *Tracked) Reads() int { return int(t.reads.Load()) }

// Stats is how many tracked files were stat'ed: tests use it to show that
// a watched work tree is not stat'ed file by file.
func (t *Tracked) Stats() int { return int(t.stats.Load()) }

// Close gives back the inotify watch, if any.
func (t *Tracked) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dw != nil {
		t.dw.close()
		t.dw = nil
	}
}

// stat returns the work-tree state of l's files (under root), in l's
// order. With Watch it stats only the files changed since the last call
// on the same list, by the watch's events; the first call on a list, and
// any time the events cannot name the files, stat them all after setting
// up a new watch (so that a change after the watch began is an event).
func (t *Tracked) stat(root string, l *trackedList) ([]tracked, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.Watch || t.noWatch {
		t.stats.Add(int64(len(l.paths)))
		return statTracked(root, l.paths)
	}
	if t.dw != nil && t.statsOf == l {
		dirty, err := t.dw.changes()
		var paths []string
		var at []int
		for p := range dirty { // files git does not track (an editor's, a build's) are left out
			if i, ok := t.pos[p]; ok {
				paths = append(paths, p)
				at = append(at, i)
			}
		}
		// Past a quarter of the files, one pass over them all is as cheap.
		if err == nil && len(paths) <= len(l.paths)/4+16 {
			st, err := statTracked(root, paths)
			if err != nil {
				// The events are spent: the next run starts over.
				t.dw.close()
				t.dw = nil
				return nil, err
			}
			t.stats.Add(int64(len(paths)))
			for k, i := range at {
				t.last[i] = st[k]
			}
			return slices.Clone(t.last), nil
		}
	}
	if t.dw != nil {
		t.dw.close()
		t.dw = nil
	}
	dw, err := newDirWatch(root, l.paths)
	if err != nil {
		t.noWatch = true
	}
	st, err := statTracked(root, l.paths)
	t.stats.Add(int64(len(l.paths)))
	if err != nil {
		if dw != nil {
			dw.close()
		}
		return nil, err
	}
	if dw != nil {
		t.dw, t.statsOf, t.last = dw, l, st
		t.pos = make(map[string]int, len(l.paths))
		for i, p := range l.paths {
			t.pos[p] = i
		}
		return slices.Clone(st), nil
	}
	return st, nil
}

// get returns the tracked files of the repository whose git dir is
// gitDir, filtered by filter (keyed by opts), reading the index file only
// when it changed since the last call. withSeen asks for the set of every
// path in the index, which the saved list does not keep.
func (t *Tracked) get(gitDir, opts string, withSeen bool, filter func([]gitindex.Entry, bool) *trackedList) (*trackedList, error) {
	path := filepath.Join(gitDir, "index")
	t.mu.Lock()
	defer t.mu.Unlock()
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No index: nothing was ever added. Not remembered, so that the
		// first git add is seen.
		t.list = nil
		return filter(nil, withSeen), nil
	case err != nil:
		return nil, fmt.Errorf("read git index: %w", err)
	}
	if t.list != nil && t.trust && t.opts == opts && idOf(fi) == t.gitID && (!withSeen || t.list.seen != nil) {
		return t.list, nil
	}
	if t.list == nil && t.File != "" && !withSeen {
		if l := load(t.File, idOf(fi), opts); l != nil {
			t.list, t.opts, t.gitID, t.trust = l, opts, idOf(fi), true
			return l, nil
		}
	}
	start := time.Now()
	entries, id, err := readIndex(path)
	if err != nil {
		return nil, err
	}
	t.reads.Add(1)
	t.list, t.opts, t.gitID = filter(entries, withSeen), opts, id
	t.trust = time.Unix(0, id.mtime).Before(start.Add(-racyWindow))
	if t.trust && t.File != "" {
		_ = save(t.File, id, opts, t.list) // only a saving: the next process reads the index
	}
	return t.list, nil
}

// readIndex reads and parses the index file at path, with the identity
// of the very file read (taken from its descriptor, so that a rename
// between a stat and the read cannot pair one file's identity with
// another's contents).
func readIndex(path string) ([]gitindex.Entry, fileID, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileID{}, nil
	}
	if err != nil {
		return nil, fileID{}, fmt.Errorf("read git index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileID{}, fmt.Errorf("read git index: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fileID{}, fmt.Errorf("read git index: %w", err)
	}
	entries, err := gitindex.Parse(data)
	if err != nil {
		return nil, fileID{}, fmt.Errorf("read git index %s: %w", path, err)
	}
	return entries, idOf(fi), nil
}

// optsKey names the options that decide which tracked files are indexed.
func (ix *Indexer) optsKey() string {
	return strings.Join(ix.opts.Exclude, "\x00") + "\x01" + strings.Join(ix.opts.Languages, "\x00")
}

// filter keeps the index entries to index: merged, outside .contextfs/,
// regular files (submodules and symbolic links are skipped with the
// reason), not excluded and in an enabled language; with withSeen, also
// the set of every path in the index.
func (ix *Indexer) filter(idx []gitindex.Entry, withSeen bool) *trackedList {
	l := new(trackedList)
	if withSeen {
		l.seen = make(map[string]bool, len(idx))
	}
	for _, e := range idx {
		p := e.Path
		if withSeen {
			l.seen[p] = true
		}
		// Stage 0 is a merged entry; 1-3 are the sides of a conflict, to
		// be indexed once resolved.
		if e.Stage != 0 {
			continue
		}
		if strings.HasPrefix(p, gitstore.Dir+"/") {
			continue
		}
		switch e.Mode {
		case gitindex.ModeDir:
			continue // a sparse index's folder outside the cone: not checked out
		case gitindex.ModeGitlink:
			l.skipped = append(l.skipped, Skipped{p, "submodule"})
			continue
		case gitindex.ModeSymlink:
			l.skipped = append(l.skipped, Skipped{p, "symbolic link"})
			continue
		}
		if matchAny(ix.opts.Exclude, p) {
			continue
		}
		if !ix.languageOn(p) {
			continue
		}
		l.paths = append(l.paths, p)
	}
	return l
}
