package dedup_test

import (
	"context"
	"sync"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// stores opens n stores on one repository, as n processes would: their
// own SQLite connections and their own open lock file.
func stores(t *testing.T, dir string, n int) []*contextfs.Store {
	t.Helper()
	var out []*contextfs.Store
	for range n {
		s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		out = append(out, s)
	}
	return out
}

func TestConcurrentSavesOfOneTextWriteOneFile(t *testing.T) {
	for _, policy := range []dedup.Policy{dedup.Skip, dedup.Allow, dedup.Update} {
		t.Run(string(policy), func(t *testing.T) {
			dir := testgit.Init(t)
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for _, s := range stores(t, dir, 4) {
				wg.Go(func() {
					if _, err := dedup.Save(context.Background(), s, pool, policy, dedup.DefaultThresholds); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			es, err := stores(t, dir, 1)[0].List(context.Background(), contextfs.ListOptions{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != 1 {
				t.Fatalf("%d memory files for one text saved four times at once, want 1", len(es))
			}
		})
	}
}

func TestSavingTheSameTextAgainWithSupersedesSupersedes(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	old, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Pool with pgbouncer", Body: "We pool connections with pgbouncer."})
	if err != nil {
		t.Fatal(err)
	}
	first, err := dedup.Save(ctx, s, pool, dedup.Skip, dedup.DefaultThresholds)
	if err != nil || first.Action != dedup.Saved {
		t.Fatalf("first save: %+v, %v", first, err)
	}
	// What may_supersede advises: the same save, confirming supersedes.
	again := pool
	again.Supersedes = []string{old.Memory.ID}
	out, err := dedup.Save(ctx, s, again, dedup.Skip, dedup.DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != dedup.Updated || out.Memory.ID != first.Memory.ID {
		t.Fatalf("second save: %s %s; want %s updated", out.Action, out.Memory.ID, first.Memory.ID)
	}
	m, err := s.Resolve(ctx, first.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Supersedes) != 1 || m.Supersedes[0] != old.Memory.ID {
		t.Errorf("supersedes = %v, want [%s]", m.Supersedes, old.Memory.ID)
	}
	es, err := s.List(ctx, contextfs.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.ID == old.Memory.ID {
			t.Errorf("%s is still current", old.Memory.ID)
		}
	}
}
