package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// WriteLockFile is the lock file, in the git directory's contextfs folder,
// that LockWrites holds.
const WriteLockFile = "write.lock"

// LockWrites takes the repository's write lock, waiting for it until ctx
// ends, and returns the function that releases it. Commands that read a
// memory, decide, and then write (an update's check that the file has not
// changed, a save's duplicate check, an evolve's check that the memory is
// current) hold it from the decision to the write, so that two processes
// cannot both decide on the same old state and lose one's change. It is
// an advisory lock between contextfs processes: people editing files by
// hand are caught by the re-read before each rewrite instead.
func (r *Repo) LockWrites(ctx context.Context) (unlock func(), err error) {
	return r.LockFile(ctx, WriteLockFile)
}

// LockFile takes the flock on the file base in the git directory's
// contextfs folder, creating it if needed, waiting for it until ctx ends,
// and returns the function that releases it. The file stays; only the
// flock, which the kernel drops when its holder dies, marks it held, so a
// killed holder never leaves a lock behind. LockWrites and the memory
// commit (package commitflow) each hold their own.
func (r *Repo) LockFile(ctx context.Context, base string) (unlock func(), err error) {
	dir := filepath.Join(r.GitDir, "contextfs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", base, err)
	}
	name := filepath.Join(dir, base)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if ok {
			return func() { unlockFile(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, context.Cause(ctx))
		case <-time.After(wait):
		}
	}
}
