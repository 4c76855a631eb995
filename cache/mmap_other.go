//go:build !unix

package cache

import "os"

// mapFile reads the file: systems without mmap pay one copy.
func mapFile(path string) (data []byte, unmap func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}
