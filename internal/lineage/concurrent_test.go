package lineage_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/lineage"
)

func TestConcurrentEvolvesOfOneMemoryLeaveOneCurrentVersion(t *testing.T) {
	ctx := context.Background()
	s, dir := open(t)
	old, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The cache TTL is 60 seconds."})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		// A store each, as separate processes would have.
		st, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		wg.Go(func() {
			_, errs[i] = lineage.Evolve(ctx, st, old.Memory.ID, lineage.Change{Body: fmt.Sprintf("The cache TTL is %d seconds.", 120*(i+1))})
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var sup *contextfs.SupersededError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &sup):
			t.Errorf("an evolve failed otherwise than as superseded: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d evolves succeeded, want 1", won)
	}
	vs, err := lineage.Lineage(ctx, s, old.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	current := 0
	for _, v := range vs {
		if v.Current {
			current++
		}
	}
	if current != 1 {
		t.Errorf("%d current versions, want 1: %+v", current, vs)
	}
}
