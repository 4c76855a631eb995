//go:build !unix

package cache

import "os"

// mapFileID reads the file (systems without mmap pay one copy); without a
// portable identity, it returns none, so the file's checksum is verified
// on every load.
func mapFileID(path string) (data []byte, unmap func(), id string, err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, "", err
}

// fileID is a file's identity: none without a portable one, so a mapped
// file is never reused.
func fileID(path string) string { return "" }

// dropPages does nothing where files are read, not mapped.
func dropPages(b []byte) {}
