package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
)

// scaleSection is the heading of the part of docs/BENCHMARKS.md that
// `make bench-scale` writes; the rest of the file is left as it is.
const scaleSection = "## Scale: hybrid search and reindex at 100K and 1M"

// scaleRun is what the scale benchmark measured at one corpus size.
type scaleRun struct {
	N int
	// Reindex: a `git contextfs reindex` child process, wall and CPU time
	// (user+system, from wait4) and its peak RSS in KiB; zero when the
	// cache was reused and -scale-reindex not given.
	ReindexWall, ReindexCPU time.Duration
	ReindexRSS              int64
	ReindexAt               string // when it was measured
	// In-process hybrid search latencies, and CPU per query (getrusage of
	// the whole process over the timed queries, divided by their number).
	Hybrid, Keyword, Semantic       []time.Duration
	HybridCPU, KeywordCPU, SemanCPU time.Duration
	// Recall@10 of the semantic half (the vector index, when it is used)
	// against the exact scan, averaged over the queries.
	Recall10 float64
	Index    string // the vector search used: "exact" or the index's name
	// The cache's nearest-neighbour search alone (Cache.Semantic, top 10,
	// query already embedded), by the index and by the exact scan, over
	// the same queries: the vector half before and after, in one run.
	VecIndex, VecExact []time.Duration
	// Warm is the end-to-end CLI and MCP figures, up to scaleWarmMax.
	Warm *warmScale `json:"-"`
}

// benchScale builds (once) a corpus of n synthetic memories for each
// size under dir, indexes it with bin, and measures in-process search on
// it. A corpus and its cache are reused by later runs; reindex is timed
// when the cache is built, and again when reindex is set.
func benchScale(ctx context.Context, dir, bin string, sizes []int, nq int, reindex, noReindex bool, out string) error {
	var runs []scaleRun
	for _, n := range sizes {
		r, err := scaleOne(ctx, filepath.Join(dir, fmt.Sprint(n)), bin, n, nq, reindex, noReindex)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		runs = append(runs, r)
	}
	text := scaleMarkdown(runs)
	fmt.Print(text)
	if out == "" {
		return nil
	}
	return writeSection(out, scaleSection, text)
}

func scaleOne(ctx context.Context, dir, bin string, n, nq int, reindex, noReindex bool) (scaleRun, error) {
	r := scaleRun{N: n}
	qfile := filepath.Join(dir, "queries.txt")
	qs, err := readLines(qfile)
	if err != nil || len(qs) == 0 {
		// A corpus is written whole before its queries file: a killed
		// run leaves no queries, and the corpus is written again.
		fmt.Fprintf(os.Stderr, "scale: writing %d memories under %s\n", n, dir)
		if err := os.RemoveAll(dir); err != nil {
			return r, err
		}
		if out, err := (git.Cmd{}).Combined(ctx, "init", "-q", dir); err != nil {
			return r, fmt.Errorf("git init: %v: %s", err, out)
		}
		if qs, err = writeCorpus(dir, n, nq); err != nil {
			return r, err
		}
		if err := os.WriteFile(qfile, []byte(strings.Join(qs, "\n")+"\n"), 0o644); err != nil {
			return r, err
		}
	}
	// queries.txt is not a memory file: keep it out of git's view too.
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("queries.txt\nreindex.json\n"), 0o644); err != nil {
		return r, err
	}
	rfile := filepath.Join(dir, "reindex.json")
	prev, err := os.ReadFile(rfile)
	switch {
	case noReindex && err != nil:
		// Searched as the cache stands; no reindex figures.
	case reindex || err != nil:
		fmt.Fprintf(os.Stderr, "scale: reindexing %d memories\n", n)
		wall, cpu, rss, err := reindexChild(dir, bin)
		if err != nil {
			return r, err
		}
		r.ReindexWall, r.ReindexCPU, r.ReindexRSS = wall, cpu, rss
		r.ReindexAt = time.Now().UTC().Format("2006-01-02 15:04 UTC")
		b, _ := json.Marshal(r)
		if err := os.WriteFile(rfile, b, 0o644); err != nil {
			return r, err
		}
	default:
		if err := json.Unmarshal(prev, &r); err != nil {
			return r, fmt.Errorf("%s: %w", rfile, err)
		}
	}
	fmt.Fprintf(os.Stderr, "scale: searching %d memories\n", n)
	if err := scaleSearch(ctx, dir, qs, &r); err != nil {
		return r, err
	}
	if n <= scaleWarmMax {
		fmt.Fprintf(os.Stderr, "scale: warm CLI and MCP searches of %d memories\n", n)
		if r.Warm, err = scaleWarm(ctx, dir, bin, qs); err != nil {
			return r, err
		}
	}
	return r, nil
}

