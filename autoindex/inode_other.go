//go:build !unix

package autoindex

import "io/fs"

func inode(fs.FileInfo) uint64 { return 0 }
