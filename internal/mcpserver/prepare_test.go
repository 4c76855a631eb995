package mcpserver_test

import (
	"context"
	"testing"
	"time"
)

// A tool call that changes the memories leaves the next search its
// memories loaded: the server prepares them once the answer is out.
func TestAChangeLeavesTheNextSearchPrepared(t *testing.T) {
	cs, s, _ := connect(t)
	ctx := context.Background()
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The nightly build runs at two."}, nil)
	call(t, cs, "search_memory", map[string]any{"query": "nightly build"}, nil)
	if !s.SearchReady(ctx) {
		t.Fatal("not ready after a search")
	}
	call(t, cs, "save_memory", map[string]any{"type": "decision", "content": "Nightly builds move to three."}, nil)
	for deadline := time.Now().Add(10 * time.Second); !s.SearchReady(ctx); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the save left the search unprepared")
		}
	}
}
