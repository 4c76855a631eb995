package branchdiff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	gitcli "github.com/contextfs/contextfs/internal/git"
)

// Resolver is Files for a long-lived process (the MCP server), which asks
// on every get_context call. What a branch is compared with (the base and
// the merge-base: up to six git processes) depends only on the refs, so it
// is kept while they are unchanged. The changed files themselves (two git
// processes that look at the whole index and work tree) are kept too, for
// a FilesUnder limited to some paths, while nothing they are computed from
// changed: the refs, the index file, the ignore files and every file and
// folder below those paths, by stat (treeKey). The result is always
// FilesUnder's.
type Resolver struct {
	root, gitDir, commonDir string
	now                     func() time.Time // the clock of treeKey's racy window

	mu              sync.Mutex
	key             string // refsKey when resolved
	head            bool   // HEAD names a commit
	base, mergeBase string

	lastKey string  // what last was computed from; "" when nothing is kept
	last    Changes // the last answer of FilesUnder

	loaded state // as Load read it or Save wrote it
}

// NewResolver returns a Resolver for the work tree at root, whose git
// directory is gitDir and shared git directory commonDir (they differ in
// a linked worktree).
func NewResolver(root, gitDir, commonDir string) *Resolver {
	return &Resolver{root: root, gitDir: gitDir, commonDir: commonDir, now: time.Now}
}

// Files returns what the branch changes, as Files(ctx, root) does.
func (r *Resolver) Files(ctx context.Context) (Changes, error) {
	return r.FilesUnder(ctx, nil)
}

// FilesUnder returns what the branch changes at or below the paths in
// within, as FilesUnder(ctx, root, within) does.
func (r *Resolver) FilesUnder(ctx context.Context, within []string) (Changes, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	key, ok := r.refsKey(now)
	if !ok || key != r.key {
		r.key = ""
		_, err := git(ctx, r.root, "rev-parse", "--verify", "-q", "HEAD")
		if err != nil && gitcli.ExitCode(err) != 1 {
			return Changes{}, err // no git, or cancelled: no answer to keep
		}
		r.head = err == nil
		r.base, r.mergeBase = "", ""
		if r.head {
			r.base, r.mergeBase = base(ctx, r.root), "HEAD"
			if r.base != "" {
				if mb, err := git(ctx, r.root, "merge-base", "HEAD", r.base); err == nil {
					r.mergeBase = strings.TrimSpace(string(mb))
				}
			}
		}
		if ok && ctx.Err() == nil {
			r.key = key
		}
	}
	if !r.head {
		return FilesUnder(ctx, r.root, within)
	}
	// The key is read before git runs: a change made meanwhile is in the
	// next key, so an answer is never kept under a key older than the
	// state it saw.
	full, cacheable := "", false
	if ok {
		if tk, tok := r.treeKey(within, now); tok {
			full, cacheable = key+"\x00"+strings.Join(within, "\x00")+"\x00"+tk, true
		}
	}
	if cacheable && full == r.lastKey {
		return Changes{Base: r.last.Base, MergeBase: r.last.MergeBase, Files: slices.Clone(r.last.Files)}, nil
	}
	r.lastKey = ""
	ch, err := diffFrom(ctx, r.root, Changes{Base: r.base, MergeBase: r.mergeBase}, within)
	if err == nil && cacheable {
		r.lastKey, r.last = full, Changes{Base: ch.Base, MergeBase: ch.MergeBase, Files: slices.Clone(ch.Files)}
	}
	return ch, err
}

// refsKey describes, without running git, everything the base and the
// merge-base are read from: HEAD, the ref it names and the refs base
// looks at (their content: loose refs are one line each), packed-refs,
// the config (for the upstream) and every remote-tracking ref (a fetch
// rewrites them in place), by stat. ok is false where it cannot tell: an
// unreadable HEAD, refs in the reftable format, or a stat'ed file
// modified within racyWindow of now, and then nothing is kept.
func (r *Resolver) refsKey(now time.Time) (key string, ok bool) {
	if _, err := os.Stat(filepath.Join(r.commonDir, "reftable")); err == nil {
		return "", false // refs in a format this does not read
	}
	head, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.Write(head)
	refs := []string{"refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"}
	if target, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); isRef {
		refs = append(refs, target)
	}
	for _, ref := range refs {
		content, err := os.ReadFile(filepath.Join(r.commonDir, filepath.FromSlash(ref)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		fmt.Fprintf(&b, "\x00%s %q", ref, content)
	}
	recent := now.Add(-racyWindow)
	stat := func(p string, fi fs.FileInfo) bool {
		fmt.Fprintf(&b, "\x00%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
		return !fi.ModTime().After(recent)
	}
	for _, f := range []string{filepath.Join(r.commonDir, "packed-refs"), filepath.Join(r.commonDir, "config")} {
		if fi, err := os.Stat(f); err == nil && !stat(f, fi) {
			return "", false
		}
	}
	// Upstream refs of any remote: a fetch rewrites them in place.
	ok = true
	filepath.WalkDir(filepath.Join(r.commonDir, "refs", "remotes"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && !stat(p, fi) {
				ok = false
				return filepath.SkipAll
			}
		}
		return nil
	})
	return b.String(), ok
}
