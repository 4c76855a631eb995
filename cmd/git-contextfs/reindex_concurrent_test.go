package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestReindexBesideWriterProcesses is TestReindexCoexistsWithWriters
// (root package) with real processes: 8 writers saving and updating
// through the CLI beside a loop of `reindex` processes and `list` checks.
// Every command must exit 0 without a word about the cache on stderr; an
// update that exits non-zero must not have been applied; every listing
// holds every memory saved before.
func TestReindexBesideWriterProcesses(t *testing.T) {
	dir := testgit.Init(t)
	var seeds []string
	for i := range 6 {
		var m map[string]any
		decodeJSON(t, ok(t, dir, "save", "--json", "--dedup", "allow", "--type", "fact", "--title", fmt.Sprintf("Seed %d", i), fmt.Sprintf("Seed %d about the build.", i)), &m)
		seeds = append(seeds, m["id"].(string))
	}
	const writers, rounds = 8, 3
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
	check := func(what string, r result) bool {
		if r.code != 0 || strings.Contains(r.stderr, "cache") {
			fail("%s: exit %d\n%s", what, r.code, r.stderr)
			return false
		}
		return true
	}
	bg.Go(func() {
		for !done.Load() {
			check("reindex", cli(t, dir, "", "reindex"))
			reindexes.Add(1)
		}
	})
	bg.Go(func() {
		for !done.Load() {
			r := cli(t, dir, "", "list", "--json")
			if !check("list", r) {
				continue
			}
			list.Add(1)
			for _, id := range seeds {
				if !strings.Contains(r.stdout, `"`+id+`"`) {
					fail("list missed %s, saved before", id)
				}
			}
		}
	})
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				r := cli(t, dir, "", "save", "--json", "--dedup", "allow", "--type", "fact", "--title", fmt.Sprintf("Writer %d note %d", w, i), fmt.Sprintf("Writer %d wrote note %d.", w, i))
				if !check(fmt.Sprintf("writer %d save %d", w, i), r) {
					continue
				}
				var m map[string]any
				decodeJSON(t, r.stdout, &m)
				for _, id := range []string{m["id"].(string), seeds[(w+i)%len(seeds)]} {
					tag := fmt.Sprintf("w%d-%d", w, i)
					r := cli(t, dir, "", "update", "--scope", "repo", id, "--add-tag", tag)
					if check(fmt.Sprintf("writer %d update %s", w, id), r) || r.code == 0 {
						continue
					}
					files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*-"+id+".md"))
					for _, f := range files {
						if b, _ := os.ReadFile(f); strings.Contains(string(b), tag) {
							fail("writer %d update %s exited non-zero but was applied", w, id)
						}
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
	t.Logf("%d writer processes × %d saves and %d updates, beside %d reindexes and %d listings: %d failures",
		writers, rounds, 2*rounds, reindexes.Load(), list.Load(), len(failures))
	if reindexes.Load() < 2 {
		t.Errorf("only %d reindexes ran beside the writers", reindexes.Load())
	}
}
