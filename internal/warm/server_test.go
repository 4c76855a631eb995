package warm

import (
	"context"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// A change made by another process (a pull, an editor, a command run
// without the watcher) is brought into the watcher's open stores when it
// settles, so the next warm command does not do it first.
func TestWatcherRefreshBringsAnotherProcessesChangeIn(t *testing.T) {
	t.Setenv("CONTEXTFS_WATCH", "on")
	ctx := context.Background()
	dir := testgit.Init(t)
	other, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The deploy bot posts to the releases channel."}); err != nil {
		t.Fatal(err)
	}

	w, err := NewServer(dir, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Refresh() // nothing open yet: nothing to keep warm, and nothing opened
	if w.session != nil {
		t.Fatal("refresh opened the stores")
	}
	w.mu.Lock()
	err = w.open(ctx)
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	repo := w.session.Set.Repo
	if err := repo.PrepareSearch(ctx); err != nil {
		t.Fatal(err)
	}

	if _, err := other.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "Releases are tagged on Thursdays."}); err != nil {
		t.Fatal(err)
	}
	if repo.SearchReady(ctx) {
		t.Fatal("the watcher's search state is current before the refresh: the test shows nothing")
	}
	w.Refresh()
	if !repo.SearchReady(ctx) {
		t.Error("after the refresh the next search would still load the change first")
	}
	res, err := repo.Search(ctx, contextfs.Query{Text: "tagged thursdays", Mode: contextfs.ModeKeyword})
	if err != nil || len(res) == 0 {
		t.Errorf("search after the refresh: %v, %v", res, err)
	}
}
