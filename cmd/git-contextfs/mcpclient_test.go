package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestRealMCPClient drives the binary's MCP server with the official
// TypeScript SDK (tests/mcp-client, pinned by its package-lock.json and
// installed by `npm ci`, which make test and .ci/run do). Without node or
// the installed SDK it skips on a developer's machine, and fails in CI
// (CI=true), so that it can never silently stop running there.
func TestRealMCPClient(t *testing.T) {
	clientDir, err := filepath.Abs(filepath.Join("..", "..", "tests", "mcp-client"))
	if err != nil {
		t.Fatal(err)
	}
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must run the TypeScript client test (cd tests/mcp-client && npm ci)", why)
		}
		t.Skipf("%s (run: cd tests/mcp-client && npm ci)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the TypeScript SDK is not installed")
	}

	dir := testgit.Init(t)
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte("package auth\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(clientDir, "client.mjs"), filepath.Join(binDir, "git-contextfs"), dir)
	cmd.Dir = clientDir
	cmd.Env = testgit.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got struct {
		Tools, Prompts, Resources, Templates  []string
		Session, SessionTool, Saved           string
		ContextText, PromptText, ResourceText string
		SessionLog                            string
		Summary                               struct {
			ID, Path string
			Saved    []string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, stdout.String())
	}
	for _, tool := range []string{"get_context", "session", "get_type_schema", "index",
		"save_memory", "search_memory", "recall_memory", "list_memories", "update_memory", "delete_memory", "memory_status"} {
		if !slices.Contains(got.Tools, tool) {
			t.Errorf("tools/list lacks %s: %v", tool, got.Tools)
		}
	}
	if !slices.Equal(got.Prompts, []string{"context"}) || !slices.Equal(got.Resources, []string{"contextfs://context"}) ||
		!slices.Equal(got.Templates, []string{"contextfs://memory/{id}"}) {
		t.Errorf("prompts %v, resources %v, templates %v", got.Prompts, got.Resources, got.Templates)
	}
	if got.SessionTool != "ts-sdk-test/1.0.0" {
		t.Errorf("the session's tool is %q, want the client's name/version", got.SessionTool)
	}
	if !strings.Contains(got.ContextText, "## Relevant to your changes") || !strings.Contains(got.ContextText, "["+got.Saved+"]") {
		t.Errorf("get_context does not list the saved decision under the branch's changes:\n%s", got.ContextText)
	}
	if !strings.Contains(got.SessionLog, "user: how long should tokens live?") {
		t.Errorf("session log does not read back the line appended to the open session's log: %q", got.SessionLog)
	}
	if !strings.Contains(got.PromptText, "# Project memory") || !strings.Contains(got.ResourceText, "id: "+got.Saved) {
		t.Errorf("prompt or resource: %q / %q", got.PromptText, got.ResourceText)
	}

	// The files: the decision carries the session and the client; the
	// summary is an episodic memory listing it.
	saved := ok(t, dir, "recall", got.Saved)
	for _, want := range []string{"session: " + got.Session, "tool: ts-sdk-test/1.0.0", "paths:\n  - auth/**"} {
		if !strings.Contains(saved, want) {
			t.Errorf("the saved file lacks %q:\n%s", want, saved)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, got.Summary.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type: episodic", "session_id: " + got.Session, "- " + got.Saved, "outcome: success"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the session summary lacks %q:\n%s", want, raw)
		}
	}
	if !slices.Equal(got.Summary.Saved, []string{got.Saved}) {
		t.Errorf("session end saved %v, want [%s]", got.Summary.Saved, got.Saved)
	}
}
