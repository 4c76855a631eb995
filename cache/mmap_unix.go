//go:build unix

package cache

import (
	"fmt"
	"os"

	sys "golang.org/x/sys/unix"
)

// mapFile maps a file read-only. A one-shot CLI process then reads the
// vectors it scans straight from the page cache, instead of copying 100 MB
// into its heap first; unmap releases the mapping.
func mapFile(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	if int64(int(fi.Size())) != fi.Size() {
		return nil, nil, fmt.Errorf("%s: too large to map", path)
	}
	data, err = sys.Mmap(int(f.Fd()), 0, int(fi.Size()), sys.PROT_READ, sys.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return data, func() { sys.Munmap(data) }, nil
}
