package autoindex_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/autoindex"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// polyglotRepo makes a repository of a few hundred real Go files (go-git's
// root package and plumbing/object) beside the small Go, Python,
// TypeScript and Markdown sources of the other tests, a copy of one file
// at a second path, an empty file and a binary one.
func polyglotRepo(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	src := goGitSource(t)
	for _, sub := range []string{".", "plumbing/object"} {
		ents, err := os.ReadDir(filepath.Join(src, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			testgit.WriteFile(t, dir, filepath.ToSlash(filepath.Join("gogit", sub, e.Name())), string(b))
		}
	}
	for p, c := range sources {
		testgit.WriteFile(t, dir, p, c)
	}
	testgit.WriteFile(t, dir, "copy/retry.go", sources["upload/retry.go"])
	testgit.WriteFile(t, dir, "empty.py", "")
	testgit.WriteFile(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "import")
	return dir
}

// indexWith indexes the code of repo into a new cache with the given
// number of workers and returns the cache.
func indexWith(t *testing.T, ctx context.Context, dir string, workers int, progress func(done, total int)) (*cache.Cache, autoindex.CodeStats, error) {
	t.Helper()
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.Open(context.Background(), t.TempDir(), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ix := autoindex.New(repo, c, autoindex.Options{Workers: workers, Progress: progress})
	st, err := ix.IndexCode(ctx, nil)
	return c, st, err
}

// chunks lists every current code chunk of c, with its row ID.
func chunks(t *testing.T, c *cache.Cache) []cache.Row {
	t.Helper()
	rows, err := c.List(context.Background(), cache.KindCode, cache.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestParallelIndexMatchesSequential(t *testing.T) {
	dir := polyglotRepo(t)
	ctx := context.Background()
	seq, seqStats, err := indexWith(t, ctx, dir, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := chunks(t, seq)
	if len(want) < 1000 {
		t.Fatalf("%d chunks indexed, want the repository's thousands", len(want))
	}
	for _, workers := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d workers store the same chunks under the same rows", workers), func(t *testing.T) {
			par, st, err := indexWith(t, ctx, dir, workers, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.SyncStats != seqStats.SyncStats {
				t.Errorf("stats %+v, sequential %+v", st.SyncStats, seqStats.SyncStats)
			}
			got := chunks(t, par)
			if len(got) != len(want) {
				t.Fatalf("%d chunks, sequential %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("chunk %d differs:\n got  %+v\n want %+v", i, got[i], want[i])
				}
			}
			for _, q := range []string{"resolve revision", "commit iterator", "retry upload backoff"} {
				a, err := seq.Keyword(ctx, cache.KindCode, q, cache.Filter{}, 20)
				if err != nil {
					t.Fatal(err)
				}
				b, err := par.Keyword(ctx, cache.KindCode, q, cache.Filter{}, 20)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%q: keyword hits %v, sequential %v", q, b, a)
				}
			}
		})
	}
}

func TestCancelledIndexLeavesConsistentCache(t *testing.T) {
	dir := polyglotRepo(t)
	full, _, err := indexWith(t, context.Background(), dir, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := chunkSet(chunks(t, full))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen atomic.Int64
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.Open(context.Background(), t.TempDir(), embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Cancelled after a few files, while the workers are busy.
	ix := autoindex.New(repo, c, autoindex.Options{Workers: 4, Progress: func(done, total int) {
		if seen.Add(1) == 20 {
			cancel()
		}
	}})
	if _, err := ix.IndexCode(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled index returned %v, want context.Canceled", err)
	}
	// Whatever was stored is whole: a file has all its chunks or none.
	partial := chunkSet(chunks(t, c))
	files := map[string]bool{}
	for _, r := range partial {
		files[r.Path] = true
	}
	for k, r := range want {
		if _, ok := partial[k]; files[r.Path] && !ok {
			t.Errorf("after a cancelled index, %s has some chunks but not %s", r.Path, r.MID)
		}
	}
	for k := range partial {
		if _, ok := want[k]; !ok {
			t.Errorf("after a cancelled index, chunk %s is not one of a complete index", k)
		}
	}
	// The next index finishes the work and is not fooled by the first.
	ix = autoindex.New(repo, c, autoindex.Options{Workers: 4})
	st, err := ix.IndexCode(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stale == 0 {
		t.Errorf("the index after a cancelled one found nothing stale: %+v", st.SyncStats)
	}
	if got := chunkSet(chunks(t, c)); !reflect.DeepEqual(got, want) {
		t.Errorf("after a cancelled index and a complete one: %d chunks, want %d as one complete index", len(got), len(want))
	}
}

// chunkSet is rows without their row IDs, which depend on what was
// stored first.
func chunkSet(rows []cache.Row) map[string]cache.Row {
	out := map[string]cache.Row{}
	for _, r := range rows {
		k := r.Path + "#" + r.MID
		r.Row = 0
		out[k] = r
	}
	return out
}
