package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/git"
	"github.com/contextfs/contextfs/mcpserver"
)

// benchSave times saves against their two yardsticks, in the same run:
// through the CLI, `save` with the duplicate and contradiction checks
// (--dedup allow: checked, then written, so every run writes one file),
// without them (--dedup off) and `search`, alternating; through a
// long-lived MCP server, save_memory (checks on) against search_memory.
// The CLI runs as users run it at each size: from 10,000 memories with
// the change watcher (the auto mode's default there).
//
// With base set (-save-base), a second binary runs the same CLI commands
// on the same corpus, interleaved with bin's, for a before/after in one
// run; its row is marked "base".
func benchSave(ctx context.Context, sizes, bin, base string, runs int) error {
	var cli, srv []string
	if base != "" {
		var err error
		if base, err = filepath.Abs(base); err != nil {
			return err
		}
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-sizes: %w", err)
		}
		c, m, err := saveRow(ctx, n, bin, base, runs)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		cli, srv = append(cli, c...), append(srv, m)
	}
	fmt.Println("## Save")
	fmt.Println()
	fmt.Println("CLI `git-contextfs save --type decision` from process start to exit on a warm cache, alternating `--dedup allow` (the duplicate and contradiction checks run, then the memory is written), `--dedup off` (no check) and `search --json`; wall time, and CPU time (user + system) in brackets. Targets: save with the checks ≤ 1.5 × without (issue 12); save ≤ 1.2 × search (issue 16).")
	fmt.Println()
	fmt.Println("| memories | runs | save, checks p50 / p99 | save, no checks p50 / p99 | search p50 / p99 | checks ÷ no checks, p50 | save ÷ search, p50 |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range cli {
		fmt.Println(r)
	}
	fmt.Println()
	fmt.Println("MCP: one long-lived server (in-memory transport), `save_memory` (checks on, each text new) and `search_memory`, alternating. Target: save ≤ 2 × search (issue 16).")
	fmt.Println()
	fmt.Println("| memories | calls | MCP save p50 / p99 | MCP search p50 / p99 | save ÷ search, p50 |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: |")
	for _, r := range srv {
		fmt.Println(r)
	}
	fmt.Println()
	return nil
}

func saveRow(ctx context.Context, n int, bin, base string, runs int) (cliRows []string, mcpRow string, err error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-save-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	// No user store or registered repositories of the person running it.
	for _, kv := range [][2]string{
		{"XDG_CONFIG_HOME", dir + "/xdg-config"}, {"XDG_DATA_HOME", dir + "/xdg-data"}, {"CONTEXTFS_USER_DIR", ""},
	} {
		defer os.Setenv(kv[0], os.Getenv(kv[0]))
		os.Setenv(kv[0], kv[1])
	}
	repo := dir + "/repo"
	if out, err := (git.Cmd{}).Combined(context.Background(), "init", "-q", repo); err != nil {
		return nil, "", fmt.Errorf("git init: %v: %s", err, out)
	}
	dir = repo
	qs, err := writeCorpus(dir, n, 20)
	if err != nil {
		return nil, "", err
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return nil, "", err
	}
	if _, err := s.Reindex(ctx); err != nil {
		s.Close()
		return nil, "", err
	}
	s.Close()
	mode := "off"
	if n >= contextfs.WatchAutoFiles {
		mode = "on"
	}
	os.Setenv("CONTEXTFS_WATCH", mode)
	defer os.Unsetenv("CONTEXTFS_WATCH")
	if mode == "on" {
		if _, _, err := timeCmd(dir, bin, "watch", "start"); err != nil {
			return nil, "", err
		}
		defer exec.Command(bin, "-C", dir, "watch", "stop").Run()
	}
	bins := []string{bin}
	if base != "" {
		bins = append(bins, base)
	}
	type times struct{ with, without, search cpuTimes }
	ts := make([]times, len(bins))
	for i := -1; i < runs; i++ { // the first round warms the page cache
		for b, exe := range bins {
			for _, policy := range []string{"allow", "off", "search"} {
				text := fmt.Sprintf("Decision %d (%s, %d): route %s traffic through the gateway pool, version %d.", i, policy, b, policy, i*7+len(policy))
				args := []string{"save", "--type", "decision", "--dedup", policy, text}
				if policy == "search" {
					args = []string{"search", "--json", qs[(i+len(qs))%len(qs)]}
				}
				w, c, err := timeCPU(dir, exe, args...)
				if err != nil {
					return nil, "", err
				}
				if i < 0 {
					continue
				}
				switch policy {
				case "allow":
					ts[b].with.add(w, c)
				case "off":
					ts[b].without.add(w, c)
				default:
					ts[b].search.add(w, c)
				}
			}
		}
	}
	for b, t := range ts {
		label := humanN(n)
		if b > 0 {
			label += " (base)"
		}
		cliRows = append(cliRows, fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s |", label, runs, t.with, t.without, t.search, t.with.ratio(t.without), t.with.ratio(t.search)))
	}

	mcpRow, err = mcpSaveRow(ctx, dir, n, qs, runs)
	return cliRows, mcpRow, err
}

// mcpSaveRow times save_memory against search_memory on one server.
func mcpSaveRow(ctx context.Context, dir string, n int, qs []string, runs int) (string, error) {
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return "", err
	}
	defer s.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(s, mcpserver.Options{Version: "bench"}).Connect(ctx, st, nil)
	if err != nil {
		return "", err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	calls := max(runs, 50)
	var save, search []time.Duration
	for i := -1; i < calls; i++ {
		t := time.Now()
		text := fmt.Sprintf("Decision %d over MCP: shard tenant %d across the replica pool, version %d.", i, i*13, i*7)
		if err := callTool(ctx, cs, "save_memory", map[string]any{"type": "decision", "content": text}); err != nil {
			return "", err
		}
		d := time.Since(t)
		t = time.Now()
		if err := callTool(ctx, cs, "search_memory", map[string]any{"query": qs[(i+len(qs))%len(qs)]}); err != nil {
			return "", err
		}
		if i >= 0 {
			save, search = append(save, d), append(search, time.Since(t))
		}
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %.2f× |", humanN(n), calls, pp(save), pp(search),
		float64(pct(save, 0.5))/float64(max(1, pct(search, 0.5)))), nil
}

// cpuTimes are the wall and CPU times of one command's runs.
type cpuTimes struct{ wall, cpu []time.Duration }

func (t *cpuTimes) add(wall, cpu time.Duration) {
	t.wall, t.cpu = append(t.wall, wall), append(t.cpu, cpu)
}

// String is "p50 / p99 (CPU p50)".
func (t cpuTimes) String() string { return pp(t.wall) + " (" + ms(pct(t.cpu, 0.5)) + ")" }

// ratio is the ratio of two commands' p50s, wall (CPU).
func (t cpuTimes) ratio(u cpuTimes) string {
	r := func(a, b []time.Duration) float64 { return float64(pct(a, 0.5)) / float64(max(1, pct(b, 0.5))) }
	return fmt.Sprintf("%.2f× (%.2f×)", r(t.wall, u.wall), r(t.cpu, u.cpu))
}

// timeCPU runs a command and returns its wall time and its CPU time (user
// and system, its own and its children's, from wait4's rusage).
func timeCPU(dir, name string, args ...string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil && !isExit1(err) {
		return wall, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
	}
	if ps := cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	return wall, cpu, nil
}
