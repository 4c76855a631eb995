//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS returns the most memory, in bytes, the finished process ps held
// at once, and false where the system does not say.
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true // bytes
	}
	return int64(ru.Maxrss) << 10, true // kilobytes
}
