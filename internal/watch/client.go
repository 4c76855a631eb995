package watch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	// ErrNotRunning means no daemon listens on the socket (the file is
	// missing or nobody accepts on it). The caller scans in full and may
	// start a daemon for next time.
	ErrNotRunning = errors.New("watch: daemon not running")

	// ErrAlreadyRunning is returned by Serve when another daemon serves
	// the socket. Starting daemons blindly is thus harmless.
	ErrAlreadyRunning = errors.New("watch: daemon already running")

	// ErrUnsupported is returned by Serve and Spawn on systems without
	// inotify; there, callers simply always scan.
	ErrUnsupported = errors.New("watch: not supported on this system")

	// ErrRetire, wrapped in the error a ServeOptions.Call returns, stops
	// the daemon once the call is answered: a daemon that finds itself
	// outdated (its program was replaced) makes way for a new one.
	ErrRetire = errors.New("watch: daemon retiring")

	// ErrForeignDaemon means the socket is served by a process of another
	// user: nothing it says is to be trusted.
	ErrForeignDaemon = errors.New("watch: daemon belongs to another user")

	// ErrNotAnswering means a daemon accepts connections but answers
	// nothing, not even a status request: it is stopped (SIGSTOP, a
	// debugger) or stuck. Holder names it and Terminate stops it.
	ErrNotAnswering = errors.New("watch: daemon not answering")
)

// CallError is a daemon's refusal of, or failure at, a call; the caller
// does the work itself.
type CallError struct{ Msg string }

// Error is the daemon's message.
func (e *CallError) Error() string { return "watch: daemon: " + e.Msg }

// Client timeouts. A caller on the hot path of every command falls back to
// a full scan on any error, so a slow or wedged daemon must cost it at most
// a fraction of what the scan would.
const (
	connectTimeout = 50 * time.Millisecond
	queryTimeout   = 200 * time.Millisecond
	// stopTimeout is longer: the daemon answers a stop only once it has
	// released the socket, so that a new daemon can start right after.
	stopTimeout = 2 * time.Second
	// A call may rightly take seconds (the daemon runs a whole command,
	// and its first opens the stores), so its own timeout is long. A call
	// not answered within probeAfter sends a status request alongside;
	// a daemon that does not answer that within probeTimeout is given up
	// on (ErrNotAnswering). A healthy daemon answers a status request in
	// well under a millisecond (a fresh process's first, 0.3–0.6 ms; a
	// few ms on a loaded machine), so the margin is over a hundredfold,
	// and a wedged daemon costs a command about 1.25 s, not the call's
	// timeout.
	probeAfter   = 250 * time.Millisecond
	probeTimeout = time.Second
)

// Changes is the daemon's answer to "what changed since my token?".
type Changes struct {
	// Token is to be stored with the state the caller builds from this
	// answer and sent with the next query.
	Token string
	// Full means the daemon cannot tell (first query, foreign or old
	// token, lost events, too many changes): the caller must rescan
	// everything, after receiving this answer.
	Full bool
	// Paths are files, relative to the work-tree root with '/', whose
	// directory entry or content may have changed: re-stat each; a missing
	// one was deleted. Unordered; may include paths that did not really
	// change, or that are not memory files.
	Paths []string
	// Prefixes are folders, relative to the work-tree root, that were
	// removed or moved away (or whose watch was lost): forget everything
	// cached under prefix+"/" and list the folder again if it exists.
	Prefixes []string
}

// DaemonStatus describes a running daemon, for `watch status`.
type DaemonStatus struct {
	Instance    string    // random per daemon start; the first part of tokens
	PID         int       // process id of the daemon
	Root        string    // absolute work-tree root
	Dir         string    // watched folder, relative to Root
	Started     time.Time // when the daemon started
	LastRequest time.Time // last client request; the idle timeout counts from it
	Seq         uint64    // number of the newest recorded change
	Dirs        int       // folders under inotify watch
	Changes     int       // distinct changed paths remembered
	Degraded    string    // why every answer is "full", if it is; "" when healthy
}

// Query asks the daemon on socket which paths changed since token (""
// for none yet). It gives up within about 200 ms; on any error the caller
// scans in full, and errors.Is(err, ErrNotRunning) says that no daemon is
// there to be asked. A token that cannot be sent (it contains spaces, say)
// is replaced by "", so that a damaged stored token heals with one full
// answer instead of failing forever.
func Query(ctx context.Context, socket, token string) (Changes, error) {
	if !validToken(token) {
		token = ""
	}
	req := opQuery
	if token != "" {
		req += " " + token
	}
	lines, err := roundTrip(ctx, socket, req, queryTimeout)
	if err != nil {
		return Changes{}, err
	}
	c, err := parseChanges(lines)
	if err != nil {
		return Changes{}, fmt.Errorf("watch: query %s: %w", socket, err)
	}
	return c, nil
}

