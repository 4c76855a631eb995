package watch

import (
	"context"
	"time"
)

// Defaults of ServeOptions.
const (
	// DefaultIdle is how long a daemon waits for a request before it
	// exits: long enough to span a working session's pauses, short enough
	// that forgotten repositories do not keep daemons and watches.
	DefaultIdle = 30 * time.Minute
	// DefaultMaxPaths is the number of changed paths above which an
	// answer is "full rescan": beyond it, re-statting each path costs
	// about as much as the scan.
	DefaultMaxPaths = 10000
)

// ServeOptions configures a daemon.
type ServeOptions struct {
	// Root is the absolute path of the work tree. The daemon exits when
	// it is removed or moved, since every path it knows is relative to it.
	Root string
	// Dir is the watched folder, a single name inside Root (normally
	// ".contextfs"); it may be absent, and may come and go.
	Dir string
	// Socket is where clients reach the daemon, normally
	// <git-dir>/contextfs/watch.sock. Its folder is created if missing.
	// A lock file Socket+".lock" is kept beside it. The daemon exits when
	// the socket is removed: no client could reach it any more.
	Socket string
	// Idle is how long the daemon runs without a request; 0 means
	// DefaultIdle.
	Idle time.Duration
	// MaxPaths is the number of changed paths above which an answer is
	// "full rescan"; 0 means DefaultMaxPaths. The daemon remembers at most
	// about twice as many.
	MaxPaths int
	// Call, if set, answers the "call" requests of CallDaemon: name says
	// which operation, payload is the caller's request. It runs on the
	// connection's goroutine, so calls may run at the same time as each
	// other and as queries; ctx ends with the daemon. Returning an error
	// wrapping ErrRetire answers it and then stops the daemon. Without it,
	// calls get an error answer.
	Call func(ctx context.Context, name string, payload []byte) ([]byte, error)
	// Logf, if set, receives a line for each notable event: start, stop
	// and why, lost events, degraded mode.
	Logf func(format string, args ...any)
	// OnChange, if set, is called once a burst of changes has settled:
	// Settle after the last event of the burst, on a goroutine of its own,
	// never twice at once. It lets the daemon's owner bring what it keeps
	// up to date before the next command asks for it.
	OnChange func()
	// Settle is the quiet that ends a burst for OnChange; 0 means
	// DefaultSettle.
	Settle time.Duration
}

// DefaultSettle is ServeOptions.Settle's default: longer than the gap
// between the file a command writes and its own update of the cache, so
// that OnChange comes after it rather than racing it.
const DefaultSettle = 25 * time.Millisecond
