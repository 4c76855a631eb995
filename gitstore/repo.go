// Package gitstore keeps memory files: it finds the repository, lists, reads
// and atomically writes the Markdown files under .contextfs/ in the work
// tree, and reads them at any git ref with git ls-tree and git cat-file
// --batch (ReadRef). It reads git's configuration files itself
// (gitconfig.go) for the author and remote URLs, handing anything it cannot
// read exactly as git does to git config. The files are the only source of
// truth; nothing here caches.
package gitstore

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir is the folder, at the root of the work tree, that holds memories.
const Dir = ".contextfs"

// ErrNotRepo is returned by Discover outside a git work tree.
var ErrNotRepo = errors.New("not a git repository (or any parent directory); run `git init` first, or cd into a repository")

// BareError is a bare repository found where a work tree was looked for:
// a repository, so "not a git repository" would mislead, but with no work
// tree to hold memory files.
type BareError struct{ Dir string }

// Error names the repository and what to do instead.
func (e *BareError) Error() string {
	return e.Dir + " is a bare repository, with no work tree for the memory files: run contextfs in a clone of it"
}

// Is makes a BareError an ErrNotRepo to callers that treat the two alike
// (a command that can work without a repository).
func (e *BareError) Is(target error) bool { return target == ErrNotRepo }

// Repo is a git work tree, located without running git: discovery is on the
// path of every command, and a process spawn costs more than the search.
type Repo struct {
	// Root is the absolute path of the top of the work tree.
	Root string
	// GitDir is this work tree's git directory (.git, or
	// .git/worktrees/NAME for a linked worktree). The cache lives here so
	// that worktrees never share a half-matching index.
	GitDir string
	// CommonDir is the git directory shared by all worktrees (objects,
	// config, hooks).
	CommonDir string
	// MaxFileBytes bounds the files ReadFile reads; 0 means
	// memory.DefaultMaxFileBytes.
	MaxFileBytes int64
	// Private makes the memory files and folders written here their
	// owner's only (0600, 0700): set for the user store, whose memories
	// no other local user may read.
	Private bool
}

// filePerm is the mode of a new file written in the work tree: perm, less
// everything for group and others in a private store.
func (r *Repo) filePerm(perm os.FileMode) os.FileMode {
	if r.Private {
		return perm &^ 0o077
	}
	return perm
}

// CreateFile is CreateFileExclusive with the repository's modes (private
// in a private store), for the files init writes.
func (r *Repo) CreateFile(name string, data []byte) error {
	return createFileExclusive(name, data, r.filePerm(0o644), nil)
}

// Discover finds the work tree containing dir. It honours GIT_DIR and
// GIT_WORK_TREE, which git sets when it runs hooks.
func Discover(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		// Walking up from a path that is not there would name the
		// repository around it, or say there is none.
		return nil, fmt.Errorf("%s: no such folder", dir)
	}
	if gd := os.Getenv("GIT_DIR"); gd != "" {
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(abs, gd)
		}
		root := os.Getenv("GIT_WORK_TREE")
		switch {
		case root == "":
			// git runs hooks from the top of the work tree.
			root = abs
			if filepath.Base(gd) == ".git" {
				root = filepath.Dir(gd)
			}
		case !filepath.IsAbs(root):
			root = filepath.Join(abs, root)
		}
		return newRepo(filepath.Clean(root), filepath.Clean(gd))
	}
	for d := abs; ; {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return newRepo(d, p)
			}
			gd, err := readGitFile(p)
			if err != nil {
				return nil, err
			}
			return newRepo(d, gd)
		}
		if isBare(d) {
			return nil, &BareError{Dir: d}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, ErrNotRepo
		}
		d = parent
	}
}

// isBare reports whether dir is a bare repository's git directory (HEAD,
// objects and refs at its top, and core.bare set in its config, which a
// work tree's .git lacks), so that the error can say so rather than that
// there is no repository at all.
func isBare(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.ToLower(strings.TrimSpace(line)), "=")
		if ok && strings.TrimSpace(k) == "bare" && strings.TrimSpace(v) == "true" {
			return true
		}
	}
	return false
}

func newRepo(root, gitDir string) (*Repo, error) {
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return nil, fmt.Errorf("%s is not a git directory: %w", gitDir, ErrNotRepo)
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	return &Repo{Root: root, GitDir: gitDir, CommonDir: common}, nil
}

// readGitFile reads a ".git" file ("gitdir: PATH") as linked worktrees and
// submodules have.
func readGitFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	s, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: expected \"gitdir: PATH\"", p)
	}
	gd := strings.TrimSpace(s)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return filepath.Clean(gd), nil
}

// MemoryDir is the absolute path of the work tree's .contextfs folder.
func (r *Repo) MemoryDir() string { return filepath.Join(r.Root, Dir) }

// Rel returns abs relative to the work-tree root, with forward slashes.
// Paths under the root (the common case, on every file of every command)
// are cut by prefix; others go through filepath.Rel.
func (r *Repo) Rel(abs string) string {
	if len(abs) > len(r.Root)+1 && abs[len(r.Root)] == filepath.Separator && abs[:len(r.Root)] == r.Root {
		return filepath.ToSlash(abs[len(r.Root)+1:])
	}
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// Abs returns the absolute path of a work-tree-relative path.
func (r *Repo) Abs(rel string) string { return filepath.Join(r.Root, filepath.FromSlash(rel)) }

// Author returns "Name <email>" from the environment or git config, or ""
// when neither says. It reads the configuration files itself (identity)
// and runs git only where they use what it does not read.
func (r *Repo) Author() string {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" || email == "" {
		n, e := r.identity()
		name, email = cmp.Or(name, n), cmp.Or(email, e)
	}
	switch {
	case name != "" && email != "":
		return name + " <" + email + ">"
	case name != "":
		return name
	}
	return email
}