// Status asks the daemon on socket to describe itself.
func Status(ctx context.Context, socket string) (DaemonStatus, error) {
	lines, err := roundTrip(ctx, socket, opStatus, queryTimeout)
	if err != nil {
		return DaemonStatus{}, err
	}
	s, err := parseStatus(lines)
	if err != nil {
		return DaemonStatus{}, fmt.Errorf("watch: status %s: %w", socket, err)
	}
	return s, nil
}

// CallDaemon sends payload to the daemon's ServeOptions.Call under name and
// returns its answer, all within timeout (or ctx's deadline, if sooner).
// A daemon without a Call, or one that refused, gives a *CallError; no
// daemon gives ErrNotRunning; a daemon that answers neither the call nor,
// after probeAfter, a status request within probeTimeout gives
// ErrNotAnswering, long before timeout.
func CallDaemon(ctx context.Context, socket, name string, payload []byte, timeout time.Duration) ([]byte, error) {
	if !validToken(name) {
		return nil, fmt.Errorf("watch: call: bad name %q", name)
	}
	if len(payload) > maxCallPayload {
		return nil, fmt.Errorf("watch: call %s: request of %d bytes is over the %d limit", name, len(payload), maxCallPayload)
	}
	req := fmt.Appendf(nil, "%s %s %s %d\n", protoVersion, opCall, name, len(payload))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	probe := time.AfterFunc(probeAfter, func() {
		if err := probeLive(ctx, socket); err != nil {
			cancel(err)
		}
	})
	defer probe.Stop()
	var data []byte
	err := exchange(ctx, socket, timeout, append(req, payload...), func(r *bufio.Reader) (err error) {
		data, err = readData(r)
		return err
	})
	var ce *CallError
	if err != nil && !errors.As(err, &ce) && !errors.Is(err, ErrNotRunning) {
		return nil, fmt.Errorf("watch: call %s %s: %w", name, socket, err)
	}
	return data, err
}

// probeLive asks the daemon for its status, on a connection of its own,
// while a call waits for its answer. It returns an error wrapping
// ErrNotAnswering only when the daemon accepted the request and let
// probeTimeout pass without an answer; any other outcome (an answer, no
// daemon any more, the call ended) leaves the call to its own timeout.
func probeLive(ctx context.Context, socket string) error {
	_, err := roundTrip(ctx, socket, opStatus, probeTimeout)
	if err == nil || ctx.Err() != nil || errors.Is(err, ErrNotRunning) {
		return nil
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (no answer to a status request within %v)", ErrNotAnswering, probeTimeout)
	}
	return nil
}

// Stop asks the daemon on socket to exit. It returns once the daemon has
// removed its socket and released its lock, so a new daemon can be
// started at once.
func Stop(ctx context.Context, socket string) error {
	_, err := roundTrip(ctx, socket, opStop, stopTimeout)
	return err
}

// roundTrip sends one request and reads its answer, all within timeout
// (or ctx's deadline, if sooner).
func roundTrip(ctx context.Context, socket, req string, timeout time.Duration) ([]string, error) {
	var lines []string
	err := exchange(ctx, socket, timeout, []byte(protoVersion+" "+req+"\n"), func(r *bufio.Reader) (err error) {
		lines, err = readAnswer(r)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotRunning) {
		op, _, _ := strings.Cut(req, " ")
		return nil, fmt.Errorf("watch: %s %s: %w", op, socket, err)
	}
	return lines, err
}

// exchange connects to socket, writes req and lets read take the answer,
// all within timeout (or ctx's deadline, if sooner). Errors after the
// connection are returned bare, for the caller to name its operation.
func exchange(ctx context.Context, socket string, timeout time.Duration, req []byte, read func(*bufio.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx, socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	// Cancelling ctx interrupts a blocked read or write at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := conn.Write(req); err != nil {
		return ctxErr(ctx, err)
	}
	var ce *CallError
	if err := read(bufio.NewReader(conn)); err != nil && !errors.As(err, &ce) {
		return ctxErr(ctx, err)
	} else if err != nil {
		return err
	}
	return nil
}

// ctxErr names the context's reason for a deadline error it caused, so
// that a cancelled caller sees context.Canceled, and a call given up on
// ErrNotAnswering.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: %w", context.Cause(ctx), err)
	}
	return err
}
