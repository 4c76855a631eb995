package contextfs

import "context"

// writeLockKey marks a context whose caller holds a store's write lock.
type writeLockKey struct{ root string }

// LockWrites takes the store's write lock (see gitstore.Repo.LockWrites)
// until unlock is called. Work that reads memories, decides and then
// writes holds it across the decision, so that another contextfs process
// cannot decide on the same old state meanwhile. The returned context
// records the lock: Store methods called with it (Update, Save) do not
// wait for the lock their caller already holds.
func (s *Store) LockWrites(ctx context.Context) (_ context.Context, unlock func(), err error) {
	key := writeLockKey{s.Repo.Root}
	if ctx.Value(key) != nil {
		return ctx, func() {}, nil
	}
	release, err := s.Repo.LockWrites(ctx)
	if err != nil {
		return ctx, nil, err
	}
	return context.WithValue(ctx, key, true), release, nil
}
