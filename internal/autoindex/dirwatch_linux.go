//go:build linux

package autoindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path"

	"golang.org/x/sys/unix"
)

// dirWatch tells which tracked files may have changed since it last
// looked, from inotify events on the folders that hold them and on every
// folder above those (where a rename or removal of a folder on the way
// shows). Anything it cannot name a file for (a queue overflow, a watched
// folder removed, moved or replaced, an unmount) makes its answer "all":
// the caller stats every file and starts a new watch.
//
// Linux queues an event inside the system call that makes the change,
// so a change made before changes() drains the queue is in its answer
// (package watch's doc, "Why the answers are complete"); a file stat'ed
// after the drain is at least as new as the answer. What inotify does not
// see (writes through a shared mmap or another hard link from outside,
// network file systems) is missed here as by the memory watcher.
type dirWatch struct {
	fd   int
	wds  map[int32]string // watch descriptor → folder, work-tree relative ("" for the root)
	dirs map[string]bool  // the watched folders
	buf  []byte
}

const dirWatchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// newDirWatch watches the folders of paths (relative to root) and those
// above them. A folder that does not exist is not watched: its creation
// shows in the folder above, which is.
func newDirWatch(root string, paths []string) (*dirWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	d := &dirWatch{fd: fd, wds: map[int32]string{}, dirs: map[string]bool{}, buf: make([]byte, 64<<10)}
	for _, p := range paths {
		for dir := path.Dir(p); ; dir = path.Dir(dir) {
			if dir == "." {
				dir = ""
			}
			if d.dirs[dir] {
				break
			}
			d.dirs[dir] = true
			if dir == "" {
				break
			}
		}
	}
	for dir := range d.dirs {
		abs := root
		if dir != "" {
			abs += "/" + dir
		}
		wd, err := unix.InotifyAddWatch(fd, abs, dirWatchMask)
		switch {
		case err == unix.ENOENT || err == unix.ENOTDIR:
			continue
		case err != nil:
			d.close()
			return nil, err // ENOSPC: the user's watches are spent; stat instead
		}
		d.wds[int32(wd)] = dir
	}
	return d, nil
}

func (d *dirWatch) close() { unix.Close(d.fd) }

// errAll is changes' answer when it cannot name the files that changed.
var errAll = errors.New("inotify: changes not nameable")

// changes drains the queue and returns the work-tree relative paths of
// the files named by events since the last call, or errAll.
func (d *dirWatch) changes() (map[string]bool, error) {
	dirty := map[string]bool{}
	all := false
	for {
		n, err := unix.Read(d.fd, d.buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			break
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		for b := d.buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int32(binary.NativeEndian.Uint32(b[0:4]))
			mask := binary.NativeEndian.Uint32(b[4:8])
			size := int(binary.NativeEndian.Uint32(b[12:16]))
			if unix.SizeofInotifyEvent+size > len(b) {
				return nil, errAll
			}
			name := b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+size]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[unix.SizeofInotifyEvent+size:]
			if mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0 {
				all = true
				continue
			}
			dir, ok := d.wds[wd]
			if !ok || len(name) == 0 {
				continue
			}
			p := string(name)
			if dir != "" {
				p = dir + "/" + p
			}
			if d.dirs[p] {
				all = true // a folder on the way to tracked files was created, removed or moved
				continue
			}
			dirty[p] = true
		}
	}
	if all {
		return nil, errAll
	}
	return dirty, nil
}
