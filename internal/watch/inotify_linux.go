package watch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Watch masks. Folders in the tree report every change of an entry;
// IN_EXCL_UNLINK drops events of files already unlinked (still open by
// someone), IN_ONLYDIR refuses to watch something that turned into a file,
// IN_DONT_FOLLOW refuses symlinks below the top folder, as the scan does.
// The work-tree root is watched only for the top folder coming and going
// and for itself disappearing.
//
// Folders are not watched for IN_MOVE_SELF: the parent's IN_MOVED_FROM,
// queued before it, already says the folder left its path; and by the
// time IN_MOVE_SELF is read, a walk may have watched the folder again at
// its new place (same inode, same watch descriptor), where acting on the
// stale event would drop a live watch.
const (
	dirMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_DELETE_SELF |
		unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK
	rootMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

	// fileEvents are the events of a non-folder entry that may change
	// what a scan would see of it.
	fileEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_ATTRIB
)

// sink receives what the watcher makes of events. It is the server,
// called with its lock held.
type sink interface {
	changed(rel string) // a file (or other non-folder) entry
	removed(rel string) // a folder, and everything under it
	lost(reason string) // events were lost: every older token needs a full scan
	rootGone(reason string)
}

// watcher keeps one inotify watch on every folder of the tree under
// root/dir, plus one on root. It is not safe for concurrent use: the
// server serializes it with its lock.
type watcher struct {
	fd     int      // inotify descriptor, non-blocking; owned by file
	file   *os.File // lets a goroutine wait for events in the runtime poller
	root   string   // absolute work-tree root
	dir    string   // watched folder name, a child of root
	rootWd int32

	dirs map[int32]string // watch descriptor → folder path relative to root
	wds  map[string]int32 // its inverse

	// broken is set when a folder could not be watched: from then on a
	// change could go unseen, so the server answers only "full".
	broken string
	buf    []byte
}

// newWatcher starts watching root and, if it exists, the tree root/dir.
func newWatcher(root, dir string, s sink) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch: inotify_init1: %w", err)
	}
	w := &watcher{
		fd:   fd,
		file: os.NewFile(uintptr(fd), "inotify"),
		root: root,
		dir:  dir,
		dirs: make(map[int32]string),
		wds:  make(map[string]int32),
		buf:  make([]byte, 64<<10),
	}
	wd, err := unix.InotifyAddWatch(fd, root, rootMask)
	if err != nil {
		w.file.Close()
		return nil, fmt.Errorf("watch: watch %s: %w", root, err)
	}
	w.rootWd = int32(wd)
	w.walk(dir, false, s)
	return w, nil
}

// close releases the inotify instance and with it every watch. It must
// not be called with the server's lock held: it waits for the goroutine
// blocked in the poller, which takes that lock.
func (w *watcher) close() error { return w.file.Close() }

// drain reads and applies every event queued on the inotify descriptor,
// until the kernel says there is none (EAGAIN). Since events are queued
// by the very system call that makes the change, every change made before
// drain was called has then been applied.
func (w *watcher) drain(s sink) error {
	for {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return nil
		case err != nil:
			return fmt.Errorf("watch: read inotify: %w", err)
		case n < unix.SizeofInotifyEvent:
			return fmt.Errorf("watch: short inotify read (%d bytes)", n)
		}
		w.apply(w.buf[:n], s)
	}
}

// apply decodes a buffer of inotify events (struct inotify_event, in host
// byte order, each followed by its NUL-padded name) and handles each.
func (w *watcher) apply(b []byte, s sink) {
	for len(b) >= unix.SizeofInotifyEvent {
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		n := int(binary.NativeEndian.Uint32(b[12:]))
		b = b[unix.SizeofInotifyEvent:]
		if n > len(b) {
			s.lost("truncated inotify event")
			return
		}
		name := strings.TrimRight(string(b[:n]), "\x00")
		b = b[n:]
		w.event(wd, mask, name, s)
	}
}

// event handles one event. The rule that keeps answers complete: every
// change of an entry in a watched folder is either reported as the path
// itself, or covered by a reported prefix, or (for a folder that appears)
// by listing the folder after watching it.
func (w *watcher) event(wd int32, mask uint32, name string, s sink) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		s.lost("inotify queue overflow")
		return
	}
	if wd == w.rootWd {
		w.rootEvent(mask, name, s)
		return
	}
	rel, ok := w.dirs[wd]
	if !ok {
		// A watch this watcher removed: the events still queued for it
		// belong to a folder already reported as a prefix and, if it
		// now lives elsewhere in the tree, watched and listed afresh.
		return
	}
	if mask&unix.IN_UNMOUNT != 0 {
		s.lost("file system unmounted under " + rel)
		return
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_IGNORED) != 0 {
		// The folder was deleted (a deleted inode cannot be watched
		// again elsewhere), or its watch dropped by the kernel. Its
		// parent's IN_DELETE usually follows; reporting twice is harmless.
		w.forget(rel)
		s.removed(rel)
		return
	}
	if name == "" {
		if mask&^(unix.IN_ATTRIB|unix.IN_ISDIR) != 0 {
			s.lost(fmt.Sprintf("unexpected inotify event %#x on %s", mask, rel))
		}
		return // the folder's own mode or times: no memory depends on them
	}
	if hidden(name) {
		return // hidden names are never memories, nor searched for them
	}
	p := rel + "/" + name
	switch {
	case mask&unix.IN_ISDIR == 0 && mask&fileEvents != 0:
		s.changed(p)
	case mask&unix.IN_ISDIR == 0:
		s.lost(fmt.Sprintf("unexpected inotify event %#x on %s", mask, p))
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.walk(p, true, s)
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		w.forget(p)
		s.removed(p)
	}
	// Other events of a child folder (its mode, times) matter to no memory.
}

