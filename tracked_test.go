package contextfs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/embed"
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

// TestALongLivedStoreStatsOnlyWhatChanged runs the search's auto-index on
// a store kept open (the watcher's, the MCP server's), which watches the
// tracked files' folders: a second search stats no file, an edit costs a
// stat of that file and is indexed, and a folder moved away is seen (all
// its files gone). A store opened for one command stats every file.
func TestALongLivedStoreStatsOnlyWhatChanged(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "a.go", "package a\n\nfunc Alpha() {}\n")
	testgit.WriteFile(t, dir, "sub/b.go", "package sub\n\nfunc Beta() {}\n")
	testgit.WriteFile(t, dir, "sub/deep/c.go", "package deep\n\nfunc Gamma() {}\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "base")
	backdate(t, dir)
	ctx := context.Background()
	open := func(longLived bool) *Store {
		s, err := Open(ctx, Options{Dir: dir, Embedder: embed.NewBuiltin(), LongLived: longLived})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	search := func(s *Store) map[string]int64 {
		t.Helper()
		if _, err := s.AutoIndex(ctx, nil); err != nil {
			t.Fatal(err)
		}
		files, _, err := s.Indexer(nil).Files()
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{}
		for _, f := range files {
			sizes[f.Path] = f.Size
		}
		return sizes
	}
	s := open(true)
	search(s)
	n := s.tracked.Stats()
	search(s)
	search(s)
	if got := s.tracked.Stats() - n; got != 0 {
		t.Errorf("two searches with nothing changed stat'ed %d files, want none", got)
	}

	testgit.WriteFile(t, dir, "sub/b.go", "package sub\n\nfunc BetaRenamed() {}\n")
	n = s.tracked.Stats()
	sizes := search(s)
	if got := s.tracked.Stats() - n; got < 1 || got > 2 {
		t.Errorf("an edit of one file stat'ed %d files in the next search, want it alone", got)
	}
	if want := int64(len("package sub\n\nfunc BetaRenamed() {}\n")); sizes["sub/b.go"] != want {
		t.Errorf("the edited file's size is %d, want %d: the edit was not seen", sizes["sub/b.go"], want)
	}
	if res, err := s.Search(ctx, Query{Text: "BetaRenamed", Types: []string{"code"}, Mode: ModeKeyword}); err != nil || len(res) == 0 {
		t.Errorf("the edit is not searchable: %v, %v", res, err)
	}

	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if got := search(s); len(got) != 1 || got["a.go"] == 0 {
		t.Errorf("after the folder moved away the files are %v, want a.go alone", got)
	}
	if err := os.Rename(filepath.Join(dir, "moved"), filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if got := search(s); len(got) != 3 {
		t.Errorf("after the folder came back the files are %v, want all three", got)
	}

	once := open(false)
	search(once)
	n = once.tracked.Stats()
	search(once)
	// A search here looks twice (the auto-index, then Files): all three
	// files each time.
	if got := once.tracked.Stats() - n; got != 6 {
		t.Errorf("a store for one command stat'ed %d files in its second search, want all 3 twice", got)
	}
}
