//go:build linux

package branchdiff

import (
	"io/fs"
	"syscall"
	"time"
)

// sysStat is the inode and change time of fi: a file replaced by another
// of the same size and modification time (a rename over it, a copy that
// keeps times) still shows a new inode or change time.
func sysStat(fi fs.FileInfo) (uint64, time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, time.Time{}
	}
	return uint64(st.Ino), time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}
