package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/git"
)

// benchSave times `git-contextfs save` on a warm cache with the duplicate
// and contradiction checks (--dedup allow: checked, then written, so every
// run writes one file) and without them (--dedup off), alternating the two
// so that both see the same machine and the same growing corpus.
func benchSave(ctx context.Context, sizes, bin string, runs int) error {
	fmt.Println("## Save with and without the checks at save")
	fmt.Println()
	fmt.Println("CLI `git-contextfs save --type decision` from process start to exit on a warm cache, alternating `--dedup allow` (the duplicate and contradiction checks run, then the memory is written) and `--dedup off` (no check). The issue's target: p50 with the checks ≤ 1.5 × without.")
	fmt.Println()
	fmt.Println("| memories | runs | with checks p50 / p99 | without p50 / p99 | ratio of p50s |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: |")
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-sizes: %w", err)
		}
		row, err := saveRow(ctx, n, bin, runs)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		fmt.Println(row)
	}
	fmt.Println()
	return nil
}

func saveRow(ctx context.Context, n int, bin string, runs int) (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-save-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if out, err := (git.Cmd{}).Combined(context.Background(), "init", "-q", dir); err != nil {
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
	var with, without []time.Duration
	for i := range runs {
		for _, policy := range []string{"allow", "off"} {
			text := fmt.Sprintf("Decision %d (%s): route %s traffic through the gateway pool, version %d.", i, policy, policy, i*7+len(policy))
			d, _, err := timeCmd(dir, bin, "save", "--type", "decision", "--dedup", policy, text)
			if err != nil {
				return "", err
			}
			if policy == "allow" {
				with = append(with, d)
			} else {
				without = append(without, d)
			}
		}
	}
	ratio := float64(pct(with, 0.5)) / float64(pct(without, 0.5))
	return fmt.Sprintf("| %s | %d | %s | %s | %.2f× |", humanN(n), runs, pp(with), pp(without), ratio), nil
}
