package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
)

// workMemories is the corpus size of the embedder work table's rebuild.
const workMemories = 10000

// benchEmbedderWork prints the work each embedder makes of a rebuild of
// workMemories memories (Reindex through the Go API) and of a full index
// of a code tree (src/cmd/go of the Go toolchain, or src), built-in and
// hashing embedder interleaved in one run, median of runs each, each from
// an empty cache: what the built-in embedder costs beside the one it
// replaced.
func benchEmbedderWork(ctx context.Context, src string, runs int) error {
	if src == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		src = filepath.Join(strings.TrimSpace(string(out)), "src", "cmd", "go")
	}
	dir, err := os.MkdirTemp("", "contextfs-embedwork-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mem := filepath.Join(dir, "memories")
	if err := gitIn(dir, "init", "-q", mem); err != nil {
		return err
	}
	if _, err := writeCorpus(mem, workMemories, 1); err != nil {
		return err
	}
	code := filepath.Join(dir, "code")
	if out, err := exec.Command("cp", "-r", src, code).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %v: %s", src, err, out)
	}
	exec.Command("chmod", "-R", "u+w", code).Run()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "import"}} {
		if err := gitIn(code, args...); err != nil {
			return err
		}
	}
	embedders := []struct {
		name string
		new  func() embed.Embedder
	}{{"builtin", embed.NewBuiltin}, {"hash", embed.NewHashing}}
	rebuild := map[string][]time.Duration{}
	index := map[string][]time.Duration{}
	var indexed int64
	for range runs {
		for _, e := range embedders {
			d, _, err := timeStore(ctx, mem, e.new(), func(s *contextfs.Store) (int64, error) {
				_, err := s.Reindex(ctx)
				return 0, err
			})
			if err != nil {
				return fmt.Errorf("%s: rebuild: %w", e.name, err)
			}
			rebuild[e.name] = append(rebuild[e.name], d)
			d, n, err := timeStore(ctx, code, e.new(), func(s *contextfs.Store) (int64, error) {
				r, err := s.Index(ctx, contextfs.IndexOptions{Full: true})
				if err != nil {
					return 0, err
				}
				return r.Bytes, nil
			})
			if err != nil {
				return fmt.Errorf("%s: index: %w", e.name, err)
			}
			index[e.name] = append(index[e.name], d)
			indexed = n
		}
	}
	med := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	fmt.Printf("Work with each embedder, in process, median of %d, interleaved, each from an empty cache: a rebuild (`Reindex`) of %d synthetic memories, and a full index of %s (%.1f MB of source).\n\n", runs, workMemories, src, float64(indexed)/1e6)
	fmt.Println("| embedder | rebuild of 10K memories | full index | index throughput |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, e := range embedders {
		ix := med(index[e.name])
		fmt.Printf("| %s | %.2f s | %.2f s | %.1f MB/s |\n", e.name, med(rebuild[e.name]).Seconds(), ix.Seconds(), float64(indexed)/1e6/ix.Seconds())
	}
	rb, rh := med(rebuild["builtin"]), med(rebuild["hash"])
	ib, ih := med(index["builtin"]), med(index["hash"])
	fmt.Printf("\nBuilt-in ÷ hashing: rebuild %.2f×, full index %.2f×.\n\n", rb.Seconds()/rh.Seconds(), ib.Seconds()/ih.Seconds())
	return nil
}

// timeStore opens dir's store with e on an empty cache, times work and
// closes it.
func timeStore(ctx context.Context, dir string, e embed.Embedder, work func(*contextfs.Store) (int64, error)) (time.Duration, int64, error) {
	if err := os.RemoveAll(filepath.Join(dir, ".git", "contextfs")); err != nil {
		return 0, 0, err
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: e})
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	t := time.Now()
	n, err := work(s)
	return time.Since(t), n, err
}
