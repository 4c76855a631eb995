//go:build linux

package autoindex

import (
	"io/fs"
	"path"

	"golang.org/x/sys/unix"

	"github.com/contextfs/contextfs/cache"
)

// statRange stats paths into out through a descriptor of each folder
// (fstatat), as gitstore lists memory files: the folder's path is walked
// once for all its files instead of once per file, and no FileInfo is
// made. Intermediate links are followed as lstat of the whole path would.
func statRange(root string, paths []string, out []tracked) error {
	dir, fd := "", -1
	var dirErr error
	defer func() {
		if fd >= 0 {
			unix.Close(fd)
		}
	}()
	var st unix.Stat_t
	for i, p := range paths {
		d, name := path.Split(p)
		if fd < 0 && dirErr == nil || d != dir {
			if fd >= 0 {
				unix.Close(fd)
			}
			dir, fd, dirErr = d, -1, nil
			for {
				fd, dirErr = unix.Open(root+"/"+d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if dirErr != unix.EINTR {
					break
				}
			}
			if dirErr != nil {
				fd = -1
			}
		}
		if dirErr != nil {
			if gone(dirErr) {
				out[i].kind = statMissing
				continue
			}
			return &fs.PathError{Op: "open", Path: root + "/" + d, Err: dirErr}
		}
		var err error
		for {
			if err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != unix.EINTR {
				break
			}
		}
		switch {
		case gone(err):
			out[i].kind = statMissing
		case err != nil:
			return &fs.PathError{Op: "lstat", Path: root + "/" + p, Err: err}
		case st.Mode&unix.S_IFMT != unix.S_IFREG:
			out[i].kind = statOther
		default:
			out[i] = tracked{kind: statRegular, entry: cache.FileEntry{Path: p, Size: st.Size,
				Changed: max(st.Mtim.Nano(), st.Ctim.Nano()), Ino: st.Ino}}
		}
	}
	return nil
}
