package branchdiff

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Resolver is Files for a long-lived process (the MCP server), which asks
// on every get_context call. What a branch is compared with (the base and
// the merge-base: up to six git processes) depends only on the refs, so it
// is kept while they are unchanged; the diff and the untracked files, which
// depend on the work tree, are asked of git on every call as Files does.
// The result is always Files's.
type Resolver struct {
	root, gitDir, commonDir string

	mu              sync.Mutex
	key             string // refsKey when resolved
	head            bool   // HEAD names a commit
	base, mergeBase string
}

// NewResolver returns a Resolver for the work tree at root, whose git
// directory is gitDir and shared git directory commonDir (they differ in
// a linked worktree).
func NewResolver(root, gitDir, commonDir string) *Resolver {
	return &Resolver{root: root, gitDir: gitDir, commonDir: commonDir}
}

// Files returns what the branch changes, as Files(ctx, root) does.
func (r *Resolver) Files(ctx context.Context) (Changes, error) {
	key, ok := r.refsKey()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok || key != r.key {
		r.key = ""
		_, err := git(ctx, r.root, "rev-parse", "--verify", "-q", "HEAD")
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
		if ok {
			r.key = key
		}
	}
	if !r.head {
		return Files(ctx, r.root)
	}
	return diffFrom(ctx, r.root, Changes{Base: r.base, MergeBase: r.mergeBase})
}

// refsKey describes, without running git, everything the base and the
// merge-base are read from: HEAD and the ref it names (content), the refs
// base looks at, packed-refs and the config (for the upstream), by size
// and modification time. ok is false where it cannot tell (an unreadable
// HEAD), and then nothing is kept.
func (r *Resolver) refsKey() (key string, ok bool) {
	if _, err := os.Stat(filepath.Join(r.commonDir, "reftable")); err == nil {
		return "", false // refs in a format this does not read
	}
	head, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.Write(head)
	files := []string{
		filepath.Join(r.commonDir, "packed-refs"),
		filepath.Join(r.commonDir, "config"),
		filepath.Join(r.commonDir, "refs", "remotes", "origin", "HEAD"),
	}
	for _, ref := range []string{"refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"} {
		files = append(files, filepath.Join(r.commonDir, filepath.FromSlash(ref)))
	}
	if target, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); isRef {
		content, _ := os.ReadFile(filepath.Join(r.commonDir, filepath.FromSlash(target)))
		b.Write(content)
		// The upstream's ref, where one is configured, is some file
		// under refs/remotes: its folder's entries are named below.
		files = append(files, filepath.Join(r.commonDir, filepath.FromSlash(target)))
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "\x00%s %d %d", f, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	// Upstream refs of any remote: a fetch rewrites them in place.
	filepath.WalkDir(filepath.Join(r.commonDir, "refs", "remotes"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(&b, "\x00%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
			}
		}
		return nil
	})
	return b.String(), true
}
