package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/git"
)

// benchList times `list` at each size: the default page, `--json --all`
// (every memory, with its peak RSS), against `git log --oneline -n N` on a
// repository of N commits built in the same run, alternating.
func benchList(ctx context.Context, sizes []int, bin string, runs int) error {
	fmt.Println("## list")
	fmt.Println()
	fmt.Println("CLI `list` (the default page of 100), `list --json --all` (every memory) and `git log --oneline -n N` on a repository of N commits, alternating, watcher off, from process start to exit. CPU is user + system from getrusage. The target: `list --json --all` RSS ≤ 40 MB and time ≤ 3 × git log's.")
	fmt.Println()
	fmt.Println("| memories | list p50 (CPU) | list --json --all p50 (CPU) | its peak RSS | git log p50 (CPU) | ratio of wall p50s |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range sizes {
		row, err := listRow(ctx, n, bin, runs)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		fmt.Println(row)
	}
	fmt.Println()
	return nil
}

func listRow(ctx context.Context, n int, bin string, runs int) (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-list-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if out, err := (git.Cmd{}).Combined(ctx, "init", "-q", dir); err != nil {
		return "", fmt.Errorf("git init: %v: %s", err, out)
	}
	if _, err := writeCorpus(dir, n, 0); err != nil {
		return "", err
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return "", err
	}
	if _, err := s.Reindex(ctx); err != nil {
		s.Close()
		return "", err
	}
	s.Close()
	logDir, err := commitsRepo(ctx, n)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(logDir)
	os.Setenv("CONTEXTFS_WATCH", "off")
	defer os.Unsetenv("CONTEXTFS_WATCH")
	var page, pageCPU, all, allCPU, glog, glogCPU []time.Duration
	var rss int64
	for range runs {
		w, c, err := cpuCmd(dir, bin, "list")
		if err != nil {
			return "", err
		}
		page, pageCPU = append(page, w), append(pageCPU, c)
		d, r, err := timeCmd(dir, bin, "list", "--json", "--all")
		if err != nil {
			return "", err
		}
		_, c, err = cpuCmd(dir, bin, "list", "--json", "--all")
		if err != nil {
			return "", err
		}
		all, allCPU, rss = append(all, d), append(allCPU, c), max(rss, r)
		w, c, err = cpuCmd(logDir, "git", "log", "--oneline", "-n", fmt.Sprint(n))
		if err != nil {
			return "", err
		}
		glog, glogCPU = append(glog, w), append(glogCPU, c)
	}
	return fmt.Sprintf("| %s | %s (%s) | %s (%s) | %.0f MB | %s (%s) | %.1f× |", humanN(n),
		ms(pct(page, 0.5)), ms(pct(pageCPU, 0.5)), ms(pct(all, 0.5)), ms(pct(allCPU, 0.5)), float64(rss)/1024,
		ms(pct(glog, 0.5)), ms(pct(glogCPU, 0.5)), float64(pct(all, 0.5))/float64(pct(glog, 0.5))), nil
}

// commitsRepo makes a repository of n commits, one small file each, with
// git fast-import (seconds, where n `git commit`s would take minutes).
func commitsRepo(ctx context.Context, n int) (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-log-")
	if err != nil {
		return "", err
	}
	if out, err := (git.Cmd{}).Combined(ctx, "init", "-q", dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("git init: %v: %s", err, out)
	}
	var b bytes.Buffer
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := range n {
		content := fmt.Sprintf("change %d\n", i)
		msg := fmt.Sprintf("Change number %d of the benchmark history", i)
		fmt.Fprintf(&b, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", when+int64(i), len(msg), msg)
		fmt.Fprintf(&b, "M 100644 inline file%d.txt\ndata %d\n%s\n", i%1000, len(content), content)
	}
	if _, err := (git.Cmd{Dir: dir, Stdin: &b}).Run(ctx, "fast-import", "--quiet"); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if out, err := (git.Cmd{Dir: dir}).Combined(ctx, "symbolic-ref", "HEAD", "refs/heads/main"); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("git symbolic-ref: %v: %s", err, out)
	}
	return dir, nil
}
