package contextfs

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/chunker"
	"github.com/contextfs/contextfs/internal/autoindex"
)

// IndexOptions tune Index.
type IndexOptions struct {
	Full     bool     // rebuild the code and commit index from scratch
	Touch    bool     // record the run as the last one even if nothing changed (the index command)
	Summary  bool     // count chunks and commits for the result (costs a query per kind)
	Paths    []string // only these files or folders
	Progress func(done, total int)
}

// IndexResult summarises an indexing run.
type IndexResult struct {
	Files    int           `json:"files"`
	Parsed   int           `json:"parsed"`
	Changed  int           `json:"changed"`
	Removed  int           `json:"removed"`
	Chunks   int           `json:"chunks"`
	Bytes    int64         `json:"bytes"`
	Commits  int           `json:"commits"`
	Seconds  float64       `json:"seconds"`
	Skipped  int           `json:"skipped"` // tracked files not indexed: links, submodules, and (with Summary) binary, too large or not UTF-8
	Duration time.Duration `json:"-"`
}

// Indexer returns the code and history indexer configured for this
// repository.
func (s *Store) Indexer(progress func(done, total int)) *autoindex.Indexer {
	ic := s.Config.Index
	return autoindex.New(s.Repo, s.cache, autoindex.Options{Include: ic.Include, Exclude: ic.Exclude,
		Languages: ic.Languages, MaxCommits: ic.MaxCommits, Workers: ic.Workers, Progress: progress, Tracked: s.tracked})
}

// Index brings the code and commit index up to date: only files whose
// content was never seen are parsed.
func (s *Store) Index(ctx context.Context, o IndexOptions) (*IndexResult, error) {
	start := time.Now()
	// Chunks are cached by content alone, but what a file yields also
	// depends on the chunker and on index.languages: when those change,
	// the code index is rebuilt rather than trusted.
	fp := s.codeAnalysisFingerprint()
	if o.Full || s.cache.Meta(ctx, "code:analysis") != fp {
		if err := s.cache.ClearKinds(ctx, cache.KindCode, cache.KindCommit); err != nil {
			return nil, err
		}
		if err := s.cache.SetMeta(ctx, "code:analysis", fp); err != nil {
			return nil, err
		}
	}
	ix := s.Indexer(o.Progress)
	ix.SetTouch(o.Touch)
	cs, err := ix.IndexCode(ctx, o.Paths)
	if err != nil {
		return nil, err
	}
	r := &IndexResult{Files: cs.Files, Parsed: cs.Analyzed, Changed: cs.Stale, Removed: cs.Removed, Bytes: cs.Bytes, Skipped: len(cs.Skipped)}
	if len(o.Paths) == 0 {
		if _, err := ix.IndexCommits(ctx); err != nil {
			return nil, err
		}
	}
	if o.Summary {
		if r.Chunks, err = s.cache.DocCount(ctx, cache.KindCode); err != nil {
			return nil, err
		}
		// Files read and left out (binary, too large, not UTF-8) are
		// skipped too, as index status lists them.
		probs, err := s.cache.Problems(ctx, cache.KindCode)
		if err != nil {
			return nil, err
		}
		r.Skipped += len(probs)
		if r.Commits, err = s.cache.DocCount(ctx, cache.KindCommit); err != nil {
			return nil, err
		}
	}
	r.Duration = time.Since(start)
	r.Seconds = r.Duration.Seconds()
	return r, nil
}

// codeAnalysisFingerprint names everything besides a file's content that
// decides its chunks.
func (s *Store) codeAnalysisFingerprint() string {
	langs := slices.Clone(s.Config.Index.Languages)
	for i := range langs {
		langs[i] = strings.ToLower(langs[i])
	}
	slices.Sort(langs)
	return chunker.Version + ";languages=" + strings.Join(langs, ",")
}

// AutoIndexThreshold is the number of tracked files above which a first
// code index is not started by a quick command: the user is told to run
// `git contextfs index` (which shows progress) instead.
const AutoIndexThreshold = 2000

// AutoIndex keeps the code index fresh before a search when auto_index is
// on. It returns a one-line hint instead of indexing when the repository
// was never indexed and is large.
func (s *Store) AutoIndex(ctx context.Context, progress func(done, total int)) (hint string, err error) {
	if !s.Config.Index.AutoIndexOn() {
		return "", nil
	}
	if s.cache.Meta(ctx, "code:last") == "" {
		files, _, err := s.Indexer(nil).Files()
		if err != nil {
			return "", err
		}
		if len(files) > AutoIndexThreshold {
			return fmt.Sprintf("contextfs: code is not indexed yet (%d files); run `git contextfs index` to make it searchable", len(files)), nil
		}
	}
	_, err = s.Index(ctx, IndexOptions{Progress: progress})
	return "", err
}

