package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMCPServer runs `git-contextfs mcp` as an agent does: a real process
// spoken to over its stdin and stdout.
func TestMCPServer(t *testing.T) {
	dir := testgit.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "mcp")
	cmd.Dir = dir
	cmd.Env = testgit.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "contextfs-test", Version: "test"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "contextfs" {
		t.Errorf("server name %q", got)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v\nstderr: %s", err, stderr.String())
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"save_memory", "search_memory", "recall_memory", "list_memories", "update_memory", "delete_memory", "memory_status"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s not listed (got %v)", want, names)
		}
	}

	callTool := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v\nstderr: %s", name, err, stderr.String())
		}
		if res.IsError {
			t.Fatalf("%s: tool error: %v", name, res.Content)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, raw, err)
		}
	}
	var saved struct{ ID, Type, Path string }
	callTool("save_memory", map[string]any{"type": "decision", "tag": []string{"db"},
		"content": "We pool Postgres connections with pgxpool, twenty per instance."}, &saved)
	if saved.ID == "" || saved.Type != "decision" {
		t.Fatalf("save_memory: %+v", saved)
	}
	// The CLI sees what the server wrote, and the server sees what the CLI
	// writes.
	if out := ok(t, dir, "recall", saved.ID); !strings.Contains(out, "pgxpool") {
		t.Fatalf("recall through the CLI: %s", out)
	}
	ok(t, dir, "save", "--type", "error", "EADDRINUSE in parallel tests: listen on port 0 and read the port back.")

	var found struct {
		Results []struct{ ID, Type string }
	}
	callTool("search_memory", map[string]any{"query": "how do we pool db connections"}, &found)
	if len(found.Results) == 0 || found.Results[0].ID != saved.ID {
		t.Fatalf("search_memory: %+v", found.Results)
	}
	callTool("search_memory", map[string]any{"query": "port already in use in tests", "type": "error"}, &found)
	if len(found.Results) != 1 || found.Results[0].Type != "error" {
		t.Fatalf("search_memory after a CLI save: %+v", found.Results)
	}

	// Closing stdin is how a client stops a stdio server; it must exit 0.
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\nstderr: %s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "git-contextfs:") {
		t.Errorf("the server reported an error: %s", stderr.String())
	}
}
