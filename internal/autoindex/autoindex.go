// Package autoindex makes a repository's code and history searchable
// beside its memories: the files git tracks are chunked with tree-sitter
// (package chunker) and the current branch's commits are read from git,
// both into the cache only, never as files under .contextfs/.
//
// Everything is keyed by content and path: a file's chunks are stored
// under its blob OID and its path (the path decides whether a chunk is
// code, documentation or a test, and its words are searchable), so an
// unchanged file is never parsed again, a renamed file is parsed once
// more, and switching back to an indexed branch costs a stat of each file.
package autoindex

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/chunker"
	"github.com/contextfs/contextfs/gitstore"
)

// Options configure an Indexer; they come from .contextfs/config.yaml.
type Options struct {
	Include    []string // globs of untracked files to index too (** allowed)
	Exclude    []string // globs never indexed
	Languages  []string // only these languages (empty: all)
	MaxCommits int      // commits of the current branch (0: 1000; negative: none)
	Workers    int      // files parsed at once, one parser each (0: runtime.GOMAXPROCS(0))
	// Tracked keeps the tracked-file list between runs; nil reads git's
	// index at every run.
	Tracked  *Tracked
	Touch    bool // record this run as the last one even if nothing changed
	Progress func(done, total int)
}

// Indexer indexes one repository into its cache.
type Indexer struct {
	repo   *gitstore.Repo
	cache  *cache.Cache
	opts   Options
	parses atomic.Int64
}

// New returns an indexer for repo writing into c.
func New(repo *gitstore.Repo, c *cache.Cache, opts Options) *Indexer {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxCommits == 0 {
		opts.MaxCommits = 1000
	}
	return &Indexer{repo: repo, cache: c, opts: opts}
}

// SetTouch makes IndexCode record its run as the last one even when it
// changed nothing (what the explicit index command wants).
func (ix *Indexer) SetTouch(on bool) { ix.opts.Touch = on }

// Parses is the number of tree-sitter parses this indexer has done: tests
// use it to show that unchanged files are never parsed again.
func (ix *Indexer) Parses() int { return int(ix.parses.Load()) }

// Skipped is a tracked file that is not indexed, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Files lists the files to index: tracked files (from the git index, so no
// process is spawned) that are regular files, outside .contextfs/, not
// excluded and in an enabled language, plus untracked files matching
// Include. Submodules and symbolic links are skipped, with the reason.
// The index is read again only when it changed (see Tracked).
func (ix *Indexer) Files() ([]cache.FileEntry, []Skipped, error) {
	tracked := ix.opts.Tracked
	if tracked == nil {
		tracked = new(Tracked)
	}
	l, err := tracked.get(ix.repo.GitDir, ix.optsKey(), len(ix.opts.Include) > 0, ix.filter)
	if err != nil {
		return nil, nil, err
	}
	skipped := slices.Clone(l.skipped)
	stats, err := tracked.stat(ix.repo.Root, l)
	if err != nil {
		return nil, nil, err
	}
	out := make([]cache.FileEntry, 0, len(l.paths))
	for i, p := range l.paths {
		switch stats[i].kind {
		case statMissing:
			// deleted in the work tree
		case statOther:
			skipped = append(skipped, Skipped{p, "not a regular file in the work tree"})
		default:
			out = append(out, stats[i].entry)
		}
	}
	if len(ix.opts.Include) > 0 {
		extra, err := ix.included(l.seen)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, extra...)
	}
	return out, skipped, nil
}

func (ix *Indexer) languageOn(p string) bool {
	if len(ix.opts.Languages) == 0 {
		return true
	}
	lang := chunker.Language(p)
	for _, l := range ix.opts.Languages {
		if strings.EqualFold(l, lang) {
			return true
		}
	}
	return false
}

func entry(p string, fi fs.FileInfo) cache.FileEntry {
	return gitstore.EntryOf(p, fi)
}

// included walks the work tree for untracked files matching Include.
func (ix *Indexer) included(tracked map[string]bool) ([]cache.FileEntry, error) {
	var out []cache.FileEntry
	err := filepath.WalkDir(ix.repo.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel := ix.repo.Rel(p)
		if d.IsDir() {
			if d.Name() == ".git" || rel == gitstore.Dir {
				return fs.SkipDir
			}
			return nil
		}
		if tracked[rel] || !d.Type().IsRegular() || !matchAny(ix.opts.Include, rel) || matchAny(ix.opts.Exclude, rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, entry(rel, fi))
		return nil
	})
	return out, err
}

// CodeStats is what IndexCode did.
type CodeStats struct {
	cache.SyncStats
	Bytes    int64         `json:"bytes"`
	Duration time.Duration `json:"duration"`
	Skipped  []Skipped     `json:"skipped,omitempty"`
}

