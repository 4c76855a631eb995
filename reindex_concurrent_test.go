package contextfs_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// TestReindexCoexistsWithWriters runs 8 writers (each a store of its own,
// as a process would have: its own SQLite connections), each saving
// memories and updating them, beside a loop of reindexes and a lister.
// No writer may fail, an update reported failed must not have been
// applied, and no listing may miss a memory that existed before: a
// reindex used to delete the cache under them ("permission denied", "no
// memory with that ID" for one that exists, lists without some memories).
// CONTEXTFS_REINDEX_ROUNDS sets the writes per writer (default 6).
func TestReindexCoexistsWithWriters(t *testing.T) {
	dir := testgit.Init(t)
	ctx := context.Background()
	// Any notice (a cache rebuilt, a cache that could not be updated) is
	// a reindex disturbing a writer.
	notices := &lockedBuffer{}
	openStore := func() *contextfs.Store {
		s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin(), Notices: notices})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	seed := openStore()
	var before []string
	for i := range 12 {
		r, err := seed.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: fmt.Sprintf("Seed %d", i), Body: fmt.Sprintf("Seed memory %d about the build.", i)})
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, r.Memory.ID)
	}
	rounds := 6
	if n, err := strconv.Atoi(os.Getenv("CONTEXTFS_REINDEX_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const writers = 8
	stores := make([]*contextfs.Store, writers)
	for w := range stores {
		stores[w] = openStore()
	}
	reindexer, lister := openStore(), openStore()

	var (
		wg, bg          sync.WaitGroup
		done            atomic.Bool
		reindexes, list atomic.Int64
		mu              sync.Mutex
		failures        []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	bg.Go(func() {
		for !done.Load() {
			if _, err := reindexer.Reindex(ctx); err != nil {
				fail("reindex: %v", err)
			}
			reindexes.Add(1)
		}
	})
	bg.Go(func() {
		for !done.Load() {
			es, err := lister.List(ctx, contextfs.ListOptions{})
			if err != nil {
				fail("list: %v", err)
				continue
			}
			list.Add(1)
			have := map[string]bool{}
			for _, e := range es {
				have[e.ID] = true
			}
			for _, id := range before {
				if !have[id] {
					fail("list missed %s, which existed before the test", id)
				}
			}
		}
	})
	for w, s := range stores {
		wg.Go(func() {
			for i := range rounds {
				r, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: fmt.Sprintf("Writer %d note %d", w, i), Body: fmt.Sprintf("Writer %d wrote note %d about the cache.", w, i)})
				if err != nil {
					fail("writer %d save %d: %v", w, i, err)
					continue
				}
				for _, id := range []string{r.Memory.ID, before[(w+i)%len(before)]} {
					tag := fmt.Sprintf("w%d-%d", w, i)
					_, err := s.Update(ctx, id, func(m *memory.Memory) error {
						m.Tags = append(m.Tags, tag)
						return nil
					})
					if err == nil {
						continue
					}
					fail("writer %d update %s: %v", w, id, err)
					if m, rerr := s.Resolve(ctx, id); rerr == nil && contains(m.Tags, tag) {
						fail("writer %d update %s was reported failed but applied", w, id)
					}
				}
			}
		})
	}
	wg.Wait()
	done.Store(true)
	bg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if n := notices.String(); n != "" {
		t.Errorf("notices beside the reindexes:\n%s", n)
	}
	t.Logf("%d writers × %d saves and %d updates, beside %d reindexes and %d listings: %d failures",
		writers, rounds, 2*rounds, reindexes.Load(), list.Load(), len(failures))
	if reindexes.Load() < 2 {
		t.Errorf("only %d reindexes ran beside the writers", reindexes.Load())
	}
	es, err := seed.List(ctx, contextfs.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(before) + writers*rounds; len(es) != want {
		t.Errorf("%d memories at the end, want %d", len(es), want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lockedBuffer is a bytes.Buffer for several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
