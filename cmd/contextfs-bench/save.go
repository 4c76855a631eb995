package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
)

// benchSave times saves against their two yardsticks, in the same run:
// through the CLI, `save` with the duplicate and contradiction checks
// (--dedup allow: checked, then written, so every run writes one file),
// without them (--dedup off) and `search`, alternating; through a
// long-lived MCP server, save_memory (checks on) against search_memory.
//
// The CLI runs as users run it at each size. From 10,000 memories the
// change watcher runs (the auto mode's default there), and each command is
// timed twice: cold (CONTEXTFS_WARM=off: the command does the work itself,
// the watcher saying what changed) and warm (CONTEXTFS_WARM=only: the
// watcher runs the command over the stores it keeps open). Below that
// there is no watcher (CONTEXTFS_WATCH=off). CPU is the command's (user +
// system, from wait4) plus the watcher's, read from /proc around each
// command and averaged over the runs.
//
// With base set (-save-base), a second binary runs the same CLI commands
// on its own copy of the corpus (its cache schema may differ) with its own
// watcher, interleaved with bin's, for a before/after in one run; its rows
// are marked "base".
func benchSave(ctx context.Context, rep *report, sizes, bin, base string, runs int) error {
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
		c, m, err := saveRow(ctx, rep, n, bin, base, runs)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		cli, srv = append(cli, c...), append(srv, m)
	}
	fmt.Println("## Save")
	fmt.Println()
	fmt.Println("CLI `git-contextfs save --type decision` from process start to exit on a warm cache, alternating `--dedup allow` (the duplicate and contradiction checks run, then the memory is written), `--dedup off` (no check) and `search --json`. From 10K memories the watcher runs: *cold* is `CONTEXTFS_WARM=off` (the command does the work itself, the watcher saying what changed), *warm* is `CONTEXTFS_WARM=only` (the watcher runs the command), *no watcher* is `CONTEXTFS_WATCH=off` (the command stats every memory file itself; the running watcher's CPU is not counted); below 10K, no watcher. p50 / p99 wall time, and in brackets the p50 CPU time (user + system) of the command plus the watcher's CPU per command (mean, from /proc). Ratios are of p50s, wall (CPU). Targets: save with the checks ≤ 1.5 × without (issue 12); save ≤ 1.2 × search (issue 16; issue 37 at 10K with no watcher).")
	fmt.Println()
	fmt.Println("| memories | answered | runs | save, checks p50 / p99 (CPU) | save, no checks p50 / p99 (CPU) | search p50 / p99 (CPU) | checks ÷ no checks, p50 | save ÷ search, p50 |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
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

// saveSide is one binary with its own copy of the corpus and, at sizes
// that have one, its own watcher.
type saveSide struct {
	label, bin, dir string
	watcher         int // process id; 0 for none
}

// saveAnswer is how a command is answered: its extra environment.
type saveAnswer struct {
	name string
	env  []string
}

func saveRow(ctx context.Context, rep *report, n int, bin, base string, runs int) (cliRows []string, mcpRow string, err error) {
	tmp, err := os.MkdirTemp("", "contextfs-bench-save-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	// No user store or registered repositories of the person running it.
	for _, kv := range [][2]string{
		{"XDG_CONFIG_HOME", tmp + "/xdg-config"}, {"XDG_DATA_HOME", tmp + "/xdg-data"}, {"CONTEXTFS_USER_DIR", ""},
	} {
		defer os.Setenv(kv[0], os.Getenv(kv[0]))
		os.Setenv(kv[0], kv[1])
	}
	dir := tmp + "/repo"
	if out, err := (git.Cmd{}).Combined(context.Background(), "init", "-q", dir); err != nil {
		return nil, "", fmt.Errorf("git init: %v: %s", err, out)
	}
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
	sides := []*saveSide{{label: humanN(n), bin: bin, dir: dir}}
	if base != "" {
		// Its own copy: another build may keep another cache schema, and
		// would rebuild a shared cache at every turn.
		if out, err := exec.Command("cp", "-a", dir, tmp+"/base").CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("copy the corpus: %v: %s", err, out)
		}
		sides = append(sides, &saveSide{label: humanN(n) + " (base)", bin: base, dir: tmp + "/base"})
	}
	mode := contextfs.WatchOff
	answers := []saveAnswer{{name: "cold"}}
	if n >= contextfs.WatchAutoFiles {
		mode = contextfs.WatchOn
		answers = []saveAnswer{{"cold", []string{"CONTEXTFS_WARM=off"}}, {"warm", []string{"CONTEXTFS_WARM=only"}},
			{"no watcher", []string{"CONTEXTFS_WATCH=off"}}}
	}
	os.Setenv("CONTEXTFS_WATCH", mode)
	defer os.Unsetenv("CONTEXTFS_WATCH")
	if mode == contextfs.WatchOn {
		for _, sd := range sides {
			if _, _, err := timeCmd(sd.dir, sd.bin, "watch", "start"); err != nil {
				return nil, "", err
			}
			defer exec.Command(sd.bin, "-C", sd.dir, "watch", "stop").Run()
			if sd.watcher, err = watcherPID(sd.dir, sd.bin, os.Environ()); err != nil {
				return nil, "", err
			}
		}
	}
	// times[side][answer][op]; ops: save with checks, without, search.
	ops := []string{"allow", "off", "search"}
	times := make([][][]cpuTimes, len(sides))
	for b := range sides {
		times[b] = make([][]cpuTimes, len(answers))
		for a := range answers {
			times[b][a] = make([]cpuTimes, len(ops))
		}
	}
	for i := -1; i < runs; i++ { // the first round warms the page cache (and builds base's cache)
		for b, sd := range sides {
			for a, ans := range answers {
				for o, op := range ops {
					text := fmt.Sprintf("Decision %d (%s, %s, %d): route %s traffic through the gateway pool, version %d.", i, op, ans.name, b, op, i*7+len(op))
					args := []string{"save", "--type", "decision", "--dedup", op, text}
					if op == "search" {
						args = []string{"search", "--json", qs[(i+len(qs))%len(qs)]}
					}
					watcher := sd.watcher
					if ans.name == "no watcher" {
						watcher = 0 // it runs, but the command does not ask it
					}
					before := procCPU(watcher)
					w, c, err := timeCPUEnv(sd.dir, ans.env, sd.bin, args...)
					if err != nil {
						return nil, "", err
					}
					daemon := procCPUSettled(watcher) - before
					if i >= 0 {
						times[b][a][o].add(w, c)
						times[b][a][o].daemon += daemon
					}
				}
			}
		}
	}
	for b, sd := range sides {
		for a, ans := range answers {
			t := times[b][a]
			cliRows = append(cliRows, fmt.Sprintf("| %s | %s | %d | %s | %s | %s | %s | %s |", sd.label, ans.name, runs,
				t[0], t[1], t[2], t[0].ratio(t[1]), t[0].ratio(t[2])))
			if b == 0 && ans.name == "no watcher" && n == contextfs.WatchAutoFiles {
				rep.add(coldSaveTarget(n, t[0], t[2]))
			}
		}
	}

	mcpRow, err = mcpSaveRow(ctx, dir, n, qs, runs)
	return cliRows, mcpRow, err
}

// mcpSaveRow times save_memory against search_memory on one server.
func mcpSaveRow(ctx context.Context, dir string, n int, qs []string, runs int) (string, error) {
	cs, done, err := mcpSession(ctx, dir)
	if err != nil {
		return "", err
	}
	defer done()
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

// cpuTimes are the wall and CPU times of one command's runs, and the CPU
// a watcher spent on them all.
type cpuTimes struct {
	wall, cpu []time.Duration
	daemon    time.Duration
}

func (t *cpuTimes) add(wall, cpu time.Duration) {
	t.wall, t.cpu = append(t.wall, wall), append(t.cpu, cpu)
}

// cpuP50 is the command's median CPU time plus the watcher's mean per run.
func (t cpuTimes) cpuP50() time.Duration {
	return pct(t.cpu, 0.5) + t.daemon/time.Duration(max(1, len(t.cpu)))
}

// String is "p50 / p99 (CPU p50)".
func (t cpuTimes) String() string { return pp(t.wall) + " (" + ms(t.cpuP50()) + ")" }

// ratio is the ratio of two commands' p50s, wall (CPU).
func (t cpuTimes) ratio(u cpuTimes) string {
	r := func(a, b time.Duration) float64 { return float64(a) / float64(max(1, b)) }
	return fmt.Sprintf("%.2f× (%.2f×)", r(pct(t.wall, 0.5), pct(u.wall, 0.5)), r(t.cpuP50(), u.cpuP50()))
}

// timeCPU runs a command and returns its wall time and its CPU time (user
// and system, its own and its children's, from wait4's rusage).
func timeCPU(dir, name string, args ...string) (wall, cpu time.Duration, err error) {
	return timeCPUEnv(dir, nil, name, args...)
}

// timeCPUEnv is timeCPU with env added to the environment.
func timeCPUEnv(dir string, env []string, name string, args ...string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	// A command told to take a warm answer that got none would be timed
	// failing fast.
	if err != nil && (!isExit1(err) || bytes.Contains(out, []byte("no warm answer"))) {
		return wall, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
	}
	if ps := cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	return wall, cpu, nil
}

// coldSaveTarget is issue 37's row: a save with its checks, with no
// watcher, costs at most 1.2 times a search in the same conditions.
func coldSaveTarget(n int, save, search cpuTimes) target {
	const limit = 1.2
	r := func(a, b time.Duration) float64 { return float64(a) / float64(max(1, b)) }
	wall, cpu := r(pct(save.wall, 0.5), pct(search.wall, 0.5)), r(save.cpuP50(), search.cpuP50())
	t := target{
		Issue:    37,
		What:     fmt.Sprintf("`save` with its checks, no watcher (`CONTEXTFS_WATCH=off`), %s memories", humanN(n)),
		Goal:     "≤ 1.2 × a search in the same conditions",
		Wall:     pct(save.wall, 0.5),
		CPU:      save.cpuP50(),
		Baseline: fmt.Sprintf("`search --json` %s (CPU %s); ratio %.2f× wall, %.2f× CPU", ms(pct(search.wall, 0.5)), ms(search.cpuP50()), wall, cpu),
		Met:      wall <= limit,
	}
	if !t.Met && cpu <= limit {
		t.Note = fmt.Sprintf("the CPU ratio %.2f× is within it; the rest of the wall time was waiting on a busy machine", cpu)
	}
	return t
}
