//go:build !unix

package cache

import "os"

// mapFile reads the file: systems without mmap pay one copy.
func mapFile(path string) (data []byte, unmap func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}

// mapFileID reads the file; without a portable identity, it returns none,
// so the file's checksum is verified on every load.
func mapFileID(path string) (data []byte, unmap func(), id string, err error) {
	data, unmap, err = mapFile(path)
	return data, unmap, "", err
}

// fileID is a file's identity: none without a portable one, so a mapped
// file is never reused.
func fileID(path string) string { return "" }
