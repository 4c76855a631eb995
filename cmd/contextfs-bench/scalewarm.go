package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/contextfs/contextfs/internal/git"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scaleWarmMax is the largest corpus whose commands are timed end to
// end: committing a million memory files into git's index, which a warm
// search must not re-read, would take longer than the rest of the run.
const scaleWarmMax = 100000

// warmScale is what a person and an agent see at one corpus size: the CLI
// answered by a running watcher and the MCP program over stdio, each a
// real process, with the memory files committed (so git's index holds
// every one of them, as in a team's repository).
type warmScale struct {
	// FirstCPU is the watcher's CPU for the first search after it
	// started: it checks the whole cache once before it answers.
	FirstCPU time.Duration
	// CLI: `search --json` with CONTEXTFS_WARM=only, wall and the
	// command's own CPU per run; WatcherCPU is the watcher's per run
	// (mean, from /proc).
	CLIWall, CLICPU []time.Duration
	WatcherCPU      time.Duration
	// MCP: search_memory through `git-contextfs mcp`, wall per call and
	// the CPU of the server and the watcher together per call (mean).
	MCPWall []time.Duration
	MCPCPU  time.Duration
}

// scaleWarm commits the corpus at dir if it is not yet, starts its
// watcher, and times warm CLI searches and MCP search_memory calls over
// qs. The person's own user store and registered repositories are kept
// out (a temporary XDG home).
func scaleWarm(ctx context.Context, dir, bin string, qs []string) (*warmScale, error) {
	home, err := os.MkdirTemp("", "contextfs-bench-scale-home-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	env := append(os.Environ(), "XDG_CONFIG_HOME="+home+"/config", "XDG_DATA_HOME="+home+"/data", "CONTEXTFS_USER_DIR=",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "CONTEXTFS_WATCH=on")
	g := git.Cmd{Dir: dir, Env: env}
	if _, err := g.Output(ctx, "rev-parse", "--verify", "-q", "HEAD"); err != nil {
		fmt.Fprintf(os.Stderr, "scale: committing the corpus under %s\n", dir)
		for _, args := range [][]string{{"add", "-A", ".contextfs"}, {"commit", "-qm", "corpus"}} {
			if out, err := g.Combined(ctx, args...); err != nil {
				return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
			}
		}
	}
	pid, stop, err := startWatcher(dir, bin, env)
	if err != nil {
		return nil, err
	}
	defer stop()
	w := &warmScale{}
	search := func(q string) (time.Duration, time.Duration, error) {
		return timeCPUEnv(dir, append(env, "CONTEXTFS_WARM=only"), bin, "search", "--json", q)
	}
	before := procCPU(pid)
	if _, _, err := search(qs[0]); err != nil {
		return nil, err
	}
	w.FirstCPU = procCPUSettled(pid) - before
	for i := 1; i < 3; i++ { // the page cache holds what the searches read
		if _, _, err := search(qs[i%len(qs)]); err != nil {
			return nil, err
		}
	}
	n := min(len(qs), 100)
	var daemon time.Duration
	for _, q := range qs[:n] {
		before := procCPU(pid)
		wall, cpu, err := search(q)
		if err != nil {
			return nil, err
		}
		daemon += procCPUSettled(pid) - before
		w.CLIWall, w.CLICPU = append(w.CLIWall, wall), append(w.CLICPU, cpu)
	}
	w.WatcherCPU = daemon / time.Duration(n)

	// The MCP program as an agent starts it, over stdio.
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	defer cs.Close()
	for i := range 3 { // the server opens its store on the first call
		if err := callTool(ctx, cs, "search_memory", map[string]any{"query": qs[i%len(qs)]}); err != nil {
			return nil, err
		}
	}
	server := cmd.Process.Pid
	var used time.Duration
	for _, q := range qs[:n] {
		before := procCPU(server) + procCPU(pid)
		t := time.Now()
		if err := callTool(ctx, cs, "search_memory", map[string]any{"query": q}); err != nil {
			return nil, err
		}
		w.MCPWall = append(w.MCPWall, time.Since(t))
		time.Sleep(daemonSettle)
		used += procCPU(server) + procCPU(pid) - before
	}
	w.MCPCPU = used / time.Duration(n)
	return w, nil
}

// warmScaleMarkdown is the table of the end-to-end rows, with the
// targets of issue 37 beside them.
func warmScaleMarkdown(runs []scaleRun) string {
	var b strings.Builder
	b.WriteString("End to end, as a person and an agent meet it (corpora up to 100K; the memory files committed, so git's index lists every one): `git-contextfs search --json` answered by the running watcher (`CONTEXTFS_WARM=only`), its wall time and the command's CPU p50, and the watcher's CPU per search (mean, from /proc, read 20 ms after each command); and `search_memory` through `git-contextfs mcp` started as an agent starts it (stdio, the Go SDK's client), wall per call and the CPU of the server and the watcher together per call (mean). Targets (issue 37): the watcher's CPU per warm search ≤ 25 ms and MCP `search_memory` ≤ 25 ms (wall p50) at 100K. The first search after the watcher starts is not in these figures: the watcher checks the whole cache once before it answers (its CPU is the first column).\n\n")
	b.WriteString("| memories | watcher's first search (CPU) | warm CLI search p50 / p99 | command CPU p50 | watcher CPU per search | MCP search_memory p50 / p99 | MCP CPU per call | targets |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range runs {
		w := r.Warm
		if w == nil {
			continue
		}
		verdict := warmVerdict(w)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", humanN(r.N), ms(w.FirstCPU), pp(w.CLIWall), ms(pct(w.CLICPU, 0.5)),
			ms(w.WatcherCPU), pp(w.MCPWall), ms(w.MCPCPU), verdict)
	}
	b.WriteString("\n")
	return b.String()
}

// warmVerdict judges issue 37's two end-to-end targets: the watcher's CPU
// per warm search and MCP search_memory's wall p50, each ≤ 25 ms.
func warmVerdict(w *warmScale) string {
	const limit = 25 * time.Millisecond
	var missed []string
	if w.WatcherCPU > limit {
		missed = append(missed, "watcher CPU")
	}
	if wall := pct(w.MCPWall, 0.5); wall > limit {
		note := "MCP wall p50 " + ms(wall)
		if w.MCPCPU <= limit {
			note += fmt.Sprintf(" (its CPU per call, %s, is within it: the rest was waiting on a busy machine)", ms(w.MCPCPU))
		}
		missed = append(missed, note)
	}
	if len(missed) == 0 {
		return "met"
	}
	return "**not met**: " + strings.Join(missed, "; ")
}
