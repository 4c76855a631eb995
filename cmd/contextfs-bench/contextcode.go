package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
)

// codeTasks are tasks that match this project's README and docs as well
// as memories: with the code index built, a task's search finds doc and
// code chunks, which the block must leave out of its memory sections
// (issue 32, item 1) without costing the call its speed.
var codeTasks = []string{
	"how the context block fits its token budget",
	"register repositories and search across them",
	"duplicate thresholds measured at save",
	"release checklist and changelog",
	"the MCP server's tools and their arguments",
}

// benchContextCode measures MCP get_context with and without a task in a
// repository whose code and docs are indexed: the agents benchmark's
// repository (the synthetic corpus, memories attached to code, a feature
// branch) with this project's README, docs and some of its Go packages
// committed beside it, then reindexed and code-indexed as the first
// search would. Tasks alternate between the corpus's queries and tasks
// that match the docs; each call is timed in one long-lived server
// (in-process transport), round-robin, after a warm-up call of each.
func benchContextCode(ctx context.Context, rep *report, sizes []int, bin string, runs int) error {
	fmt.Println("## Context block with indexed code")
	fmt.Println()
	fmt.Println("The agents benchmark's repository with this project's README, docs and some Go packages committed and code-indexed (doc and code chunks then answer a task's search beside the memories). " +
		"MCP `get_context` without a task and with one (the corpus's queries and tasks that match the docs, alternating), round-robin in one long-lived server, warm: p50 / p99 over the calls, and the p50 of the CPU time the process spent in each call (getrusage). " +
		"Each row without the change watcher (`CONTEXTFS_WATCH=off`: every memory file is stat'ed on every call) and with it (the default from 10,000 memory files).")
	fmt.Println()
	fmt.Println("| memories | code chunks | watcher | get_context p50 / p99 (CPU p50) | get_context with task p50 / p99 (CPU p50) |")
	fmt.Println("| ---: | ---: | --- | ---: | ---: |")
	for _, n := range sizes {
		rows, err := contextCodeRows(ctx, rep, n, bin, runs)
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

func contextCodeRows(ctx context.Context, rep *report, n int, bin string, runs int) ([]string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-code-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	chunks, tasks, err := contextCodeRepo(ctx, dir, n, runs)
	if err != nil {
		return nil, err
	}
	defer os.Unsetenv("CONTEXTFS_WATCH")
	var rows []string
	for _, mode := range []string{"off", "on"} {
		os.Setenv("CONTEXTFS_WATCH", mode)
		if mode == "on" {
			if _, _, err := timeCmd(dir, bin, "watch", "start"); err != nil {
				return nil, err
			}
			defer exec.Command(bin, "-C", dir, "watch", "stop").Run()
		}
		t, err := contextCodeTimes(ctx, dir, tasks)
		if err != nil {
			return nil, fmt.Errorf("watcher %s: %w", mode, err)
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s (%s) | %s (%s) |", humanN(n), chunks, mode,
			pp(t.plain), ms(pct(t.plainCPU, 0.5)), pp(t.task), ms(pct(t.taskCPU, 0.5))))
		if mode == "on" && n == 10000 {
			wall, cpu := pct(t.task, 0.5), pct(t.taskCPU, 0.5)
			met, note := wallTarget(wall, cpu, 10*time.Millisecond)
			rep.add(target{Issue: 32, What: fmt.Sprintf("MCP `get_context` with a task, 10K memories, %d code chunks indexed, watcher on", chunks),
				Goal: "≤ 10 ms wall", Wall: wall, CPU: cpu, Baseline: "without a task " + ms(pct(t.plain, 0.5)), Met: met, Note: note})
		}
	}
	return rows, nil
}

// contextCodeRepo writes the repository into dir, indexes it and returns
// its code chunks and the tasks to ask.
func contextCodeRepo(ctx context.Context, dir string, n, runs int) (int, []string, error) {
	qs, err := agentsRepo(ctx, dir, n, max(runs, 10))
	if err != nil {
		return 0, nil, err
	}
	if err := copyProjectFiles(ctx, dir); err != nil {
		return 0, nil, err
	}
	if _, err := git.Run(ctx, dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "add", "-A"); err != nil {
		return 0, nil, err
	}
	if _, err := git.Run(ctx, dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "code and docs"); err != nil {
		return 0, nil, err
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return 0, nil, err
	}
	if _, err := s.Reindex(ctx); err != nil {
		s.Close()
		return 0, nil, err
	}
	res, err := s.Index(ctx, contextfs.IndexOptions{Summary: true})
	s.Close()
	if err != nil {
		return 0, nil, err
	}
	var tasks []string
	for i := range runs {
		if i%2 == 0 {
			tasks = append(tasks, codeTasks[(i/2)%len(codeTasks)])
		} else {
			tasks = append(tasks, qs[(i/2)%len(qs)])
		}
	}
	return res.Chunks, tasks, nil
}

// contextTimes are the calls' wall and CPU times, without and with a task.
type contextTimes struct {
	plain, task, plainCPU, taskCPU []time.Duration
}

// contextCodeTimes times get_context without and with a task, round-robin
// over tasks, in one long-lived server.
func contextCodeTimes(ctx context.Context, dir string, tasks []string) (contextTimes, error) {
	var ts contextTimes
	cs, done, err := mcpSession(ctx, dir)
	if err != nil {
		return ts, err
	}
	defer done()
	for i := -1; i < len(tasks); i++ {
		t, c := time.Now(), selfCPU()
		if err := callTool(ctx, cs, "get_context", map[string]any{}); err != nil {
			return ts, err
		}
		a, ac := time.Since(t), selfCPU()-c
		q := tasks[max(i, 0)]
		t, c = time.Now(), selfCPU()
		if err := callTool(ctx, cs, "get_context", map[string]any{"task": q}); err != nil {
			return ts, fmt.Errorf("task %q: %w", q, err)
		}
		b, bc := time.Since(t), selfCPU()-c
		if i >= 0 {
			ts.plain, ts.task = append(ts.plain, a), append(ts.task, b)
			ts.plainCPU, ts.taskCPU = append(ts.plainCPU, ac), append(ts.taskCPU, bc)
		}
	}
	return ts, nil
}

// selfCPU is the CPU time (user and system) this process has used: the
// server is in it, so a call's share is the difference, which the other
// programs on a busy machine do not inflate as they do the wall time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// copyProjectFiles copies this project's README, docs and the Go files
// of a few packages (the benchmark runs in the module's root) into dir.
func copyProjectFiles(ctx context.Context, dir string) error {
	out, err := git.Output(ctx, ".", "ls-files", "README.md", "docs/*.md", "internal/contextblock/*.go", "internal/dedup/*.go", "internal/scope/*.go", "internal/search/*.go", "internal/workflow/*.go")
	if err != nil {
		return fmt.Errorf("list this project's files (run from the module's root): %w", err)
	}
	for _, f := range strings.Fields(out) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, "project", filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}
