package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/git"
	"github.com/contextfs/contextfs/mcpserver"
)

// benchAgents measures the context block: `git-contextfs context` end to
// end beside `search` in the same run, and a long-lived MCP server's
// get_context and search_memory calls (in-process transport, so the
// figures are the server's work plus JSON-RPC, without pipe latency).
func benchAgents(ctx context.Context, sizes []int, bin string, runs, nq int) error {
	fmt.Println("## Context block")
	fmt.Println()
	fmt.Println("`context` (no task, default budget) and `search --json` through the CLI, alternating, watcher off, from process start to exit. MCP: one long-lived server (the Go SDK's in-memory transport), `get_context` with a task and `search_memory`, " + fmt.Sprint(nq) + " calls each.")
	fmt.Println()
	fmt.Println("| memories | CLI context p50 / p99 | CLI search p50 / p99 | MCP get_context p50 / p99 | MCP search_memory p50 / p99 |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: |")
	for _, n := range sizes {
		row, err := agentsRow(ctx, n, bin, runs, nq)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		fmt.Println(row)
	}
	fmt.Println()
	return nil
}

func agentsRow(ctx context.Context, n int, bin string, runs, nq int) (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-bench-agents-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if _, err := git.Run(context.Background(), "", "init", "-q", dir); err != nil {
		return "", err
	}
	qs, err := writeCorpus(dir, n, nq)
	if err != nil {
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

	os.Setenv("CONTEXTFS_WATCH", "off")
	defer os.Unsetenv("CONTEXTFS_WATCH")
	var cliCtx, cliSearch []time.Duration
	for i := -1; i < runs; i++ { // the first pair warms the page cache
		d, _, err := timeCmd(dir, bin, "context")
		if err != nil {
			return "", err
		}
		e, _, err := timeCmd(dir, bin, "search", "--json", qs[(i+len(qs))%len(qs)])
		if err != nil {
			return "", err
		}
		if i >= 0 {
			cliCtx, cliSearch = append(cliCtx, d), append(cliSearch, e)
		}
	}

	s, err = contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
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
	var mcpCtx, mcpSearch []time.Duration
	for i := -1; i < len(qs); i++ {
		q := qs[(i+len(qs))%len(qs)]
		t := time.Now()
		if err := callTool(ctx, cs, "get_context", map[string]any{"task": q}); err != nil {
			return "", err
		}
		d := time.Since(t)
		t = time.Now()
		if err := callTool(ctx, cs, "search_memory", map[string]any{"query": q, "type": "fact"}); err != nil {
			return "", err
		}
		if i >= 0 {
			mcpCtx, mcpSearch = append(mcpCtx, d), append(mcpSearch, time.Since(t))
		}
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s |", humanN(n), pp(cliCtx), pp(cliSearch), pp(mcpCtx), pp(mcpSearch)), nil
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