// IndexCode brings the code index up to date. With only set, just those
// paths (files or folders, work-tree relative) are looked at.
func (ix *Indexer) IndexCode(ctx context.Context, only []string) (CodeStats, error) {
	start := time.Now()
	files, skipped, err := ix.Files()
	if err != nil {
		return CodeStats{}, err
	}
	var onlySet map[string]bool
	if len(only) > 0 {
		onlySet = map[string]bool{}
		var keep []cache.FileEntry
		for _, f := range files {
			if under(f.Path, only) {
				keep = append(keep, f)
				onlySet[f.Path] = true
			}
		}
		files = keep
	}
	var bytes int64
	for _, f := range files {
		bytes += f.Size
	}
	opts := cache.SyncOptions{
		Workers:  ix.opts.Workers,
		Progress: ix.opts.Progress,
		Only:     onlySet,
		// A chunk's type and tags come from its path as well as its
		// content (tests, docs, path words): key by both.
		Key: func(p, oid string) string { return oid + ":" + p },
		NewAnalyzer: func() (cache.Analyzer, func()) {
			ck := chunker.New(chunker.Options{Languages: ix.opts.Languages})
			before := 0
			return func(p string, content []byte) cache.Analysis {
				a := Analyze(ck, p, content)
				ix.parses.Add(int64(ck.Parses() - before))
				before = ck.Parses()
				return a
			}, ck.Close
		},
	}
	st, err := ix.cache.SyncFilesWith(ctx, cache.KindCode, ix.repo.Root, files, opts)
	if err != nil {
		return CodeStats{}, err
	}
	cs := CodeStats{SyncStats: st, Bytes: bytes, Duration: time.Since(start), Skipped: skipped}
	// Record the run only when it changed something (or never was): a
	// search that finds the index fresh must not write to the cache.
	if len(only) == 0 && (st.Changed() || ix.opts.Touch || ix.cache.Meta(ctx, "code:last") == "") {
		_ = ix.cache.SetMeta(ctx, "code:last", time.Now().UTC().Format(time.RFC3339))
	}
	return cs, nil
}

func under(p string, roots []string) bool {
	for _, r := range roots {
		r = strings.TrimSuffix(path.Clean(filepath.ToSlash(r)), "/")
		if r == "." || p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// Analyze chunks one file into cache documents. A skipped file (binary,
// too large, generated, vendored) yields no documents and a note saying
// why, so `index status` can tell.
func Analyze(ck *chunker.Chunker, p string, content []byte) cache.Analysis {
	chunks, err := ck.Chunk(p, content)
	if err != nil {
		var se *chunker.SkipError
		if errors.As(err, &se) {
			return cache.Analysis{Note: "skipped: " + se.Reason}
		}
		return cache.Analysis{Err: err.Error()}
	}
	typ := FileType(p)
	paths := PathWords(p)
	docs := make([]cache.Doc, 0, len(chunks))
	for _, c := range chunks {
		name := c.Name()
		title := c.Kind
		if name != "" {
			title += " " + name
		}
		docs = append(docs, cache.Doc{
			MID:  "L" + strconv.Itoa(c.StartLine) + "-" + strconv.Itoa(c.EndLine),
			Type: typ, Title: title, Tags: append([]string{c.Language, c.Kind}, paths...), Body: c.Content,
			Symbol: name, Lang: c.Language, StartLine: c.StartLine, EndLine: c.EndLine,
		})
	}
	return cache.Analysis{Docs: docs}
}

// Types of auto-indexed chunks: source code, documentation (prose files
// chunked by headings) and tests. Search filters on them: `--type code`
// is TypeCode (and TypeTest as --tests says), `--type doc` is TypeDoc.
const (
	TypeCode = cache.ChunkCode
	TypeDoc  = cache.ChunkDoc
	TypeTest = cache.ChunkTest
)

// FileType is the type of the chunks of the file at p: TypeDoc for prose
// (Markdown, reStructuredText, AsciiDoc, plain text, changelogs), TypeTest
// for test files by their language's conventions, TypeCode otherwise.
func FileType(p string) string {
	switch {
	case chunker.Language(p) == "markdown" || chunker.IsProse(p):
		return TypeDoc
	case chunker.IsTest(p):
		return TypeTest
	}
	return TypeCode
}

// PathWords are the words of a file's path, stored with each of its chunks
// in the tags column (BM25 weight 5 against the body's 1) so that "fix the
// typo in doc/util.go" finds doc/util.go: the folder and file names split
// at punctuation and at lower-to-upper case changes, lower-cased,
// without the extension, each once.
func PathWords(p string) []string {
	p = strings.TrimSuffix(p, path.Ext(p))
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		w = strings.ToLower(w)
		if len(w) > 1 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, f := range strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		add(f)
		start := 0
		rs := []rune(f)
		for i := 1; i < len(rs); i++ {
			if unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]) {
				add(string(rs[start:i]))
				start = i
			}
		}
		if start > 0 {
			add(string(rs[start:]))
		}
	}
	return out
}
