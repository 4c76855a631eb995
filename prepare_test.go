package contextfs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
)

// waitReady waits until the store's next search would find the memories
// loaded for ranking, and fails the test after a while.
func waitReady(t *testing.T, s *contextfs.Store) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if s.SearchReady(context.Background()) {
			return
		}
	}
	t.Fatal("the search state was not prepared in the background")
}

func TestPrepareSearchLaterReadiesTheNextSearch(t *testing.T) {
	ctx := context.Background()
	s := open(t, testgit.Init(t))
	saveSeeds(t, s)
	if _, err := s.Search(ctx, contextfs.Query{Text: "pool"}); err != nil {
		t.Fatal(err)
	}
	if !s.SearchReady(ctx) {
		t.Fatal("not ready right after a search")
	}
	if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The CI runners have two cores."}); err != nil {
		t.Fatal(err)
	}
	if s.SearchReady(ctx) {
		t.Fatal("ready after a save changed the memories, before anything prepared it")
	}
	s.PrepareSearchLater()
	waitReady(t, s)
	res, err := s.Search(ctx, contextfs.Query{Text: "CI runners cores"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Title != "The CI runners have two cores." {
		t.Fatalf("the prepared search does not find the new memory first: %+v", res)
	}
}

// Closing a store while background work is queued or running neither
// races (run under -race) nor writes to the cache after Close returns:
// the test's temporary folder is removed right after.
func TestPrepareSearchLaterStopsAtClose(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	for i := range 10 {
		s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: fmt.Sprintf("Fact number %d about the build.", i)}); err != nil {
			t.Fatal(err)
		}
		s.PrepareSearchLater()
		if i%2 == 0 {
			time.Sleep(time.Duration(i) * time.Millisecond)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s.PrepareSearchLater() // after Close: nothing happens
	}
}
