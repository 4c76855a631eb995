package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/contextfs/contextfs/internal/git"
)

// benchList times `list` at each size, without and with the watcher: the
// default page and `list --json --all` (every memory, with its peak RSS),
// against `git log --oneline -n N` on a repository of N commits built in
// the same run, all interleaved. With base, a second binary (the one
// before a change) runs beside bin on its own copy of the corpus.
func benchList(ctx context.Context, sizes []int, bin, base string, runs int) error {
	fmt.Println("## list")
	fmt.Println()
	fmt.Println("CLI `list --json` (the default page of 100) and `list --json --all` (every memory) against `git log --oneline -n N` on a repository of N commits, interleaved runs in one session, medians, from process start to exit, output through a pipe. No watcher: `CONTEXTFS_WATCH=off`, the command stats every memory file. Watcher: one runs; it answers the page itself (warm) and tells `--all`, which runs in the command, what changed; the CPU is the command's plus the watcher's, read from /proc before and after and divided by the runs. CPU is user + system from getrusage; RSS is the command's peak. The target: `list --json --all` RSS ≤ 40 MB and time ≤ 3 × git log's.")
	fmt.Println()
	fmt.Println("| memories | binary | mode | page wall / CPU | --all wall / CPU | --all peak RSS | git log wall / CPU | --all ÷ git log (wall, CPU) |")
	fmt.Println("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range sizes {
		rows, err := listRows(ctx, n, bin, base, runs)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		for _, r := range rows {
			fmt.Println(r)
		}
	}
	fmt.Println()
	return nil
}

// listSide is one binary's corpus and, per mode, its timings.
type listSide struct {
	name, bin, dir string
	watcher        int // pid
	page, all      [2]listTimes
	rss            [2]int64 // KB, of --all
}

// listTimes are the walls and CPUs of runs of one command, and the
// watcher's CPU during them.
type listTimes struct {
	wall, cpu []time.Duration
	daemon    time.Duration
}

func listRows(ctx context.Context, n int, bin, base string, runs int) ([]string, error) {
	sides := []*listSide{{name: "this", bin: bin}}
	if base != "" {
		sides = append(sides, &listSide{name: "base", bin: base})
	}
	env := append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com")
	for _, sd := range sides {
		dir, err := os.MkdirTemp("", "contextfs-bench-list-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		sd.dir = dir
		if out, err := (git.Cmd{}).Combined(ctx, "init", "-q", dir); err != nil {
			return nil, fmt.Errorf("git init: %v: %s", err, out)
		}
		if _, err := writeCorpus(dir, n, 0); err != nil {
			return nil, err
		}
		if _, _, _, err := runList(sd.dir, append(env, "CONTEXTFS_WATCH=off"), sd.bin, "reindex"); err != nil {
			return nil, err
		}
	}
	logDir, err := commitsRepo(ctx, n)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(logDir)
	modes := [2][]string{{"CONTEXTFS_WATCH=off"}, {"CONTEXTFS_WATCH=on"}}
	for _, sd := range sides {
		if _, _, _, err := runList(sd.dir, append(env, modes[1]...), sd.bin, "watch", "start"); err != nil {
			return nil, err
		}
		defer runList(sd.dir, env, sd.bin, "watch", "stop")
		if sd.watcher, err = watcherPID(sd.dir, sd.bin, env); err != nil {
			return nil, err
		}
		for _, m := range modes { // warm-up: the page cache, the watcher's stores
			for _, args := range [][]string{{"list", "--json"}, {"list", "--json", "--all"}} {
				if _, _, _, err := runList(sd.dir, append(env, m...), sd.bin, args...); err != nil {
					return nil, err
				}
			}
		}
	}
	var gw, gc []time.Duration
	for range runs {
		for m, extra := range modes {
			for _, sd := range sides {
				for _, c := range []struct {
					t    *listTimes
					args []string
				}{{&sd.page[m], []string{"list", "--json"}}, {&sd.all[m], []string{"list", "--json", "--all"}}} {
					before := procCPU(sd.watcher)
					w, cpu, rss, err := runList(sd.dir, append(env, extra...), sd.bin, c.args...)
					if err != nil {
						return nil, err
					}
					c.t.daemon += procCPUSettled(sd.watcher) - before
					c.t.wall, c.t.cpu = append(c.t.wall, w), append(c.t.cpu, cpu)
					if len(c.args) == 3 {
						sd.rss[m] = max(sd.rss[m], rss)
					}
				}
			}
		}
		w, cpu, _, err := runList(logDir, env, "git", "log", "--oneline", "-n", fmt.Sprint(n))
		if err != nil {
			return nil, err
		}
		gw, gc = append(gw, w), append(gc, cpu)
	}
	var rows []string
	glog := p50s(gw) + " / " + p50s(gc)
	for m, mode := range []string{"no watcher", "watcher"} {
		for _, sd := range sides {
			// The watcher's share is counted only where it runs.
			wallCPU := func(t listTimes) (time.Duration, time.Duration, string) {
				cpu := pct(t.cpu, 0.5)
				if m == 1 {
					cpu += t.daemon / time.Duration(runs)
				}
				return pct(t.wall, 0.5), cpu, ms(pct(t.wall, 0.5)) + " / " + ms(cpu)
			}
			_, _, page := wallCPU(sd.page[m])
			aw, ac, all := wallCPU(sd.all[m])
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %.0f MB | %s | %.1f×, %.1f× |", humanN(n), sd.name, mode,
				page, all, float64(sd.rss[m])/1024, glog, float64(aw)/float64(pct(gw, 0.5)), float64(ac)/float64(pct(gc, 0.5))))
		}
	}
	return rows, nil
}

// runList runs name with args in dir under env, its output read through a
// pipe, and returns its wall and CPU time and peak RSS in KB.
func runList(dir string, env []string, name string, args ...string) (wall, cpu time.Duration, rss int64, err error) {
	c := exec.Command(name, args...)
	c.Dir, c.Env = dir, env
	var errb bytes.Buffer
	c.Stdout, c.Stderr = io.Discard, &errb
	start := time.Now()
	err = c.Run()
	wall = time.Since(start)
	if err != nil {
		return wall, 0, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, errb.Bytes())
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	return wall, time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Maxrss, nil
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
