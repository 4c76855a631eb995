package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/mcpserver"
	"github.com/contextfs/contextfs/memory"
)

// benchAgents measures the context block: `git-contextfs context` end to
// end beside `search` in the same run, and a long-lived MCP server's
// get_context and search_memory calls (in-process transport, so the
// figures are the server's work plus JSON-RPC, without pipe latency),
// each without the change watcher and with it.
func benchAgents(ctx context.Context, sizes []int, bin, keep string, runs, nq int) error {
	fmt.Println("## Context block")
	fmt.Println()
	fmt.Println("A repository as a team has it: the synthetic corpus and a little code committed on `main`, three memories attached to code (`paths:`), and a branch `feature` with one commit and one uncommitted edit to attached files. " +
		"CLI: `context` (no task, default budget) and `search --json` alternating, from process start to exit; CPU is user + system from getrusage. " +
		"MCP: one long-lived server (the Go SDK's in-memory transport), `get_context` without a task (what an agent calls at session start), `get_context` with a task, and `search_memory`, " +
		fmt.Sprint(nq) + " calls each, round-robin. Each row without the change watcher (`CONTEXTFS_WATCH=off`: every memory file is stat'ed on every call) and with it.")
	fmt.Println()
	fmt.Println("| memories | watcher | CLI context p50 / p99 (CPU p50) | CLI search p50 / p99 (CPU p50) | MCP get_context p50 / p99 | MCP get_context with task p50 / p99 | MCP search_memory p50 / p99 |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range sizes {
		rows, err := agentsRows(ctx, n, bin, keep, runs, nq)
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

// attached are the memories of the benchmark's repository that name code.
var attached = []struct {
	typ, title string
	paths      []string
}{
	{"decision", "Access tokens are signed with ed25519", []string{"auth/**"}},
	{"fact", "Invoices are immutable once sent", []string{"billing/*.go"}},
	{"procedural", "How to release the docs site", []string{"docs/**"}},
}

// agentsRepo writes the corpus, some code and the attached memories,
// commits them on main and makes the feature branch's changes.
func agentsRepo(ctx context.Context, dir string, n, nq int) ([]string, error) {
	if _, err := git.Run(ctx, "", "init", "-q", "-b", "main", dir); err != nil {
		return nil, err
	}
	qs, err := writeCorpus(dir, n, nq)
	if err != nil {
		return nil, err
	}
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(rel, content string) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}
	for _, f := range []string{"auth/token.go", "auth/session.go", "billing/invoice.go", "docs/guide.md", "cmd/server/main.go"} {
		if err := write(f, "// "+f+"\n"); err != nil {
			return nil, err
		}
	}
	for _, a := range attached {
		m := &memory.Memory{ID: memory.NewID(), Type: a.typ, Title: a.title, Paths: a.paths, Created: old, Updated: old,
			Author: "Bench <bench@example.com>", Body: a.title + ".\n"}
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			return nil, err
		}
		if err := write(".contextfs/memories/attached/"+memory.Slug(a.title)+"-"+m.ID+".md", string(raw)); err != nil {
			return nil, err
		}
	}
	g := func(args ...string) error {
		_, err := git.Run(ctx, dir, append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.com"}, args...)...)
		return err
	}
	for _, step := range [][]string{{"add", "-A"}, {"commit", "-qm", "corpus"}, {"checkout", "-qb", "feature"}} {
		if err := g(step...); err != nil {
			return nil, err
		}
	}
	if err := write("auth/token.go", "// auth/token.go, rotated keys\n"); err != nil {
		return nil, err
	}
	if err := g("commit", "-qam", "rotate keys"); err != nil {
		return nil, err
	}
	return qs, write("billing/invoice.go", "// billing/invoice.go, being edited\n")
}

// agentsQueries is where a kept repository stores its queries.
const agentsQueries = ".git/contextfs-bench-queries.json"

// agentsDir returns the repository of n memories to measure and its
// queries: a new one in a temporary folder, removed by done, or, with keep
// set, the one in keep/N (written there the first time, reused after: a
// 100K corpus takes long to write).
func agentsDir(ctx context.Context, keep string, n, nq int) (dir string, qs []string, done func(), err error) {
	done = func() {}
	if keep != "" {
		dir = filepath.Join(keep, strconv.Itoa(n))
		if raw, err := os.ReadFile(filepath.Join(dir, agentsQueries)); err == nil {
			return dir, qs, done, json.Unmarshal(raw, &qs)
		}
		if err := os.RemoveAll(dir); err != nil {
			return "", nil, done, err
		}
	} else {
		if dir, err = os.MkdirTemp("", "contextfs-bench-agents-"); err != nil {
			return "", nil, done, err
		}
		done = func() { os.RemoveAll(dir) }
	}
	if qs, err = agentsRepo(ctx, dir, n, nq); err != nil {
		return dir, nil, done, err
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return dir, nil, done, err
	}
	_, err = s.Reindex(ctx)
	s.Close()
	if err != nil {
		return dir, nil, done, err
	}
	raw, _ := json.Marshal(qs)
	return dir, qs, done, os.WriteFile(filepath.Join(dir, agentsQueries), raw, 0o644)
}

func agentsRows(ctx context.Context, n int, bin, keep string, runs, nq int) ([]string, error) {
	dir, qs, done, err := agentsDir(ctx, keep, n, nq)
	defer done()
	if err != nil {
		return nil, err
	}
	// The block must list the attached memories the branch touches, or
	// the benchmark measures a block without its git part.
	out, err := exec.Command(bin, "-C", dir, "context").Output()
	if err != nil {
		return nil, fmt.Errorf("context: %w", err)
	}
	for _, a := range attached[:2] {
		if !bytes.Contains(out, []byte(a.title)) {
			return nil, fmt.Errorf("the block does not list %q under the branch's changes:\n%s", a.title, out)
		}
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
		row, err := agentsRow(ctx, dir, bin, runs, qs)
		if err != nil {
			return nil, fmt.Errorf("watcher %s: %w", mode, err)
		}
		rows = append(rows, fmt.Sprintf("| %s | %s %s", humanN(n), mode, row))
	}
	return rows, nil
}

// agentsRow times the CLI (no store held open meanwhile, as users run it)
// and then the MCP server, in the watch mode the environment sets.
func agentsRow(ctx context.Context, dir, bin string, runs int, qs []string) (string, error) {
	var cliCtx, cliSearch, cpuCtx, cpuSearch []time.Duration
	for i := -1; i < runs; i++ { // the first pair warms the page cache
		d, c, err := timeCPU(dir, bin, "context")
		if err != nil {
			return "", err
		}
		e, f, err := timeCPU(dir, bin, "search", "--json", qs[(i+len(qs))%len(qs)])
		if err != nil {
			return "", err
		}
		if i >= 0 {
			cliCtx, cliSearch = append(cliCtx, d), append(cliSearch, e)
			cpuCtx, cpuSearch = append(cpuCtx, c), append(cpuSearch, f)
		}
	}

	cs, done, err := mcpSession(ctx, dir)
	if err != nil {
		return "", err
	}
	defer done()
	var mcpCtx, mcpTask, mcpSearch []time.Duration
	timed := func(name string, args map[string]any) (time.Duration, error) {
		t := time.Now()
		err := callTool(ctx, cs, name, args)
		return time.Since(t), err
	}
	for i := -1; i < len(qs); i++ {
		q := qs[(i+len(qs))%len(qs)]
		a, err := timed("get_context", map[string]any{})
		if err != nil {
			return "", err
		}
		b, err := timed("get_context", map[string]any{"task": q})
		if err != nil {
			return "", err
		}
		c, err := timed("search_memory", map[string]any{"query": q, "type": "fact"})
		if err != nil {
			return "", err
		}
		if i >= 0 {
			mcpCtx, mcpTask, mcpSearch = append(mcpCtx, a), append(mcpTask, b), append(mcpSearch, c)
		}
	}
	return fmt.Sprintf("| %s (%s) | %s (%s) | %s | %s | %s |", pp(cliCtx), ms(pct(cpuCtx, 0.5)), pp(cliSearch), ms(pct(cpuSearch, 0.5)),
		pp(mcpCtx), pp(mcpTask), pp(mcpSearch)), nil
}

// mcpSession opens the repository at dir in a long-lived MCP server and
// connects a client to it over the SDK's in-memory transport; done closes
// them all.
func mcpSession(ctx context.Context, dir string) (cs *mcp.ClientSession, done func(), err error) {
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return nil, nil, err
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(s, mcpserver.Options{Version: "bench"}).Connect(ctx, st, nil)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		s.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close(); s.Close() }, nil
}

func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: tool error", name)
	}
	return nil
}