// reindexChild runs `bin reindex` in dir and returns its wall and CPU
// time and the peak RSS it reports of itself (the rusage of a child
// counts the memory of the parent it was forked from).
func reindexChild(dir, bin string) (wall, cpu time.Duration, rss int64, err error) {
	cmd := exec.Command(bin, "reindex")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CONTEXTFS_PEAK_RSS=1", "CONTEXTFS_WATCH=off")
	cmd.Stdout = os.Stderr
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return wall, 0, 0, fmt.Errorf("%s reindex: %v: %s", bin, err, errBuf.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	s := errBuf.String()
	if i := strings.LastIndex(s, "contextfs: peak RSS "); i >= 0 {
		fmt.Sscanf(s[i+len("contextfs: peak RSS "):], "%d", &rss)
	}
	return wall, cpu, rss, nil
}

// scaleSearch times in-process searches of each mode over qs (twice
// over, after one warm-up query), and the recall of the semantic half.
func scaleSearch(ctx context.Context, dir string, qs []string, r *scaleRun) error {
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return err
	}
	defer s.Close()
	for _, mode := range []string{"semantic", "keyword", "hybrid"} {
		if _, err := s.SearchIndexed(ctx, contextfs.Query{Text: qs[0], Mode: mode}); err != nil {
			return err
		}
		var lat []time.Duration
		cpu0 := cpuTime()
		for range 2 {
			for _, q := range qs {
				t := time.Now()
				if _, err := s.SearchIndexed(ctx, contextfs.Query{Text: q, Mode: mode}); err != nil {
					return err
				}
				lat = append(lat, time.Since(t))
			}
		}
		per := (cpuTime() - cpu0) / time.Duration(len(lat))
		switch mode {
		case "semantic":
			r.Semantic, r.SemanCPU = lat, per
		case "keyword":
			r.Keyword, r.KeywordCPU = lat, per
		default:
			r.Hybrid, r.HybridCPU = lat, per
		}
	}
	// The two vector searches side by side, on the store's cache file
	// opened a second time (the store's API runs hybrid search only).
	c, err := cache.Open(ctx, s.CacheDir(), s.Embedder())
	if err != nil {
		return err
	}
	defer c.Close()
	return semanticRecall(ctx, c, qs, r)
}

// semanticRecall compares the cache's semantic top 10 with the exact
// scan's for each query, timing both.
func semanticRecall(ctx context.Context, c *cache.Cache, qs []string, r *scaleRun) error {
	vecs, err := embed.EmbedQuery(ctx, embed.NewBuiltin(), qs)
	if err != nil {
		return err
	}
	var sum float64
	r.Index = "exact"
	for _, v := range vecs {
		t := time.Now()
		got, err := c.Semantic(ctx, cache.KindMemory, v, cache.Filter{All: true}, 10)
		if err != nil {
			return err
		}
		r.VecIndex = append(r.VecIndex, time.Since(t))
		t = time.Now()
		want, err := c.SemanticExact(ctx, cache.KindMemory, v, cache.Filter{All: true}, 10)
		if err != nil {
			return err
		}
		r.VecExact = append(r.VecExact, time.Since(t))
		sum += cache.Recall(got, want)
	}
	if name := c.VectorIndex(ctx, cache.KindMemory); name != "" {
		r.Index = name
	}
	r.Recall10 = sum / float64(len(vecs))
	return nil
}

// cpuTime is the user and system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func scaleMarkdown(runs []scaleRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", scaleSection)
	fmt.Fprintf(&b, "Written by `make bench-scale` (%s, %d cores, %s); the rest of this file is not. Synthetic memories as in the search table, built once under the scale directory and reused. In-process: the Go API with a warm cache, %s queries each run twice, wall time p50 / p99 and CPU per query (getrusage of the process over the timed queries). Vector half alone: the cache's top 10 for an embedded query, by the vector search in use and by the exact scan, p50 / p99 over the same queries, and the recall@10 of the first against the second. Reindex: `git contextfs reindex` as a child process, wall and CPU time (wait4) and its own peak RSS, measured when the cache was built (the date beside it).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), numCPU(), goVersion(), queriesOf(runs))
	b.WriteString("| memories | hybrid p50 / p99 | hybrid CPU/query | keyword p50 / p99 | keyword CPU/query | semantic p50 / p99 | semantic CPU/query | vector search | its p50 / p99 | exact scan p50 / p99 | recall@10 | reindex wall / CPU | reindex peak RSS |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range runs {
		re := "n/a"
		rss := "n/a"
		if r.ReindexWall > 0 {
			re = fmt.Sprintf("%s / %s (%s)", ms(r.ReindexWall), ms(r.ReindexCPU), r.ReindexAt)
			rss = fmt.Sprintf("%.0f MB", float64(r.ReindexRSS)/1024)
		}
		size := humanN(r.N)
		if r.N >= 1000000 && r.N%1000000 == 0 {
			size = fmt.Sprint(r.N/1000000) + "M"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %s |\n", size, pp(r.Hybrid), ms(r.HybridCPU),
			pp(r.Keyword), ms(r.KeywordCPU), pp(r.Semantic), ms(r.SemanCPU), r.Index, pp(r.VecIndex), pp(r.VecExact), r.Recall10, re, rss)
	}
	b.WriteString("\n")
	b.WriteString(warmScaleMarkdown(runs))
	return b.String()
}

func queriesOf(runs []scaleRun) string {
	if len(runs) == 0 {
		return "0"
	}
	return fmt.Sprint(len(runs[0].Hybrid) / 2)
}

// writeSection puts text in place of the section headed heading in the
// Markdown file at path (up to the next heading of the same level), or
// appends it; the rest of the file is kept.
func writeSection(path, heading, text string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	lines := strings.SplitAfter(string(old), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.TrimRight(l, "\n") == heading })
	var out string
	switch {
	case len(old) == 0:
		out = text
	case start < 0:
		out = strings.TrimRight(string(old), "\n") + "\n\n" + text
	default:
		end := len(lines)
		for i := start + 1; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") {
				end = i
				break
			}
		}
		out = strings.Join(lines[:start], "") + text + strings.Join(lines[end:], "")
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// defaultScaleDir is $HOME/.cache/contextfs-bench-scale: outside any
// repository, kept between runs.
func defaultScaleDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "contextfs-bench-scale")
}