// IndexStatus describes the code and commit index.
type IndexStatus struct {
	Languages map[string]LangStat `json:"languages"`
	Files     int                 `json:"files"`
	Chunks    int                 `json:"chunks"`
	Commits   int                 `json:"commits"`
	LastRun   string              `json:"last_run,omitempty"`
	Stale     []string            `json:"stale"`
	Removed   []string            `json:"removed"`
	Skipped   []autoindex.Skipped `json:"skipped,omitempty"`
	AutoIndex bool                `json:"auto_index"`
}

// LangStat counts files and chunks of one language.
type LangStat struct {
	Files  int `json:"files"`
	Chunks int `json:"chunks"`
}

// IndexStatus reports what is indexed and what is stale, without changing
// the index.
func (s *Store) IndexStatus(ctx context.Context) (*IndexStatus, error) {
	ix := s.Indexer(nil)
	files, skipped, err := ix.Files()
	if err != nil {
		return nil, err
	}
	stale, removed, err := s.cache.StalePaths(ctx, cache.KindCode, s.Repo.Root, files)
	if err != nil {
		return nil, err
	}
	langs, err := s.cache.CodeStats(ctx)
	if err != nil {
		return nil, err
	}
	st := &IndexStatus{Languages: map[string]LangStat{}, Stale: stale, Removed: removed, LastRun: s.cache.Meta(ctx, "code:last"),
		AutoIndex: s.Config.Index.AutoIndexOn()}
	for l, c := range langs {
		st.Languages[l] = LangStat{Files: c[0], Chunks: c[1]}
		st.Files += c[0]
		st.Chunks += c[1]
	}
	probs, err := s.cache.Problems(ctx, cache.KindCode)
	if err != nil {
		return nil, err
	}
	st.Skipped = skipped
	for _, p := range probs {
		st.Skipped = append(st.Skipped, autoindex.Skipped{Path: p.Path, Reason: strings.TrimPrefix(p.Note+p.Msg, "skipped: ")})
	}
	cm, _, err := s.cache.Counts(ctx, cache.KindCommit)
	if err != nil {
		return nil, err
	}
	for _, n := range cm {
		st.Commits += n
	}
	if st.Stale == nil {
		st.Stale = []string{}
	}
	if st.Removed == nil {
		st.Removed = []string{}
	}
	return st, nil
}

// Indexed is a code chunk or commit as recall shows it.
type Indexed struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	Path      string `json:"path,omitempty"`
	Symbol    string `json:"symbol,omitempty"`
	Language  string `json:"language,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Title     string `json:"title"`
	Author    string `json:"author,omitempty"`
	Date      string `json:"date,omitempty"`
	Text      string `json:"text"`
}

var codeRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+):(\d+)-(\d+)$`) })

// RecallIndexed finds a code chunk by "path:start-end" or a commit by SHA
// (or unique prefix of at least 4 hex digits, the shortest git takes). ok
// is false when id names neither.
func (s *Store) RecallIndexed(ctx context.Context, id string) (*Indexed, bool, error) {
	if m := codeRef().FindStringSubmatch(id); m != nil {
		start, _ := strconv.Atoi(m[2])
		end, _ := strconv.Atoi(m[3])
		r, err := s.cache.CodeAt(ctx, m[1], start, end)
		if err != nil || r == nil {
			return nil, false, err
		}
		return &Indexed{Kind: "code", ID: id, Path: r.Path, Symbol: r.Symbol, Language: r.Lang, StartLine: r.StartLine,
			EndLine: r.EndLine, Title: r.Title, Text: r.Body}, true, nil
	}
	if len(id) >= 4 && isHex(id) {
		rows, err := s.cache.ResolveID(ctx, cache.KindCommit, id)
		if err != nil || len(rows) != 1 {
			return nil, false, err
		}
		r := rows[0]
		// Memory IDs are hex in part too: a prefix of one is that memory
		// when it is its whole ID, and ambiguous when it also starts a
		// commit's SHA (recall abcd once showed a commit for a memory).
		mem, err := s.cache.ResolveID(ctx, cache.KindMemory, id)
		if err != nil {
			return nil, false, err
		}
		if len(mem) > 0 {
			if len(id) == len(mem[0].MID) {
				return nil, false, nil
			}
			amb := &AmbiguousError{Prefix: id, Matches: []string{r.MID + " (commit)"}}
			for _, m := range mem {
				amb.Matches = append(amb.Matches, m.MID+" "+m.Path)
			}
			return nil, false, amb
		}
		return &Indexed{Kind: "commit", ID: r.MID, Title: r.Title, Author: r.Author, Date: r.Created.Format(time.RFC3339), Text: r.Body}, true, nil
	}
	return nil, false, nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
