// Command contextfs-bench measures contextfs end to end and prints Markdown
// tables: search latency in-process and through the CLI on synthetic
// corpora, rebuild time and memory, against baselines measured in the same
// run (the same FTS5 query through the sqlite3 CLI, and ripgrep over the
// files), `search --repos all` over several registered repositories
// against a search of one, and retrieval quality on the SICK sentence
// pairs.
//
//	go run -tags sqlite_fts5 ./cmd/contextfs-bench -sizes 1000,10000 -bin bin/git-contextfs
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contextfs/contextfs/internal/git"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/embed"
)

func main() {
	sizes := flag.String("sizes", "1000,10000", "comma-separated corpus sizes (memories)")
	bin := flag.String("bin", "bin/git-contextfs", "git-contextfs binary for the end-to-end rows")
	runs := flag.Int("runs", 30, "CLI runs per row")
	queries := flag.Int("queries", 200, "in-process queries per mode")
	sick := flag.Bool("sick", true, "run the SICK retrieval-quality evaluation")
	only := flag.String("only", "", "run only these comma-separated sections: startup, embedder, search, warm, list, agents, contextcode, prompt, sick, index, save, repos, hooks, lookup; or embedder, quality or scale alone (quality and scale are never run by default)")
	reposN := flag.Int("repos-size", 10000, "memories per repository in the repos row")
	reposK := flag.Int("repos", 5, "repositories in the repos row")
	extract := flag.String("quality-extract", "", "derive the quality sets from the mirrors under this folder (owner+name/repo git dirs) into "+qualityDir+", and exit")
	repoSrc := flag.String("index-src", "", "source tree to index (default: src/cmd/go of the Go toolchain; the README's figures use src/cmd)")
	indexBase := flag.String("index-base", "", "baseline git-contextfs binary whose full index is timed beside -bin's, interleaved")
	indexRuns := flag.Int("index-runs", 3, "full indexes per binary (median)")
	agentsKeep := flag.String("agents-repos", "", "agents: keep the benchmark's repositories in `DIR`/N and reuse them on later runs (a 100K corpus takes long to write)")
	listBase := flag.String("list-base", "", "a second git-contextfs binary for the list rows, run interleaved with -bin on its own corpus (before/after in one run)")
	saveBase := flag.String("save-base", "", "a second git-contextfs binary for the save rows, run interleaved with -bin (before/after in one run)")
	lookupBase := flag.String("lookup-base", "", "a second git-contextfs binary for the lookup rows, run interleaved with -bin on its own copy of the corpus")
	qualitySets := flag.String("quality-sets", "", "quality: run only these comma-separated sets (go-git, requests, ky, proposal, world, sick; default all)")
	qualityEmb := flag.String("quality-embedder", "builtin", "quality: the embedder, builtin (the default) or hash (the hashing embedder it replaced)")
	flag.IntVar(&qualityANNFrom, "quality-ann", 0, "quality: use the approximate vector search (column scan, exact re-rank) from this many documents on, to compare its MRR with the exact scan's (0: the default threshold, which the sets are below)")
	qualityWeights := flag.String("quality-weights", "", "quality: also run hybrid at these comma-separated semantic weights (columns after the table's last)")
	workRuns := flag.Int("embedder-runs", 3, "embedder: rebuilds and full indexes per embedder (median)")
	firstVec := flag.String("first-vector", "", "internal: embed one query in this fresh process with builtin or hash, print the nanoseconds it took, and exit")
	scaleDir := flag.String("scale-dir", defaultScaleDir(), "scale: where the corpora (one git repository per size) are built once and reused")
	scaleSizes := flag.String("scale-sizes", "100000,1000000", "scale: comma-separated corpus sizes (memories)")
	scaleReindex := flag.Bool("scale-reindex", false, "scale: time reindex again even where the cache was built before")
	scaleNoReindex := flag.Bool("scale-no-reindex", false, "scale: never reindex; search a cache as it stands (its reindex figures n/a unless measured before)")
	scaleOut := flag.String("scale-out", "", "scale: also write the section into this Markdown file (docs/BENCHMARKS.md), keeping its other sections")
	corpus := flag.String("corpus", "", "only write a synthetic corpus of the first -sizes memories into this new git repository, and exit")
	flag.Parse()
	ctx := context.Background()
	if *firstVec != "" {
		if err := firstVector(*firstVec); err != nil {
			fatal(err)
		}
		return
	}
	if *only == "embedder" {
		if err := benchEmbedder(*runs); err != nil {
			fatal(err)
		}
		if err := benchEmbedderWork(ctx, *repoSrc, *workRuns); err != nil {
			fatal(err)
		}
		return
	}
	if *corpus != "" {
		n, err := strconv.Atoi(strings.Split(*sizes, ",")[0])
		if err != nil {
			fatal(err)
		}
		if out, err := (git.Cmd{}).Combined(context.Background(), "init", "-q", *corpus); err != nil {
			fatal(fmt.Errorf("git init: %v: %s", err, out))
		}
		if _, err := writeCorpus(*corpus, n, 10); err != nil {
			fatal(err)
		}
		return
	}
	if *only == "scale" {
		binAbs, err := filepath.Abs(*bin)
		if err != nil {
			fatal(err)
		}
		if err := benchScale(ctx, *scaleDir, binAbs, sizeList(*scaleSizes), *queries, *scaleReindex, *scaleNoReindex, *scaleOut); err != nil {
			fatal(err)
		}
		return
	}
	if *extract != "" {
		if err := extractAll(*extract); err != nil {
			fatal(err)
		}
		return
	}
	if *only == "quality" {
		sets, err := pickSets(*qualitySets)
		if err != nil {
			fatal(err)
		}
		for _, w := range strings.Split(*qualityWeights, ",") {
			if w = strings.TrimSpace(w); w != "" {
				qualityModes = append(qualityModes, "hybrid "+w)
			}
		}
		switch *qualityEmb {
		case "builtin":
		case "hash":
			qualityEmbedder = embed.NewHashing
		default:
			fatal(fmt.Errorf("-quality-embedder %q: want builtin or hash", *qualityEmb))
		}
		fmt.Printf("# contextfs search quality\n\n%s, %s, embedder %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), goVersion(), qualityEmbedder().Model())
		if sets["world"] {
			if err := benchWorld(ctx); err != nil {
				fatal(err)
			}
		}
		if err := benchQuality(ctx, ".", sets); err != nil {
			fatal(err)
		}
		if sets["sick"] {
			if err := benchSICK(ctx); err != nil {
				fatal(err)
			}
		}
		return
	}
	binAbs, err := filepath.Abs(*bin)
	if err != nil {
		fatal(err)
	}
	if _, err := os.Stat(binAbs); err != nil {
		fatal(fmt.Errorf("%s: build it first (make build): %w", *bin, err))
	}
	rep := &report{}
	sections := []section{
		{"startup", func() error { return benchStartup(rep, binAbs, *runs) }},
		{"embedder", func() error {
			if err := benchEmbedder(*runs); err != nil {
				return err
			}
			return benchEmbedderWork(ctx, *repoSrc, *workRuns)
		}},
		{"search", func() error { return benchSearch(ctx, sizeList(*sizes), binAbs, *runs, *queries) }},
		{"warm", func() error { return benchWarm(ctx, sizeList(*sizes), binAbs, *runs, *queries) }},
		{"list", func() error { return benchList(ctx, sizeList(*sizes), binAbs, *listBase, *runs) }},
		{"agents", func() error { return benchAgents(ctx, sizeList(*sizes), binAbs, *agentsKeep, *runs, *queries) }},
		{"contextcode", func() error { return benchContextCode(ctx, rep, sizeList(*sizes), binAbs, *runs) }},
		{"prompt", func() error { return benchPrompt(ctx, rep, sizeList(*sizes), binAbs, *runs, *queries) }},
		{"sick", func() error { return benchSICK(ctx) }},
		{"index", func() error { return benchIndex(*repoSrc, binAbs, *indexBase, *indexRuns) }},
		{"save", func() error { return benchSave(ctx, rep, *sizes, binAbs, *saveBase, *runs) }},
		{"repos", func() error { return benchRepos(ctx, *reposN, *reposK, binAbs, *runs) }},
		{"hooks", func() error { return benchHooks(rep, binAbs, *runs) }},
		{"lookup", func() error {
			base := *lookupBase
			if base != "" {
				if base, err = filepath.Abs(base); err != nil {
					return err
				}
			}
			return benchLookup(ctx, sizeList(*sizes), binAbs, base, *runs)
		}},
	}
	// -only startup,hooks runs those; "embedder" alone is handled above.
	picked := map[string]bool{}
	for _, name := range strings.Split(*only, ",") {
		if name = strings.TrimSpace(name); name != "" {
			picked[name] = true
		}
	}
	for name := range picked {
		if !slices.ContainsFunc(sections, func(s section) bool { return s.name == name }) {
			fatal(fmt.Errorf("-only: no section %q", name))
		}
	}
	if !*sick {
		sections = slices.DeleteFunc(sections, func(s section) bool { return s.name == "sick" })
	}
	load := loadAvg()
	start := time.Now()
	// The sections print their tables to stdout as they go; the summary
	// of targets comes first in the file but is known only at the end,
	// so their output goes to a temporary file until then.
	body, err := captureStdout(func() error {
		for _, s := range sections {
			if len(picked) > 0 && !picked[s.name] {
				continue
			}
			fmt.Fprintf(os.Stderr, "contextfs-bench: %s...\n", s.name)
			t := time.Now()
			// A section that fails is reported and the run goes on: a
			// long run on a busy machine keeps what the others measured.
			if err := s.run(); err != nil {
				fmt.Fprintf(os.Stderr, "contextfs-bench: %s failed: %v\n", s.name, err)
				fmt.Printf("\n**The %s section failed:**\n\n```\n%v\n```\n\n", s.name, err)
				rep.fail(s.name, err)
			}
			rep.sections = append(rep.sections, sectionTime{s.name, time.Since(t)})
			fmt.Fprintf(os.Stderr, "contextfs-bench: %s took %s\n", s.name, time.Since(t).Round(time.Second))
		}
		return nil
	})
	if err != nil {
		fatal(err)
	}
	fmt.Printf("# contextfs benchmarks\n\n%s, %d cores, %s; load average %s at the start, %s at the end.\n\n", start.UTC().Format("2006-01-02 15:04 UTC"), numCPU(), goVersion(), load, loadAvg())
	fmt.Println("Written by `make bench` (`cmd/contextfs-bench`, then the Go micro-benchmarks); not edited by hand.")
	fmt.Println()
	rep.writeSummary(os.Stdout)
	os.Stdout.Write(body)
	rep.writeSections(os.Stdout, time.Since(start))
}

// section is one part of the run, selectable with -only.
type section struct {
	name string
	run  func() error
}

// captureStdout runs f with os.Stdout going to a temporary file and
// returns what f wrote there. The sections print with fmt.Print*, which
// writes to os.Stdout as it is when called.
func captureStdout(f func() error) ([]byte, error) {
	tmp, err := os.CreateTemp("", "contextfs-bench-out-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	stdout := os.Stdout
	os.Stdout = tmp
	err = f()
	os.Stdout = stdout
	if err != nil {
		return nil, err
	}
	return os.ReadFile(tmp.Name())
}

// loadAvg is the 1, 5 and 15 minute load averages, for the reader to
// judge how busy the machine was.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " / ")
}

// sizeList parses -sizes.
func sizeList(s string) []int {
	var ns []int
	for _, x := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			fatal(fmt.Errorf("-sizes: %w", err))
		}
		ns = append(ns, n)
	}
	return ns
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "contextfs-bench:", err)
	os.Exit(1)
}

