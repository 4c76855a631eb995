package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// terminateGrace is how long Terminate waits for the daemon to exit after
// SIGTERM, and again after SIGKILL.
const terminateGrace = 2 * time.Second

// Holder returns the pid of the daemon serving socket, or 0 if none: the
// pid its lock file records, once it has made sure that this process
// holds that very lock file open. A pid left by a daemon that exited (and
// perhaps taken by another process since) is thus not returned, nor that
// of another user's process, whose descriptors cannot be read. It needs
// no answer from the daemon: it names one that accepts connections but
// does not answer (ErrNotAnswering).
func Holder(socket string) (int, error) {
	lock := socket + ".lock"
	b, err := os.ReadFile(lock)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("watch: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(first)
	if err != nil || pid <= 0 {
		return 0, nil // a daemon of an older version records none
	}
	id, err := dirID(lock)
	if err != nil {
		return 0, nil
	}
	if !holdsOpen(pid, id) {
		return 0, nil
	}
	return pid, nil
}

// holdsOpen reports whether process pid has the file id open.
func holdsOpen(pid int, id fileID) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false // gone, or another user's
	}
	for _, e := range ents {
		if got, err := dirID(dir + "/" + e.Name()); err == nil && got == id {
			return true
		}
	}
	return false
}

// Terminate stops the daemon serving socket by signals, for one that does
// not answer a stop request: SIGTERM (with SIGCONT, should it be stopped),
// then SIGKILL if it has not exited within terminateGrace. It signals
// only the process Holder names, that is the one holding the socket's
// lock, and returns its pid; ErrNotRunning if there is none. A daemon
// killed leaves its socket file behind, which the next one replaces.
func Terminate(socket string) (int, error) {
	pid, err := Holder(socket)
	if err != nil {
		return 0, err
	}
	if pid == 0 {
		return 0, ErrNotRunning
	}
	if pid == os.Getpid() {
		return 0, errors.New("watch: the daemon runs in this process")
	}
	// A pidfd names this process for good: should it exit and its pid
	// be reused between the check and a signal, the signal fails rather
	// than reach another process. It is checked again once opened.
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return pid, nil // exited since
		}
		return terminateByPid(socket, pid)
	}
	defer unix.Close(pfd)
	if again, _ := Holder(socket); again != pid {
		return pid, nil // it let go of the lock since
	}
	for _, sig := range []unix.Signal{unix.SIGTERM, unix.SIGKILL} {
		if err := unix.PidfdSendSignal(pfd, sig, nil, 0); err != nil {
			if errors.Is(err, unix.ESRCH) {
				return pid, nil
			}
			return pid, fmt.Errorf("watch: signal daemon %d: %w", pid, err)
		}
		if sig == unix.SIGTERM {
			unix.PidfdSendSignal(pfd, unix.SIGCONT, nil, 0)
		}
		// The pidfd becomes readable when the process exits.
		fds := []unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}}
		deadline := time.Now().Add(terminateGrace)
		for {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			n, err := unix.Poll(fds, int(left.Milliseconds())+1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return pid, fmt.Errorf("watch: wait for daemon %d: %w", pid, err)
			}
			if n > 0 {
				return pid, nil
			}
		}
	}
	return pid, fmt.Errorf("watch: daemon %d did not exit", pid)
}

// terminateByPid is Terminate on a kernel without pidfds (before 5.3):
// the process is checked again before each signal, and its exit seen by
// its letting go of the lock file.
func terminateByPid(socket string, pid int) (int, error) {
	for _, sig := range []unix.Signal{unix.SIGTERM, unix.SIGKILL} {
		if again, _ := Holder(socket); again != pid {
			return pid, nil
		}
		if err := unix.Kill(pid, sig); err != nil {
			if errors.Is(err, unix.ESRCH) {
				return pid, nil
			}
			return pid, fmt.Errorf("watch: signal daemon %d: %w", pid, err)
		}
		if sig == unix.SIGTERM {
			unix.Kill(pid, unix.SIGCONT)
		}
		for deadline := time.Now().Add(terminateGrace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if again, _ := Holder(socket); again != pid {
				return pid, nil
			}
		}
	}
	return pid, fmt.Errorf("watch: daemon %d did not exit", pid)
}
