package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/contextfs/contextfs/internal/git"
)

// benchWarm compares a CLI search with `git status` on the same
// repository (issue 16's target: p50 ≤ 2×), the search answered by the
// running watcher (warm, the default once a watcher runs) and done by the
// process itself (cold, CONTEXTFS_WARM=off), in interleaved runs.
func benchWarm(ctx context.Context, sizes []int, bin string, runs, nq int) error {
	fmt.Println("## CLI search against git status")
	fmt.Println()
	fmt.Println("The same repository (memory files committed), interleaved runs, medians. Warm: `search --json` answered by the running watcher, which keeps the stores open (the default once a watcher runs); its CPU is the command's plus the watcher's, read from /proc before and after the runs and divided by their number. Cold: `CONTEXTFS_WARM=off`, the command does the work itself, with the watcher saying what changed; no watcher: `CONTEXTFS_WATCH=off`. CPU is user + system from getrusage.")
	fmt.Println()
	fmt.Println("| memories | warm wall / CPU | cold, watcher wall / CPU | cold, no watcher wall / CPU | git status wall / CPU | warm ÷ git status (wall, CPU) | cold ÷ git status (wall, CPU) |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range sizes {
		row, err := warmRow(ctx, n, bin, runs, nq)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		fmt.Println(row)
	}
	fmt.Println()
	return nil
}

func warmRow(ctx context.Context, n int, bin string, runs, nq int) (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-warm-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	g := git.Cmd{Dir: dir}
	if out, err := g.Combined(ctx, "init", "-q"); err != nil {
		return "", fmt.Errorf("git init: %v: %s", err, out)
	}
	qs, err := writeCorpus(dir, n, nq)
	if err != nil {
		return "", err
	}
	env := append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "CONTEXTFS_WATCH=on")
	for _, args := range [][]string{{"git", "add", "-A"}, {"git", "commit", "-qm", "corpus"}, {bin, "reindex"}} {
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%v: %v: %s", args, err, out)
		}
	}
	pid, stop, err := startWatcher(dir, bin, env)
	if err != nil {
		return "", err
	}
	defer stop()
	run := func(extra []string, name string, args ...string) (time.Duration, time.Duration, error) {
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, append(env, extra...)
		start := time.Now()
		out, err := c.CombinedOutput()
		wall := time.Since(start)
		if err != nil && !isExit1(err) {
			return 0, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
		}
		ru := c.ProcessState.SysUsage().(*syscall.Rusage)
		return wall, time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
	}
	// Warm-up: the watcher opens its stores; the page cache holds the files.
	for i := 0; i < 3; i++ {
		if _, _, err := run(nil, bin, "search", "--json", qs[i%len(qs)]); err != nil {
			return "", err
		}
	}
	var ww, wc, cw, cc, nw, nc, gw, gc []time.Duration
	var daemon time.Duration
	for i := 0; i < runs; i++ {
		q := qs[i%len(qs)]
		before := procCPU(pid)
		w, c, err := run([]string{"CONTEXTFS_WARM=only"}, bin, "search", "--json", q)
		if err != nil {
			return "", err
		}
		daemon += procCPUSettled(pid) - before
		ww, wc = append(ww, w), append(wc, c)
		if w, c, err = run([]string{"CONTEXTFS_WARM=off"}, bin, "search", "--json", q); err != nil {
			return "", err
		}
		cw, cc = append(cw, w), append(cc, c)
		if w, c, err = run([]string{"CONTEXTFS_WATCH=off"}, bin, "search", "--json", q); err != nil {
			return "", err
		}
		nw, nc = append(nw, w), append(nc, c)
		if w, c, err = run(nil, "git", "status"); err != nil {
			return "", err
		}
		gw, gc = append(gw, w), append(gc, c)
	}
	perRun := daemon / time.Duration(runs)
	warmCPU := pct(wc, 0.5) + perRun
	ratio := func(a, b time.Duration) string { return fmt.Sprintf("%.1f×", float64(a)/float64(b)) }
	pair := func(w, c []time.Duration) string { return p50s(w) + " / " + p50s(c) }
	return fmt.Sprintf("| %s | %s / %s (+%s watcher) | %s | %s | %s | %s, %s | %s, %s |", humanN(n),
		p50s(ww), p50s(wc), ms(perRun), pair(cw, cc), pair(nw, nc), pair(gw, gc),
		ratio(pct(ww, 0.5), pct(gw, 0.5)), ratio(warmCPU, pct(gc, 0.5)),
		ratio(pct(cw, 0.5), pct(gw, 0.5)), ratio(pct(cc, 0.5), pct(gc, 0.5))), nil
}

// startWatcher starts the watcher of the repository at dir with env and
// returns its process id and a func that stops it.
func startWatcher(dir, bin string, env []string) (pid int, stop func(), err error) {
	c := exec.Command(bin, "watch", "start")
	c.Dir, c.Env = dir, env
	if out, err := c.CombinedOutput(); err != nil {
		return 0, nil, fmt.Errorf("watch start: %v: %s", err, out)
	}
	stop = func() {
		c := exec.Command(bin, "watch", "stop")
		c.Dir, c.Env = dir, env
		c.Run()
	}
	if pid, err = watcherPID(dir, bin, env); err != nil {
		stop()
		return 0, nil, err
	}
	return pid, stop, nil
}

// watcherPID asks `watch status --json` for the watcher's process id.
func watcherPID(dir, bin string, env []string) (int, error) {
	c := exec.Command(bin, "watch", "status", "--json")
	c.Dir, c.Env = dir, env
	out, err := c.Output()
	if err != nil {
		return 0, fmt.Errorf("watch status: %v", err)
	}
	i := strings.Index(string(out), `"pid":`)
	if i < 0 {
		return 0, fmt.Errorf("watch status: no pid in %s", out)
	}
	var pid int
	fmt.Sscanf(strings.TrimSpace(string(out[i+len(`"pid":`):])), "%d", &pid)
	return pid, nil
}

// daemonSettle is how long the benchmarks wait after a command before
// reading the watcher's CPU time: a watcher finishes some of a command's
// work after answering it (it prepares the next search once the memories
// have changed), and that work is the command's.
const daemonSettle = 20 * time.Millisecond

// procCPUSettled is procCPU once the watcher has had daemonSettle to
// finish what a command left it.
func procCPUSettled(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	time.Sleep(daemonSettle)
	return procCPU(pid)
}

// procCPU is the user + system CPU time of process pid so far, from
// /proc/PID/stat (in clock ticks of 10 ms: sums over many runs).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
