package contextfs

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestHookRefreshSyncsMemoriesButNeverStartsAFirstCodeIndex(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	testgit.WriteFile(t, dir, ".contextfs/a.md", testgit.Memory("aaaa1111", "", "A\n"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "base")
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	r, err := s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 1 || r.Changed != 1 || r.Code {
		t.Errorf("first Refresh = %+v, want 1 memory, 1 changed, no code index", r)
	}
	if s.cache.Meta(ctx, "code:last") != "" {
		t.Error("Refresh built a first code index")
	}

	// Once an index exists, Refresh keeps it current.
	if _, err := s.Index(ctx, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	testgit.WriteFile(t, dir, ".contextfs/b.md", testgit.Memory("bbbb2222", "", "B\n"))
	r, err = s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 2 || r.Changed != 1 || !r.Code {
		t.Errorf("second Refresh = %+v, want 2 memories, 1 changed, code index updated", r)
	}
}
