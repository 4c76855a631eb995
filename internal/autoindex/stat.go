package autoindex

import (
	"errors"
	"io/fs"
	"runtime"
	"sync"
	"syscall"

	"github.com/contextfs/contextfs/cache"
)

// What a tracked path is in the work tree.
const (
	statRegular = iota // a regular file: its entry is filled in
	statMissing        // gone (deleted, or a folder on its way is a file now)
	statOther          // a folder, a link, a device
)

// tracked is one tracked path's state in the work tree.
type tracked struct {
	kind  int
	entry cache.FileEntry
}

// statTracked stats the work-tree files at paths (relative to root, in
// git's index order, so that a folder's files are together), on all
// cores in contiguous ranges: an index run that finds nothing changed is
// mostly this one system call per tracked file. A path whose folder is
// gone, or is a file now, is missing; any other failure is an error.
func statTracked(root string, paths []string) ([]tracked, error) {
	out := make([]tracked, len(paths))
	workers := min(runtime.GOMAXPROCS(0), len(paths)/512+1)
	per := (len(paths) + workers - 1) / workers
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w, lo := 0, 0; lo < len(paths); w, lo = w+1, lo+per {
		hi := min(lo+per, len(paths))
		wg.Go(func() { errs[w] = statRange(root, paths[lo:hi], out[lo:hi]) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// gone reports whether err from a stat says the path does not exist.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
