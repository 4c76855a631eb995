package contextfs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// backdate sets the modification time of the git index of dir to an hour
// ago: an index written earlier than this instant, as in a repository where
// nobody ran git in the last seconds (the racy-git window).
func backdate(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".git", "index"), old, old); err != nil {
		t.Fatal(err)
	}
}

// TestSearchesReuseTheTrackedListWhileGitsIndexIsUnchanged runs the
// auto-index a search runs, several times on one store (the watcher's or
// the MCP server's), and counts the reads of .git/index: one while the
// file is unchanged, one more for each change git makes to it, and one
// for each run while it is too fresh to be told from a rewrite in the
// same clock tick (git's racy case).
func TestSearchesReuseTheTrackedListWhileGitsIndexIsUnchanged(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "a.go", "package a\n\nfunc Alpha() {}\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "base")
	backdate(t, dir)
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	search := func() []string {
		t.Helper()
		if _, err := s.AutoIndex(ctx, nil); err != nil {
			t.Fatal(err)
		}
		files, _, err := s.Indexer(nil).Files()
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		return paths
	}

	search()
	search()
	if n := s.tracked.Reads(); n != 1 {
		t.Fatalf("two runs over an unchanged index read it %d times, want 1", n)
	}

	// An edit in the work tree is seen without reading the index: only
	// the file's own stat changed.
	testgit.WriteFile(t, dir, "a.go", "package a\n\nfunc AlphaRenamed() {}\n")
	search()
	if n := s.tracked.Reads(); n != 1 {
		t.Errorf("a work-tree edit made the index be read again (%d reads)", n)
	}

	// git add rewrites the index: it is read again, and the new file is
	// in the list.
	testgit.WriteFile(t, dir, "b.go", "package a\n\nfunc Beta() {}\n")
	testgit.Run(t, dir, "add", "b.go")
	if got := search(); !slices.Equal(got, []string{"a.go", "b.go"}) {
		t.Errorf("after git add the files are %q, want a.go and b.go", got)
	}
	// Just written, the index is racy: each run reads it, until its time
	// is older than the read by more than a clock tick.
	n := s.tracked.Reads()
	search()
	if s.tracked.Reads() == n {
		t.Error("a fresh (racy) index was not read again")
	}
	backdate(t, dir) // changes its times: read once more, then trusted
	n = s.tracked.Reads()
	search()
	search()
	search()
	if got := s.tracked.Reads() - n; got != 1 {
		t.Errorf("an older index was read %d times in three runs after the racy ones, want once", got)
	}

	// git rm: read again, and the file is gone from the list.
	testgit.Run(t, dir, "rm", "-q", "-f", "a.go")
	backdate(t, dir)
	if got := search(); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("after git rm the files are %q, want b.go", got)
	}
}

// TestASecondProcessReadsTheSavedListNotGitsIndex opens the store twice,
// as two commands do: the second finds the list the first saved beside
// the cache and does not read .git/index while it is the same file; once
// git rewrites it, the index is read again. A damaged saved list is never
// believed.
func TestASecondProcessReadsTheSavedListNotGitsIndex(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "a.go", "package a\n\nfunc Alpha() {}\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "base")
	backdate(t, dir)
	ctx := context.Background()
	command := func() (reads int, paths []string) {
		t.Helper()
		s, err := Open(ctx, Options{Dir: dir, Embedder: embed.NewBuiltin()})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.AutoIndex(ctx, nil); err != nil {
			t.Fatal(err)
		}
		files, _, err := s.Indexer(nil).Files()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		return s.tracked.Reads(), paths
	}
	if n, _ := command(); n != 1 {
		t.Fatalf("the first command read the index %d times, want 1", n)
	}
	if n, got := command(); n != 0 || !slices.Equal(got, []string{"a.go"}) {
		t.Errorf("the second command read the index %d times (files %q), want none (a.go)", n, got)
	}

	testgit.WriteFile(t, dir, "b.go", "package a\n\nfunc Beta() {}\n")
	testgit.Run(t, dir, "add", "b.go")
	backdate(t, dir)
	if n, got := command(); n != 1 || !slices.Equal(got, []string{"a.go", "b.go"}) {
		t.Errorf("after git add: %d reads, files %q; want 1 read, a.go and b.go", n, got)
	}

	saved := filepath.Join(dir, ".git", "contextfs", "tracked")
	raw, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"cut short":        raw[:len(raw)-3],
		"a path upward":    bytes.Replace(raw, []byte("pb.go\x00"), []byte("p../b.go\x00"), 1),
		"an unknown entry": append(slices.Clone(raw), []byte("xq\x00")...),
	} {
		if err := os.WriteFile(saved, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if n, got := command(); n != 1 || !slices.Equal(got, []string{"a.go", "b.go"}) {
			t.Errorf("saved list %s: %d reads, files %q; want the index read, a.go and b.go", name, n, got)
		}
	}
}
