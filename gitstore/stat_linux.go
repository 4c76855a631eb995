//go:build linux

package gitstore

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// list reads each folder of .contextfs/ once and stats its memory files
// with fstatat relative to the folder's descriptor: no path walk per file,
// no FileInfo, no joined paths. Every command does this for every memory
// file, so it is the hot path of a command on a large memory.
func (r *Repo) list() ([]Entry, error) { return r.listFrom(r.MemoryDir(), Dir+"/") }

// listFrom lists the memory files under the folder abs, whose
// work-tree-relative path with a trailing slash is rel.
func (r *Repo) listFrom(abs, rel string) ([]Entry, error) {
	type batch struct {
		dir   string // absolute
		rel   string // ".contextfs/…/" prefix of the entries
		names []string
	}
	// Folders are read in this goroutine while the workers already stat
	// the names found so far.
	var (
		mu      sync.Mutex
		results [][]Entry
	)
	next := make(chan batch, 64)
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st unix.Stat_t
			for b := range next {
				fd, err := unix.Open(b.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					continue // the folder vanished: so did its files
				}
				out := make([]Entry, 0, len(b.names))
				for _, n := range b.names {
					if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
						continue // removed, or replaced by a link, while we looked
					}
					out = append(out, Entry{Path: b.rel + n, Size: st.Size, MTime: st.Mtim.Nano(), Ino: st.Ino})
				}
				unix.Close(fd)
				mu.Lock()
				results = append(results, out)
				mu.Unlock()
			}
		}()
	}
	queue := []batch{{dir: abs, rel: rel}}
	var walkErr error
	for len(queue) > 0 && walkErr == nil {
		d := queue[0]
		queue = queue[1:]
		ents, err := os.ReadDir(d.dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // .contextfs/ absent, or removed while we looked
				walkErr = err
			}
			continue
		}
		var names []string
		for _, e := range ents {
			n := e.Name()
			if strings.HasPrefix(n, ".") {
				continue // hidden files and folders are never memories
			}
			switch t := e.Type(); {
			case t.IsDir():
				queue = append(queue, batch{dir: d.dir + "/" + n, rel: d.rel + n + "/"})
			case t.IsRegular() && strings.HasSuffix(n, ".md") && n != "README.md" && ValidFileName(n):
				names = append(names, n)
			}
		}
		for len(names) > 0 {
			k := min(len(names), 256)
			next <- batch{dir: d.dir, rel: d.rel, names: names[:k]}
			names = names[k:]
		}
	}
	close(next)
	wg.Wait()
	if walkErr != nil {
		return nil, walkErr
	}
	var out []Entry
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}
