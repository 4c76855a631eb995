//go:build linux

package gitstore

import (
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// statAll stats the files with fstatat relative to an open descriptor of
// their folder: no path walk per file and no FileInfo allocation. Every
// command stats every memory file, so this is its hot path.
func statAll(r *Repo, paths []string) []Entry {
	type job struct {
		dir   string
		names []int // indexes into paths
	}
	var jobs []job
	for i, p := range paths {
		d := filepath.Dir(p)
		if len(jobs) == 0 || jobs[len(jobs)-1].dir != d {
			jobs = append(jobs, job{dir: d})
		}
		jobs[len(jobs)-1].names = append(jobs[len(jobs)-1].names, i)
	}
	out := make([]Entry, len(paths))
	ok := make([]bool, len(paths))
	var next = make(chan job)
	workers := min(runtime.NumCPU(), 1+len(paths)/512)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st unix.Stat_t
			for j := range next {
				fd, err := unix.Open(j.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					continue // the folder vanished: so did its files
				}
				for _, i := range j.names {
					name := filepath.Base(paths[i])
					if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
						continue
					}
					out[i] = Entry{Path: r.Rel(paths[i]), Size: st.Size, MTime: st.Mtim.Nano(), Ino: st.Ino}
					ok[i] = true
				}
				unix.Close(fd)
			}
		}()
	}
	// Split large folders so both workers share a flat .contextfs/memories.
	for _, j := range jobs {
		for len(j.names) > 256 {
			next <- job{dir: j.dir, names: j.names[:256]}
			j.names = j.names[256:]
		}
		next <- j
	}
	close(next)
	wg.Wait()
	kept := out[:0]
	for i, e := range out {
		if ok[i] {
			kept = append(kept, e)
		}
	}
	return kept
}
