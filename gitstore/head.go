package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/contextfs/contextfs/internal/git"
)

// maxSymrefDepth is how many symbolic refs Head follows, as git's
// resolver stops after a few.
const maxSymrefDepth = 5

// Head returns the commit SHA that HEAD points to, read by go-git from the
// ref files (HEAD, loose refs, packed-refs) without starting git:
// auto-indexing asks on every search. An unborn branch (no commits yet) is
// sha "" with ok true. ok is false when HEAD cannot be resolved this way,
// and callers then ask git: a ref backend other than files (reftable), a
// SHA-256 repository (go-git v5 reads only SHA-1 object names), a ref
// that holds no object name, or a config file git must judge.
func (r *Repo) Head() (sha string, ok bool) {
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return "", false
	}
	if !r.sha1Objects() {
		return "", false
	}
	dg := dotgit.New(r.refFS())
	name := plumbing.HEAD
	for depth := 0; depth < maxSymrefDepth; depth++ {
		ref, err := dg.Ref(name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return "", depth > 0 && name.IsBranch() // an unborn branch
		}
		if err != nil {
			return "", false
		}
		if ref.Type() == plumbing.HashReference {
			// go-git reads a value that is no object name as the zero hash.
			if h := ref.Hash(); !h.IsZero() {
				return h.String(), true
			}
			return "", false
		}
		name = ref.Target()
	}
	return "", false
}

// HeadCommit returns the commit SHA that HEAD points to, or "" when there
// is none (an unborn branch, or git cannot say). It reads the ref files
// (Head) and asks git only where they cannot answer: reftable, SHA-256.
func (r *Repo) HeadCommit(ctx context.Context) string {
	if sha, ok := r.Head(); ok {
		return sha
	}
	out, err := git.Output(ctx, r.Root, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return out
}

// refFS is the git directory as go-git reads refs from it: in a linked
// worktree, HEAD and the per-worktree refs from GitDir, branches,
// packed-refs and the rest from CommonDir (go-git's RepositoryFilesystem
// knows which are which, as gitrepository-layout(5) says).
func (r *Repo) refFS() billy.Filesystem {
	git := osfs.New(r.GitDir, osfs.WithBoundOS())
	if r.CommonDir == r.GitDir {
		return git
	}
	return dotgit.NewRepositoryFilesystem(git, osfs.New(r.CommonDir, osfs.WithBoundOS()))
}

// sha1Objects reports whether the repository names objects with SHA-1:
// its config file (CommonDir/config, read alone, as git reads the
// repository's format) sets no other extensions.objectFormat. A config
// file parseConfig hands over to git counts as not.
func (r *Repo) sha1Objects() bool {
	raw, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	entries, err := parseConfig(raw)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.section == "extensions" && e.subsection == "" && e.key == "objectformat" && !strings.EqualFold(e.value, "sha1") {
			return false
		}
	}
	return true
}
