// Package watch runs a daemon that tells git-contextfs which files under
// the memory folder changed, so that a command need not stat every memory
// file to find out.
//
// Without it, every command lists each folder under .contextfs/ and stats
// each memory file: about 170 ms at 100,000 files on a 2-core machine.
// With it, a command asks a long-lived daemon "what changed since token
// T?" over a Unix socket, in about 0.1–0.6 ms, and re-stats only those
// paths. It is git's fsmonitor idea, built on Linux's inotify.
//
// # Use
//
// A command calls Query with the token stored in its cache ("" if none):
//
//   - on an error, it scans in full; if errors.Is(err, ErrNotRunning) it
//     also starts a daemon with Spawn (`git-contextfs watch run ...`,
//     which calls Serve) for the next command;
//   - if Changes.Full, it scans in full;
//   - otherwise it re-stats each of Changes.Paths (a missing one was
//     deleted), and for each of Changes.Prefixes forgets what it has under
//     that folder and lists the folder again if it exists.
//
// Unless Query failed, the command then stores Changes.Token in the same
// transaction as the state it built from the scan or the re-stats. Both
// the scan and the re-stats must happen after Query returned: then every
// change after the answer has a higher sequence number than the token and
// is reported next time, and changes seen twice are harmless. Concurrent
// commands are safe under this rule, whichever stores last: an older
// token only makes the next answer longer.
//
// # Why the answers are complete
//
// Linux queues an inotify event inside the system call that makes the
// change, before that call returns: write(2) and truncate(2) queue
// IN_MODIFY once the data is in place, rename(2), unlink(2), mkdir(2),
// rmdir(2) and open(2) with O_CREAT queue theirs once the folder has
// changed, and close(2) queues IN_CLOSE_WRITE before returning. So a
// change made before a client sends its query, by any process (the
// client, an editor, git), is in the daemon's inotify queue by the time
// the daemon reads the request.
//
// Before answering, the daemon reads the inotify descriptor until the
// kernel says it is empty (EAGAIN) and applies every event, under the same
// lock as the answer. Each applied change gets the next sequence number;
// the answer lists the paths whose last change is numbered above the
// client's token, and its new token is the number of the last applied
// change. Hence every change made before the query is in the answer or
// in the client's previous answers, and every change applied after it
// is numbered above the new token. A goroutine also applies events as
// they come, so that the kernel's queue rarely overflows; it takes the
// same lock.
//
// A folder that appears (created, or moved into the tree) is announced by
// its parent's event; files may be created in it before the daemon gets
// to watch it. So the daemon first adds the watch, then lists the folder
// and reports every file in it, and does the same for each folder inside:
// a file created before the watch is in the listing, one created after
// raises an event. A folder that disappears (deleted or moved away) is
// reported as a prefix, which stands for everything that was under it: the
// daemon does not keep a list of files, which would cost memory in
// proportion to the tree rather than to its changes.
//
// The order of events is what matters when folders move around: a walk
// may watch a folder at its new place before the event of its move is
// read. inotify gives a folder one watch descriptor whatever its path, so
// the daemon re-maps it; it does not act on IN_MOVE_SELF (the parent's
// IN_MOVED_FROM, queued earlier, says the same), and ignores the events
// still queued for a watch it has removed, whose folder it reported as a
// prefix and, if the folder is still in the tree, watched and listed
// again.
//
// When the daemon cannot vouch for its answers, it says "full":
//   - for a token of another daemon instance, an empty or damaged token;
//   - for tokens older than a lost event: an inotify queue overflow
//     (fs.inotify.max_queued_events), an unmount, an event it cannot
//     interpret;
//   - for more than ServeOptions.MaxPaths changed paths since the token;
//   - always, once a folder could not be watched (ENOSPC when
//     fs.inotify.max_user_watches is exhausted, ENAMETOOLONG beyond
//     PATH_MAX): changes there would go unseen. The daemon then gives its
//     watches back, since the budget is shared with the user's other
//     tools, and stays up answering "full" until it idles out or is
//     stopped, so that commands do not start a new failing daemon each.
//
// Paths are relative to the work-tree root, with forward slashes (e.g.
// ".contextfs/memories/ab/x.md"). Hidden names (starting with "."), which
// the scan skips, are neither reported nor watched; symbolic links below
// the top folder are not followed, as the scan does not follow them.
// Answers may include paths that are not memory files, or did not really
// change; callers filter.
//
// What inotify does not see, and the daemon therefore misses (as git's
// fsmonitor does): writes through a shared writable mmap, changes through
// another hard link to a file from outside the tree, and changes made by
// other machines on network file systems. A command that must be sure
// can still scan in full.
//
// # Lifetime
//
// A daemon serves one socket. It holds an exclusive flock on
// Socket+".lock" for its whole life, so that a second daemon fails with
// ErrAlreadyRunning and a socket file left by a crashed daemon is known to
// be stale and replaced. It writes its pid in that file: Holder names the
// daemon without asking it (believing the pid only if that process holds
// the lock file open), and Terminate stops one that does not answer
// (ErrNotAnswering) with SIGTERM, then SIGKILL. It binds its socket in a private folder, sets
// mode 0600 and renames it into place, so that no other user can connect
// and no client finds the path missing while it is replaced. Socket paths
// longer than the 107 bytes sun_path holds are bound and connected
// through /proc/self/fd/<folder descriptor>/<name>.
//
// The daemon exits, removing its socket if the path still names it, when
// Serve's context is cancelled, after ServeOptions.Idle without a request,
// on a stop request, when the work-tree root is removed, moved or
// unmounted, and when its socket is removed (the git dir holding it went:
// no client can reach it). inotify reports a move of the root at once,
// but its deletion only once nothing holds the folder, and the socket,
// its lock and the owner's open files often live inside the tree (a plain
// repository's .git): so the daemon also checks every second (aliveEvery)
// that the root and the socket still name what they named at start, and
// checks again before it runs ServeOptions.OnChange or Call, which may
// write there and would create the deleted tree again. The owner should
// not keep its current folder in the tree either. A stop request is
// answered after the socket is removed and the lock released, so a new
// daemon can be started as soon as Stop returns.
//
// # Protocol
//
// A client connects, sends one request line, reads one answer and the
// connection is closed. Lines end with "\n". Requests:
//
//	v1 query [<token>]
//	v1 status
//	v1 stop
//	v1 call <name> <n>       (followed by n bytes of payload)
//
// A call hands its payload to ServeOptions.Call, which the program using
// the daemon supplies (git-contextfs runs read-only commands there, over
// stores it keeps open: "warm answers"). Its answer is "v1 ok", a line
// "data <n>", n bytes, a newline and "end"; a refusal is an error answer.
// A call may take seconds, so CallDaemon waits long for it; but when none
// has come after 250 ms it sends a status request on a second connection,
// and a daemon that does not answer that within 1 s (a stopped or stuck
// one, which still accepts connections) is given up on: ErrNotAnswering.
// Clients check the daemon's peer credentials before trusting anything it
// says: a socket of another user is refused (ErrForeignDaemon).
//
// Every answer begins with "v1 ok" or "v1 err <message>" and ends with a
// line "end", so a truncated answer is detected. The answer to a query:
//
//	v1 ok
//	token <instance>:<seq>
//	full                     (when the client must rescan everything)
//	file "<path>"            (zero or more)
//	prefix "<path>"          (zero or more)
//	end
//
// Paths are quoted with strconv.Quote, which round-trips any byte string,
// so names with newlines or invalid UTF-8 survive. The answer to status
// has lines "<key> <value>" (instance, pid, root, dir, started,
// lastrequest, seq, dirs, changes, degraded); a client ignores keys it
// does not know. A request of another version, or malformed, gets an
// error answer; a query answer with an unknown line is an error for the
// client, since it could be a kind of change it does not know to apply.
// A new incompatible protocol takes a new version word.
//
// # Performance
//
// BenchmarkQuery on the 2-core AMD EPYC VM this was written on: a query
// round trip takes 50–110 µs with nothing to report and 100–210 µs with
// 100 changed paths, depending on the machine's load. From a freshly started process, the first query takes
// 0.25–0.6 ms. A daemon watching 100,000 files in 258 folders starts in
// about 0.2 s and uses about 10 MB of memory.
//
// Serve and Spawn need Linux; elsewhere they return ErrUnsupported, and
// the client functions return ErrNotRunning, so callers compile and
// behave everywhere.
package watch
