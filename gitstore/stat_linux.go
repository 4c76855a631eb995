//go:build linux

package gitstore

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// list reads each folder of .contextfs/ once and stats its memory files
// with fstatat relative to the folder's descriptor: no path walk per file,
// no FileInfo, no joined paths. Every command does this for every memory
// file, so it is the hot path of a command on a large memory.
func (r *Repo) list() ([]Entry, error) { return r.listFrom(r.MemoryDir(), Dir+"/") }

// listFrom lists the memory files under the folder abs, whose
// work-tree-relative path with a trailing slash is rel. Each worker takes
// a folder, reads its entries with getdents into one reused buffer (no
// DirEntry per file, no sorting, which os.ReadDir does and which was a
// quarter of the pass) and stats its memory files through the folder's
// descriptor; the folders it finds go back to the queue.
func (r *Repo) listFrom(abs, rel string) ([]Entry, error) {
	w := &walk{queue: []walkDir{{abs: abs, rel: rel}}}
	w.cond = sync.NewCond(&w.mu)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
	if w.err != nil {
		return nil, w.err
	}
	// Sized at once: grown by appends, the list of a million files was
	// copied a dozen times, and held twice over at the end.
	n := 0
	for _, r := range w.results {
		n += len(r)
	}
	out := make([]Entry, 0, n)
	for _, r := range w.results {
		out = append(out, r...)
	}
	return out, nil
}

// walkDir is a folder to list: its absolute path and the work-tree
// relative prefix, with a trailing slash, of its entries.
type walkDir struct{ abs, rel string }

// walk is the shared state of listFrom's workers.
type walk struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []walkDir
	active  int // folders being read
	results [][]Entry
	err     error
}

// work lists folders until none is left and none is being read (which
// could find more).
func (w *walk) work() {
	buf := make([]byte, 32<<10)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.active > 0 {
			w.cond.Wait()
		}
		if len(w.queue) == 0 || w.err != nil {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		d := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.active++
		w.mu.Unlock()
		out, dirs, err := listDir(d, buf)
		w.mu.Lock()
		w.active--
		if len(out) > 0 {
			w.results = append(w.results, out)
		}
		w.queue = append(w.queue, dirs...)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// listDir reads the folder d: its memory files, stat'ed, and its
// folders. A folder that vanished while we looked lists nothing.
func listDir(d walkDir, buf []byte) (out []Entry, dirs []walkDir, err error) {
	fd, err := unix.Open(d.abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT { // .contextfs/ absent, or removed while we looked
			return nil, nil, nil
		}
		return nil, nil, &fs.PathError{Op: "open", Path: d.abs, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, &fs.PathError{Op: "readdirent", Path: d.abs, Err: err}
		}
		if n <= 0 {
			return out, dirs, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ, name := b[18], b[19:reclen]
			b = b[reclen:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if len(name) == 0 || name[0] == '.' {
				continue // hidden files and folders are never memories; nor are . and ..
			}
			if typ != unix.DT_DIR && typ != unix.DT_UNKNOWN && (typ != unix.DT_REG || !bytes.HasSuffix(name, []byte(".md"))) {
				continue
			}
			p := d.rel + string(name)
			n := p[len(d.rel):]
			if typ == unix.DT_DIR {
				dirs = append(dirs, walkDir{abs: d.abs + "/" + n, rel: p + "/"})
				continue
			}
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue // removed while we looked
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFDIR: // a file system without types in its entries
				dirs = append(dirs, walkDir{abs: d.abs + "/" + n, rel: p + "/"})
			case unix.S_IFREG: // not a link, nor a device: those are never memories
				if strings.HasSuffix(n, ".md") && n != "README.md" && ValidFileName(n) {
					out = append(out, Entry{Path: p, Size: st.Size, Changed: max(st.Mtim.Nano(), st.Ctim.Nano()), Ino: st.Ino})
				}
			}
		}
	}
}

// changed is the later of fi's modification and status-change times (see
// Entry.Changed).
func changed(fi fs.FileInfo) int64 {
	t := fi.ModTime().UnixNano()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		t = max(t, st.Ctim.Nano())
	}
	return t
}