// rootEvent handles an event of the work-tree root: the top folder coming
// or going, or the work tree itself disappearing.
func (w *watcher) rootEvent(mask uint32, name string, s sink) {
	switch {
	case mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0:
		s.rootGone(fmt.Sprintf("work tree %s removed, moved or unmounted (event %#x)", w.root, mask))
	case name != w.dir:
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.walk(w.dir, true, s)
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		w.forget(w.dir)
		s.removed(w.dir)
	}
}

// walk watches the folder rel and every non-hidden folder under it. With
// report, it reports every file it finds as changed: each folder is
// listed after its watch is in place, so a file created in it before the
// watch is listed, and one created after raises an event; none is missed.
func (w *watcher) walk(rel string, report bool, s sink) {
	queue := []string{rel}
	for len(queue) > 0 && w.broken == "" {
		rel := queue[0]
		queue = queue[1:]
		abs := filepath.Join(w.root, filepath.FromSlash(rel))
		mask := uint32(dirMask)
		if rel != w.dir {
			// The top folder may be a symlink, which the scan follows;
			// below it, the scan does not follow symlinks, nor do we.
			mask |= unix.IN_DONT_FOLLOW
		}
		wd, err := unix.InotifyAddWatch(w.fd, abs, mask)
		switch {
		case err == unix.ENOENT || err == unix.ENOTDIR || err == unix.ELOOP:
			// Gone, or no longer a folder, before we got to it: the
			// event saying so is queued. Reporting it is merely prudent.
			if report {
				s.removed(rel)
			}
			continue
		case err != nil:
			// ENOSPC (fs.inotify.max_user_watches), ENOMEM, EACCES: this
			// folder's changes would go unseen.
			w.broken = fmt.Sprintf("cannot watch %s: %v", abs, err)
			return
		}
		w.track(int32(wd), rel, s)
		f, err := os.Open(abs)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.ENOTDIR) {
				w.broken = fmt.Sprintf("cannot list %s: %v", abs, err)
				return
			}
			continue // removed since: the event saying so is queued
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			w.broken = fmt.Sprintf("cannot list %s: %v", abs, err)
			return
		}
		for _, e := range ents {
			n := e.Name()
			switch {
			case hidden(n):
			case e.IsDir():
				queue = append(queue, rel+"/"+n)
			case report:
				s.changed(rel + "/" + n)
			}
		}
	}
}

// track records that wd watches the folder rel. inotify gives a folder
// (an inode) one watch descriptor, so wd may already stand for the same
// folder under an older path, if the walk of a new folder got to a folder
// moved into it before the event of that move was read; and rel may still
// map to the watch of a folder that was there before. Either way the old
// mapping, and what was under it, is dropped (and reported): the walk
// that called track watches and lists everything under rel again.
func (w *watcher) track(wd int32, rel string, s sink) {
	if old, ok := w.dirs[wd]; ok && old != rel {
		w.forgetBelow(old)
		delete(w.wds, old)
		delete(w.dirs, wd)
		s.removed(old)
	}
	if prev, ok := w.wds[rel]; ok && prev != wd {
		w.forget(rel)
		s.removed(rel)
	}
	w.dirs[wd] = rel
	w.wds[rel] = wd
}

// forget removes the watches of rel and of every folder under it.
func (w *watcher) forget(rel string) {
	if wd, ok := w.wds[rel]; ok {
		w.unwatch(wd, rel)
	}
	w.forgetBelow(rel)
}

// forgetBelow removes the watches of the folders under rel (not rel
// itself).
func (w *watcher) forgetBelow(rel string) {
	pre := rel + "/"
	for p, wd := range w.wds {
		if strings.HasPrefix(p, pre) {
			w.unwatch(wd, p)
		}
	}
}

func (w *watcher) unwatch(wd int32, rel string) {
	// EINVAL: the kernel already dropped it (the folder was deleted);
	// its IN_IGNORED will find no mapping.
	unix.InotifyRmWatch(w.fd, uint32(wd))
	delete(w.dirs, wd)
	delete(w.wds, rel)
}

// unwatchAll removes every watch in the tree, keeping the one on root: a
// broken watcher gives the user's watch budget back, but still notices
// the work tree going away.
func (w *watcher) unwatchAll() {
	for p, wd := range w.wds {
		w.unwatch(wd, p)
	}
}

// hidden reports whether a name is hidden: such files and folders are
// never memories, and the scan skips them.
func hidden(name string) bool { return strings.HasPrefix(name, ".") }