func benchSearch(ctx context.Context, sizes []int, bin string, runs, nq int) error {
	fmt.Println("## Search latency, rebuild and memory")
	fmt.Println()
	fmt.Println("Synthetic corpora of typed memories (80–150 words each). Rebuild: `reindex` through the Go API (parse, embed, index, write the rankers' files). In-process: the Go API with a warm cache, search only. CLI: `git-contextfs search --json` from process start to exit, with the change watcher running (the default from 10,000 memory files) and without it (`CONTEXTFS_WATCH=off`: every file is stat'ed first); \"after a change\": a search right after one memory file was edited in place. Baselines in the same run: the same BM25 query through the `sqlite3` CLI on the cache database (FTS5's bm25(), no freshness check), and `rg` over the memory files.")
	fmt.Println()
	fmt.Println("| memories | rebuild | keyword p50 / p99 | semantic p50 / p99 | hybrid p50 / p99 | CLI, watcher p50 / p99 | CLI, no watcher p50 / p99 | CLI after a change p50 | CLI max RSS | sqlite3 CLI FTS5 p50 | rg p50 | cache size |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range sizes {
		row, err := searchRow(ctx, n, bin, runs, nq)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		fmt.Println(row)
	}
	fmt.Println()
	return nil
}

func searchRow(ctx context.Context, n int, bin string, runs, nq int) (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if out, err := (git.Cmd{}).Combined(context.Background(), "init", "-q", dir); err != nil {
		return "", fmt.Errorf("git init: %v: %s", err, out)
	}
	qs, err := writeCorpus(dir, n, nq)
	if err != nil {
		return "", err
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return "", err
	}
	defer s.Close()
	start := time.Now()
	if _, err := s.Reindex(ctx); err != nil {
		return "", err
	}
	rebuild := time.Since(start)
	lat := map[string][]time.Duration{}
	for _, mode := range []string{"keyword", "semantic", "hybrid"} {
		// One warm-up query loads the vectors, as a long-lived process would.
		if _, err := s.SearchIndexed(ctx, contextfs.Query{Text: qs[0], Mode: mode}); err != nil {
			return "", err
		}
		for _, q := range qs {
			t := time.Now()
			if _, err := s.SearchIndexed(ctx, contextfs.Query{Text: q, Mode: mode}); err != nil {
				return "", err
			}
			lat[mode] = append(lat[mode], time.Since(t))
		}
	}
	mqs := make([]string, len(qs))
	for i, q := range qs {
		mqs[i] = cache.MatchQuery(q)
	}
	// A CLI process is measured as users run it: with no other process
	// holding the cache open (an open connection pins the WAL, and every
	// process then reads through it).
	s.Close()
	var cli, watched, changed []time.Duration
	var rss int64
	// Child processes inherit the mode: off first, so that no search
	// starts a watcher.
	os.Setenv("CONTEXTFS_WATCH", "off")
	for i := 0; i < runs; i++ {
		d, r, err := timeCmd(dir, bin, "search", "--json", qs[i%len(qs)])
		if err != nil {
			return "", err
		}
		cli = append(cli, d)
		rss = max(rss, r)
	}
	// With the watcher: started explicitly, one search to store its first
	// token, then timed searches; then searches each right after an edit.
	os.Setenv("CONTEXTFS_WATCH", "on")
	defer os.Unsetenv("CONTEXTFS_WATCH")
	if _, _, err := timeCmd(dir, bin, "watch", "start"); err != nil {
		return "", err
	}
	defer exec.Command(bin, "-C", dir, "watch", "stop").Run()
	for i := -1; i < runs; i++ {
		d, r, err := timeCmd(dir, bin, "search", "--json", qs[(i+len(qs))%len(qs)])
		if err != nil {
			return "", err
		}
		if i >= 0 {
			watched = append(watched, d)
			rss = max(rss, r)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*", "*.md"))
	for i := 0; i < min(10, len(files)); i++ {
		f, err := os.OpenFile(files[i*len(files)/10], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(f, "\nEdited %d for the benchmark.\n", i)
		f.Close()
		d, _, err := timeCmd(dir, bin, "search", "--json", qs[i%len(qs)])
		if err != nil {
			return "", err
		}
		changed = append(changed, d)
	}
	db := filepath.Join(dir, ".git", "contextfs", cache.DBFile)
	_ = db
	var sq, rg []time.Duration
	for i := 0; i < runs; i++ {
		q := qs[i%len(qs)]
		fts := cache.FTSTable(cache.KindMemory)
		mq := mqs[i%len(qs)]
		sql := fmt.Sprintf("SELECT rowid FROM %s WHERE %s MATCH '%s' ORDER BY bm25(%s, %s) LIMIT 10;", fts, fts, strings.ReplaceAll(mq, "'", "''"), fts, cache.BM25Weights)
		if d, _, err := timeCmd(dir, "sqlite3", db, sql); err == nil {
			sq = append(sq, d)
		}
		args := []string{"-i", "-l", "--no-messages"}
		for _, w := range strings.Fields(q) {
			args = append(args, "-e", w)
		}
		if d, _, err := timeCmd(dir, "rg", append(args, ".contextfs")...); err == nil || isExit1(err) {
			rg = append(rg, d)
		}
	}
	size := dirSize(filepath.Join(dir, ".git", "contextfs"))
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %.0f MB | %s | %s | %.0f MB |", humanN(n), ms(rebuild),
		pp(lat["keyword"]), pp(lat["semantic"]), pp(lat["hybrid"]), pp(watched), pp(cli), p50s(changed), float64(rss)/1024, p50s(sq), p50s(rg), float64(size)/1e6), nil
}

func isExit1(err error) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && ee.ExitCode() == 1
}

// timeCmd runs a command and returns its wall time and, for
// git-contextfs, its peak RSS in KiB as it reports it: the rusage of a
// child also counts the memory of the parent it was forked from (this
// benchmark, hundreds of MB at 100K memories).
func timeCmd(dir, name string, args ...string) (time.Duration, int64, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CONTEXTFS_PEAK_RSS=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	var rss int64
	if i := strings.LastIndex(string(out), "contextfs: peak RSS "); i >= 0 {
		fmt.Sscanf(string(out[i+len("contextfs: peak RSS "):]), "%d", &rss)
	}
	if err != nil && !isExit1(err) {
		return d, rss, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
	}
	return d, rss, err
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p * float64(len(s)-1))
	return s[i]
}

func pp(ds []time.Duration) string { return ms(pct(ds, 0.5)) + " / " + ms(pct(ds, 0.99)) }

func p50s(ds []time.Duration) string {
	if len(ds) == 0 {
		return "n/a"
	}
	return ms(pct(ds, 0.5))
}

func ms(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/1e6)
}

func humanN(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + "K"
	}
	return strconv.Itoa(n)
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func goVersion() string {
	out, err := exec.Command("go", "version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
