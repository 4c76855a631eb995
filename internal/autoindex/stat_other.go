//go:build !linux

package autoindex

import (
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs/gitstore"
)

// statRange stats paths into out with lstat.
func statRange(root string, paths []string, out []tracked) error {
	for i, p := range paths {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case gone(err):
			out[i].kind = statMissing
		case err != nil:
			return err
		case !fi.Mode().IsRegular():
			out[i].kind = statOther
		default:
			out[i] = tracked{kind: statRegular, entry: gitstore.EntryOf(p, fi)}
		}
	}
	return nil
}
