package watch

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// serverConnTimeout bounds how long the server waits for a client's
// request: a client sends it at once, and one that does not must not keep
// a goroutine forever.
const serverConnTimeout = 2 * time.Second

// callTimeout bounds a call's work and answer; the client gives up sooner.
const callTimeout = 60 * time.Second

// aliveEvery is how often the daemon checks that its work tree and its
// socket are still there. inotify says at once when the root is moved,
// and when it is deleted unless something still holds it: but the
// daemon's own socket and lock live in the git dir, inside a plain
// repository's tree, and keep its directory entry alive, so the kernel
// says nothing of `rm -rf repo` until the daemon lets go.
const aliveEvery = time.Second

// Serve watches o.Root/o.Dir and answers clients on o.Socket until ctx is
// cancelled, no client asked anything for o.Idle, a client asked it to
// stop, or the work tree disappeared; it then removes its socket and
// returns nil. It returns ErrAlreadyRunning if another daemon serves the
// socket, and an error if it cannot start.
func Serve(ctx context.Context, o ServeOptions) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(o.Socket), 0o700); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	lock, err := lockSocket(o.Socket)
	if err != nil {
		return err
	}
	s, err := newServer(o)
	if err != nil {
		lock.Close()
		return err
	}
	callCtx, cancelCalls := context.WithCancel(ctx)
	defer cancelCalls()
	s.ctx = callCtx
	// Watches are in place before the socket exists: the first answer a
	// client gets is already backed by them.
	ln, id, err := listen(o.Socket)
	if err != nil {
		s.closeWatcher()
		lock.Close()
		return err
	}
	s.sockID = id
	o.Logf("watch: serving %s on %s (instance %s, %d folders)", filepath.Join(o.Root, o.Dir), o.Socket, s.instance, len(s.w.dirs))

	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		s.pump()
	}()
	var handlers sync.WaitGroup
	handlers.Add(1)
	go func() {
		defer handlers.Done()
		s.accept(ln, &handlers)
	}()

	reason, stopConn := s.wait(ctx)
	o.Logf("watch: stopping: %s", reason)

	ln.Close()
	removeIfOurs(o.Socket, id)
	cancelCalls()
	s.closeConns(stopConn)
	handlers.Wait()
	s.closeWatcher()
	<-pumped
	lock.Close() // after the socket is gone: a new daemon may start
	if stopConn != nil {
		// Answered last: when Stop returns, the socket and lock are free.
		stopConn.SetDeadline(time.Now().Add(serverConnTimeout))
		writeOK(bufio.NewWriter(stopConn))
		stopConn.Close()
	}
	return nil
}

