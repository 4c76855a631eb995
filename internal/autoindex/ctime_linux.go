//go:build linux

package autoindex

import (
	"io/fs"
	"syscall"
)

// fileDevIno returns the device, inode and status-change time (ns) of fi,
// an Lstat or Stat result; zeros where the system does not say.
func fileDevIno(fi fs.FileInfo) (dev, ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino, st.Ctim.Nano()
	}
	return 0, 0, 0
}
