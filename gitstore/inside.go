package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrSymlink is wrapped by the error for a memory path through a symbolic
// link: contextfs reads and writes memories inside the repository only,
// and a link in .contextfs/ could lead anywhere (another repository, a
// system folder).
var ErrSymlink = errors.New("is a symbolic link; contextfs never follows one, so that memories stay inside the repository (replace it with the folder or file it points to)")

// NoSymlink checks that no part of the work-tree-relative path rel, from
// the top of the work tree down to rel itself, is a symbolic link. A part
// that does not exist ends the check: there is nothing to follow, and a
// write creates real folders.
func (r *Repo) NoSymlink(rel string) error {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == "." || strings.HasPrefix(rel, "../") || rel == ".." || path.IsAbs(rel) {
		return nil // not under the work tree: not a memory path (callers check that)
	}
	parts := strings.Split(rel, "/")
	p := r.Root
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %s %w", rel, path.Join(parts[:i+1]...), ErrSymlink)
		}
	}
	return nil
}