func (o ServeOptions) withDefaults() (ServeOptions, error) {
	if !filepath.IsAbs(o.Root) {
		return o, fmt.Errorf("watch: root %q is not absolute", o.Root)
	}
	o.Root = filepath.Clean(o.Root)
	if o.Dir == "" || o.Dir == "." || o.Dir == ".." || filepath.Base(o.Dir) != o.Dir {
		return o, fmt.Errorf("watch: dir %q is not a single folder name", o.Dir)
	}
	if o.Socket == "" {
		return o, errors.New("watch: no socket path")
	}
	sock, err := filepath.Abs(o.Socket)
	if err != nil {
		return o, fmt.Errorf("watch: %w", err)
	}
	o.Socket = sock
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.MaxPaths <= 0 {
		o.MaxPaths = DefaultMaxPaths
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	return o, nil
}

// server is the state of one daemon. mu serializes the watcher (reading
// and applying events) with the answers, so that an answer reflects every
// event read before it.
type server struct {
	o        ServeOptions
	instance string
	started  time.Time
	rootID   fileID // the work-tree root when the daemon started
	sockID   fileID // its socket; set before any client or event is served

	mu       sync.Mutex
	w        *watcher
	changes  *changeLog
	lastReq  time.Time
	degraded string // set once answers can only be "full"
	closed   bool   // the watcher is closed or closing
	settle   *time.Timer
	onChange sync.Mutex // held while OnChange runs

	connMu sync.Mutex
	conns  map[net.Conn]struct{} // being served; nil once stopping

	ctx  context.Context // ends with Serve: calls stop with it
	exit chan string     // why the daemon must stop (work tree gone)
	stop chan net.Conn   // a client asked to stop; answered on exit
}

func newServer(o ServeOptions) (*server, error) {
	var b [8]byte
	rand.Read(b[:])
	now := time.Now()
	s := &server{
		o:        o,
		instance: hex.EncodeToString(b[:]),
		started:  now,
		lastReq:  now,
		changes:  newChangeLog(o.MaxPaths),
		conns:    make(map[net.Conn]struct{}),
		exit:     make(chan string, 1),
		stop:     make(chan net.Conn, 1),
	}
	id, err := dirID(o.Root)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	s.rootID = id
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := newWatcher(o.Root, o.Dir, s)
	if err != nil {
		return nil, err
	}
	s.w = w
	s.checkBroken()
	return s, nil
}

// The sink methods, called by the watcher with s.mu held.

func (s *server) changed(rel string) { s.changes.record(rel, false); s.poke() }
func (s *server) removed(rel string) { s.changes.record(rel, true); s.poke() }

func (s *server) lost(reason string) {
	s.o.Logf("watch: full rescan needed: %s", reason)
	s.changes.invalidate()
	s.poke()
}

// poke (re)starts the wait for a burst of changes to settle. s.mu is
// held.
func (s *server) poke() {
	if s.o.OnChange == nil || s.closed {
		return
	}
	if s.settle != nil {
		s.settle.Reset(s.o.Settle)
		return
	}
	s.settle = time.AfterFunc(s.o.Settle, func() {
		// A burst that ends while the last call still runs gets a call
		// of its own after it: TryLock would drop it.
		s.onChange.Lock()
		defer s.onChange.Unlock()
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
		// The burst may be the work tree being deleted: the owner's
		// code would then write into it, and create it again.
		if reason := s.gone(); reason != "" {
			s.rootGone(reason)
			return
		}
		s.o.OnChange()
	})
}

func (s *server) rootGone(reason string) {
	select {
	case s.exit <- reason:
	default:
	}
}

// gone says why the daemon has nothing left to serve, or "": the work
// tree's root no longer names the folder it watches (deleted, moved,
// replaced), or the socket no longer names its socket (the git dir was
// deleted or moved), so no client can reach it.
func (s *server) gone() string {
	if id, err := dirID(s.o.Root); err == nil && id != s.rootID || isGone(err) {
		return fmt.Sprintf("work tree %s removed or replaced", s.o.Root)
	}
	if id, err := lstatID(s.o.Socket); err == nil && id != s.sockID || isGone(err) {
		return fmt.Sprintf("socket %s removed or replaced", s.o.Socket)
	}
	return ""
}

// checkBroken turns a watcher that failed to watch a folder into a
// degraded daemon: changes there would go unseen, so every answer is
// "full" from now on, and the watches are given back to the user's
// budget (fs.inotify.max_user_watches) that other tools share. It stays
// up, so that callers do not start a new daemon, failing the same way,
// on every command; `watch stop` after raising the limit restarts it.
func (s *server) checkBroken() {
	if s.w.broken == "" || s.degraded != "" {
		return
	}
	s.degraded = s.w.broken
	s.o.Logf("watch: degraded, answering full rescan only: %s", s.degraded)
	s.w.unwatchAll()
	s.changes.invalidate()
}

// pump applies events as they come, so that the kernel queue rarely
// overflows and the work tree going away is noticed without a client.
func (s *server) pump() {
	rc, err := s.w.file.SyscallConn()
	if err != nil {
		s.rootGone(fmt.Sprintf("inotify: %v", err))
		return
	}
	// Read calls the function, and while it returns false waits in the
	// runtime poller for the descriptor to become readable and calls it
	// again; it returns when the watcher is closed.
	rc.Read(func(uintptr) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return true
		}
		s.drainLocked()
		return false
	})
}

// drainLocked applies every queued event. s.mu is held.
func (s *server) drainLocked() {
	if err := s.w.drain(s); err != nil {
		s.w.broken = err.Error()
	}
	s.checkBroken()
}

// closeWatcher stops the pump and closes the inotify descriptor. The
// closed flag, set under the lock, keeps everyone off the descriptor
// before it is closed.
func (s *server) closeWatcher() {
	s.mu.Lock()
	s.closed = true
	if s.settle != nil {
		s.settle.Stop()
	}
	s.mu.Unlock()
	s.w.close()
	// An OnChange under way finishes before the daemon's owner closes
	// what it uses.
	s.onChange.Lock()
	//lint:ignore SA2001 the lock is a barrier: taking it waits for an OnChange under way.
	s.onChange.Unlock()
}

