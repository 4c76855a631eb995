//go:build unix

package cache

import (
	"path/filepath"
	"syscall"
)

// mayWrite is the cheap test of open's success path: may this process
// write the folder and the database (access(2); writable tries instead).
func mayWrite(dir string) bool {
	const w = 0x2 // W_OK
	return syscall.Access(dir, w) == nil && syscall.Access(filepath.Join(dir, DBFile), w) == nil
}
