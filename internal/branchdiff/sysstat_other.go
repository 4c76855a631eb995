//go:build !linux

package branchdiff

import (
	"io/fs"
	"time"
)

// sysStat has no inode or change time to add where the system gives none.
func sysStat(fs.FileInfo) (uint64, time.Time) { return 0, time.Time{} }