// wait blocks until the daemon must stop and says why; for a stop
// request it also returns the connection to answer on.
func (s *server) wait(ctx context.Context) (string, net.Conn) {
	idle := time.NewTimer(s.o.Idle)
	defer idle.Stop()
	alive := time.NewTicker(aliveEvery)
	defer alive.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Sprintf("context: %v", context.Cause(ctx)), nil
		case reason := <-s.exit:
			return reason, nil
		case c := <-s.stop:
			return "stop requested", c
		case <-alive.C:
			if reason := s.gone(); reason != "" {
				return reason, nil
			}
		case <-idle.C:
			s.mu.Lock()
			left := s.o.Idle - time.Since(s.lastReq)
			s.mu.Unlock()
			if left <= 0 {
				return fmt.Sprintf("idle for %v", s.o.Idle), nil
			}
			idle.Reset(left)
		}
	}
}

// accept serves connections until the listener is closed.
func (s *server) accept(ln net.Listener, handlers *sync.WaitGroup) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.o.Logf("watch: accept: %v", err)
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				// EMFILE and the like: back off rather than spin.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		if !s.trackConn(c) {
			c.Close()
			return
		}
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			if s.handle(c) {
				s.untrackConn(c)
				c.Close()
			}
		}()
	}
}

func (s *server) trackConn(c net.Conn) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conns == nil {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *server) untrackConn(c net.Conn) {
	s.connMu.Lock()
	delete(s.conns, c)
	s.connMu.Unlock()
}

// closeConns interrupts every connection still being served, except
// keep, and refuses new ones.
func (s *server) closeConns(keep net.Conn) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	for c := range s.conns {
		if c != keep {
			c.Close()
		}
	}
	s.conns = nil
}

// handle reads one request from c and answers it. It returns false when c
// was handed over to be answered on exit.
func (s *server) handle(c net.Conn) bool {
	c.SetDeadline(time.Now().Add(serverConnTimeout))
	bw := bufio.NewWriter(c)
	br := bufio.NewReaderSize(c, 512)
	line, err := readLine(br, maxRequestLine)
	if err != nil {
		if errors.Is(err, errLineTooLong) {
			writeErr(bw, "request too long")
		}
		return true
	}
	req, err := parseRequest(line)
	if err != nil {
		writeErr(bw, err.Error())
		return true
	}
	switch req.op {
	case opQuery:
		ch, err := s.query(req.token)
		if err != nil {
			writeErr(bw, err.Error())
			return true
		}
		writeChanges(bw, ch)
	case opStatus:
		writeStatus(bw, s.status())
	case opCall:
		s.call(c, br, bw, req)
	case opStop:
		s.touch()
		select {
		case s.stop <- c:
			return false
		default:
			writeErr(bw, "already stopping")
		}
	}
	return true
}

// call reads a call's payload, runs ServeOptions.Call and answers.
func (s *server) call(c net.Conn, br *bufio.Reader, bw *bufio.Writer, req request) {
	payload := make([]byte, req.size)
	if _, err := io.ReadFull(br, payload); err != nil {
		return // the client went away mid-request
	}
	s.touch()
	if s.o.Call == nil {
		writeErr(bw, "call: this daemon answers no calls")
		return
	}
	if reason := s.gone(); reason != "" {
		writeErr(bw, reason)
		s.rootGone(reason)
		return
	}
	c.SetDeadline(time.Now().Add(callTimeout))
	ctx, cancel := context.WithTimeout(s.ctx, callTimeout)
	defer cancel()
	out, err := s.o.Call(ctx, req.name, payload)
	if err != nil {
		writeErr(bw, err.Error())
		if errors.Is(err, ErrRetire) {
			s.rootGone("retiring: " + err.Error())
		}
		return
	}
	writeData(bw, out)
	s.touch() // a long call is activity too
}

func (s *server) touch() {
	s.mu.Lock()
	s.lastReq = time.Now()
	s.mu.Unlock()
}

// query answers "what changed since token?". It first applies every event
// already queued: see the package documentation for why that makes the
// answer complete.
func (s *server) query(token string) (Changes, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Changes{}, errors.New("daemon is stopping")
	}
	s.lastReq = time.Now()
	s.drainLocked()
	c := Changes{Token: formatToken(s.instance, s.changes.issue())}
	inst, seq, ok := parseToken(token)
	if !ok || inst != s.instance || s.degraded != "" {
		c.Full = true
		return c, nil
	}
	c.Full, c.Paths, c.Prefixes = s.changes.since(seq)
	return c, nil
}

func (s *server) status() DaemonStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastReq = time.Now()
	if !s.closed {
		s.drainLocked() // so that the counts are current
	}
	return DaemonStatus{
		Instance:    s.instance,
		PID:         os.Getpid(),
		Root:        s.o.Root,
		Dir:         s.o.Dir,
		Started:     s.started,
		LastRequest: s.lastReq,
		Seq:         s.changes.seq,
		Dirs:        len(s.w.dirs),
		Changes:     s.changes.pending(),
		Degraded:    s.degraded,
	}
}
