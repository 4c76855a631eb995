package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxSunPath is the longest path bind(2) and connect(2) take: sun_path is
// 108 bytes including the terminating NUL. A git dir nested deeply enough
// exceeds it.
const maxSunPath = 107

// shortPath returns a path no longer than maxSunPath naming the same file
// as path, and a function to call once it has been used. A long path is
// reached through /proc/self/fd/<fd of its folder>/<name>: the kernel
// resolves the descriptor's magic link, and the socket file is created in
// (or found in) the real folder.
func shortPath(path string) (string, func(), error) {
	if len(path) <= maxSunPath {
		return path, func() {}, nil
	}
	dir, name := filepath.Split(path)
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	short := "/proc/self/fd/" + strconv.Itoa(dfd) + "/" + name
	if len(short) > maxSunPath {
		unix.Close(dfd)
		return "", nil, fmt.Errorf("socket name %q too long", name)
	}
	return short, func() { unix.Close(dfd) }, nil
}

// dial connects to the daemon's socket within connectTimeout.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	addr, done, err := shortPath(socket)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return nil, fmt.Errorf("watch: connect %s: %w", socket, err)
	}
	defer done()
	d := net.Dialer{Timeout: connectTimeout}
	conn, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %w", ErrNotRunning, err)
		}
		return nil, fmt.Errorf("watch: connect %s: %w", socket, err)
	}
	if err := checkPeer(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("watch: connect %s: %w", socket, err)
	}
	return conn, nil
}

// checkPeer makes sure the daemon runs as this user. The socket is mode
// 0600 in a private folder, but a path in a shared git dir could have
// been replaced by another user's socket: answers from it would steer
// what a command reads.
func checkPeer(conn net.Conn) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var credErr error
	if err := rc.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("peer credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("%w (uid %d)", ErrForeignDaemon, cred.Uid)
	}
	return nil
}

// lockSocket takes the lock that makes a daemon the only one for socket:
// an exclusive flock on socket+".lock", held for the daemon's life and
// released by the kernel if it dies. Holding it, a daemon knows that an
// existing socket file is stale; probing the socket by connecting instead
// would let two daemons starting together both decide so, and the second
// would remove the first one's fresh socket.
func lockSocket(socket string) (*os.File, error) {
	f, err := os.OpenFile(socket+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, fmt.Errorf("%w on %s", ErrAlreadyRunning, socket)
		}
		return nil, fmt.Errorf("watch: lock %s: %w", f.Name(), err)
	}
	// The pid, for Holder: a daemon that does not answer can still be
	// named and stopped. Written over the old one, then cut to length, so
	// that a reader finds a whole number on the first line.
	pid := strconv.Itoa(os.Getpid()) + "\n"
	if _, err := f.WriteAt([]byte(pid), 0); err == nil {
		f.Truncate(int64(len(pid)))
	}
	return f, nil
}

// fileID identifies a file, to tell later whether a path still names it.
type fileID struct{ dev, ino uint64 }

func statID(path string) (fileID, bool) {
	id, err := lstatID(path)
	return id, err == nil
}

// lstatID identifies the file at path itself (a symlink is not followed).
func lstatID(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), st.Ino}, nil
}

// dirID identifies the folder path names, following symlinks as inotify
// does when it watches the work-tree root.
func dirID(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return fileID{uint64(st.Dev), st.Ino}, nil
}

// isGone reports whether err says a path names nothing any more: a
// transient failure (EACCES, EIO, ENOMEM) does not.
func isGone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
}

// listen creates the daemon's socket at path, mode 0600, replacing a stale
// one. The caller holds the socket's lock.
//
// The socket is bound in a fresh private (0700) folder next to path,
// given mode 0600 there and renamed into place: no other user can connect
// in the moment between bind and chmod, and a stale socket file is
// replaced atomically, so a client never finds the path missing.
func listen(path string) (*net.UnixListener, fileID, error) {
	var st unix.Stat_t
	switch err := unix.Lstat(path, &st); {
	case err == nil && st.Mode&unix.S_IFMT != unix.S_IFSOCK:
		return nil, fileID{}, fmt.Errorf("watch: %s exists and is not a socket", path)
	case err != nil && err != unix.ENOENT:
		return nil, fileID{}, fmt.Errorf("watch: %w", &fs.PathError{Op: "lstat", Path: path, Err: err})
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".watch-")
	if err != nil {
		return nil, fileID{}, fmt.Errorf("watch: %w", err)
	}
	defer os.RemoveAll(tmp)
	bound := filepath.Join(tmp, "s")
	addr, done, err := shortPath(bound)
	if err != nil {
		return nil, fileID{}, fmt.Errorf("watch: bind %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	done()
	if err != nil {
		return nil, fileID{}, fmt.Errorf("watch: bind %s: %w", path, err)
	}
	// The listener would remove the path it was bound to, which may no
	// longer name this socket; the server removes its own file.
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(bound, 0o600); err != nil {
		ln.Close()
		return nil, fileID{}, fmt.Errorf("watch: %w", err)
	}
	if err := os.Rename(bound, path); err != nil {
		ln.Close()
		return nil, fileID{}, fmt.Errorf("watch: %w", err)
	}
	id, ok := statID(path)
	if !ok {
		ln.Close()
		return nil, fileID{}, fmt.Errorf("watch: socket %s vanished after bind", path)
	}
	return ln, id, nil
}

// removeIfOurs removes the socket file at path if it is still the one this
// daemon created: a path now naming another daemon's socket is left alone.
func removeIfOurs(path string, id fileID) {
	if cur, ok := statID(path); ok && cur == id {
		os.Remove(path)
	}
}
