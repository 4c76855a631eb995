//go:build !unix

package gitstore

import "io/fs"

func inode(fs.FileInfo) uint64 { return 0 }
