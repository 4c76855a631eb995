package mcpserver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

func TestAgentToolsRunASession(t *testing.T) {
	cs, s, dir := connect(t)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
	}
	for _, want := range []string{"get_context", "session", "get_type_schema", "index"} {
		if byName[want] == nil {
			t.Errorf("tool %s missing", want)
		}
	}
	for name, tl := range byName {
		if a := tl.Annotations; a != nil && a.ReadOnlyHint && !a.IdempotentHint {
			t.Errorf("read-only tool %s does not say it is idempotent", name)
		}
	}

	var started struct {
		Session struct{ ID, Tool string }
	}
	call(t, cs, "session", map[string]any{"action": "start", "label": "tokens"}, &started)
	if started.Session.Tool != "test/test" {
		t.Errorf("session tool %q, want the client's name/version", started.Session.Tool)
	}
	var a, b struct{ ID string }
	call(t, cs, "save_memory", map[string]any{"type": "decision", "content": "Tokens expire after one hour.", "path": []string{"auth/**"},
		"data": map[string]any{"decision": "1h", "status": "accepted"}}, &a)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Refresh tokens live for a week."}, &b)
	m, err := s.Resolve(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source == nil || m.Source.Tool != "test/test" || m.Session != started.Session.ID || !slices.Equal(m.Paths, []string{"auth/**"}) {
		t.Errorf("saved memory: source %+v session %q paths %v", m.Source, m.Session, m.Paths)
	}

	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte("package auth\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txt := call(t, cs, "get_context", map[string]any{"budget": 1000}, nil)
	if !strings.Contains(txt, "## Relevant to your changes") || !strings.Contains(txt, "["+a.ID+"]") {
		t.Errorf("get_context:\n%s", txt)
	}

	call(t, cs, "session", map[string]any{"action": "log", "message": "user: please settle token lifetimes"}, nil)
	var logged struct{ Log string }
	call(t, cs, "session", map[string]any{"action": "log"}, &logged)
	if !strings.Contains(logged.Log, "settle token lifetimes") {
		t.Errorf("session log gave %q", logged.Log)
	}

	var ended struct {
		ID    string
		Saved []string
	}
	call(t, cs, "session", map[string]any{"action": "end", "summary": "Decided token lifetimes.", "outcome": "success"}, &ended)
	want := []string{a.ID, b.ID}
	slices.Sort(want)
	if !slices.Equal(ended.Saved, want) {
		t.Errorf("session end saved %v, want %v", ended.Saved, want)
	}
	if res := callRaw(t, cs, "session", map[string]any{"action": "end", "outcome": "great"}); !res.IsError {
		t.Errorf("an outcome outside the enum was accepted")
	}
	var list struct {
		Ended []struct {
			ID string `json:"session_id"`
		}
	}
	call(t, cs, "session", map[string]any{"action": "list"}, &list)
	if len(list.Ended) != 1 || list.Ended[0].ID != started.Session.ID {
		t.Errorf("session list: %+v", list)
	}

	var schema struct {
		Type   string
		Schema map[string]any
	}
	call(t, cs, "get_type_schema", map[string]any{"type": "decision"}, &schema)
	if schema.Type != "decision" || schema.Schema["properties"] == nil {
		t.Errorf("get_type_schema: %+v", schema)
	}
}

func TestUpdateThatChangesNothingSaysSo(t *testing.T) {
	cs, s, _ := connect(t)
	var saved struct{ ID, Path string }
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Staging runs on Kubernetes.", "tag": []string{"infra"}}, &saved)
	before, err := os.ReadFile(filepath.Join(s.Repo.Root, saved.Path))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Changed bool }
	txt := call(t, cs, "update_memory", map[string]any{"id": saved.ID, "add_tag": []string{"infra"}}, &out)
	if out.Changed || !strings.Contains(txt, "nothing changed") {
		t.Errorf("a no-op update: changed=%v %q", out.Changed, txt)
	}
	after, _ := os.ReadFile(filepath.Join(s.Repo.Root, saved.Path))
	if string(after) != string(before) {
		t.Errorf("a no-op update rewrote the file:\n%s", after)
	}
	call(t, cs, "update_memory", map[string]any{"id": saved.ID, "add_tag": []string{"k8s"}}, &out)
	if !out.Changed {
		t.Error("a real update says it changed nothing")
	}
}

func TestRecallOpensCodeChunksAndCommits(t *testing.T) {
	cs, _, dir := connect(t)
	if err := os.WriteFile(filepath.Join(dir, "pool.go"), []byte("package pool\n\n// Open opens a pgx connection pool of twenty.\nfunc Open() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "Add the connection pool")
	call(t, cs, "index", map[string]any{}, nil)
	var res struct {
		Results []struct{ ID, Kind string }
	}
	call(t, cs, "search_memory", map[string]any{"query": "connection pool", "mode": "keyword", "kind": []string{"all"}}, &res)
	kinds := map[string]string{}
	for _, r := range res.Results {
		kinds[r.Kind] = r.ID
	}
	if kinds["code"] == "" || kinds["commit"] == "" {
		t.Fatalf("search found no code chunk or commit: %+v", res.Results)
	}
	for kind, id := range kinds {
		var m memory.Memory
		txt := call(t, cs, "recall_memory", map[string]any{"id": id}, &m)
		if m.Type != kind || !strings.Contains(m.Body, "pool") || !strings.Contains(txt, "pool") {
			t.Errorf("recall %s %s: %+v %q", kind, id, m, txt)
		}
	}
	var st struct{ Status struct{ Files, Commits int } }
	call(t, cs, "index", map[string]any{"action": "status"}, &st)
	if st.Status.Files != 1 || st.Status.Commits != 1 {
		t.Errorf("index status: %+v", st)
	}
}

func TestPromptAndResources(t *testing.T) {
	cs, _, dir := connect(t)
	ctx := context.Background()
	var saved struct{ ID string }
	call(t, cs, "save_memory", map[string]any{"type": "project-brief", "content": "# Billing\nBilling turns usage into invoices."}, &saved)

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "context" {
		t.Fatalf("prompts: %+v %v", prompts, err)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "context", Arguments: map[string]string{"task": "invoices"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := p.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "["+saved.ID+"]") {
		t.Errorf("context prompt: %+v", p.Messages[0].Content)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "contextfs://context"})
	if err != nil || !strings.Contains(r.Contents[0].Text, "## Project brief") {
		t.Errorf("contextfs://context: %+v %v", r, err)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "contextfs://memory/{id}" {
		t.Fatalf("templates: %+v %v", tmpl, err)
	}
	r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "contextfs://memory/" + saved.ID[:5]})
	if err != nil || !strings.Contains(r.Contents[0].Text, "id: "+saved.ID) {
		t.Errorf("contextfs://memory/ID: %+v %v", r, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "contextfs://memory/nosuch"}); err == nil {
		t.Error("reading a missing memory succeeded")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "contextfs://memory/"}); err == nil {
		t.Error("reading the empty ID succeeded")
	}
	// An ambiguous prefix is the client's to mend: invalid params, with
	// the candidates, not a code the protocol does not define.
	for _, id := range []string{"amb1aaaa", "amb1bbbb"} {
		f := "---\nid: " + id + "\ntype: fact\ntitle: T " + id + "\ncreated: 2024-05-01T00:00:00Z\nupdated: 2024-05-01T00:00:00Z\n---\nBody.\n"
		if err := os.WriteFile(filepath.Join(dir, ".contextfs", "memories", id+".md"), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "contextfs://memory/amb1"})
	if je, ok := errors.AsType[*jsonrpc.Error](err); !ok || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "amb1bbbb") {
		t.Errorf("an ambiguous prefix: %v; want invalid params naming both", err)
	}
}

// An agent learns from the handshake's instructions to read the context
// block first and to work in a session; each tool they name must exist.
func TestInstructionsAskForTheContextAndASession(t *testing.T) {
	cs, _, _ := connect(t)
	got := cs.InitializeResult().Instructions
	tools := map[string]bool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = true
	}
	for _, name := range []string{"get_context", "session", "search_memory", "save_memory"} {
		if !strings.Contains(got, name) {
			t.Errorf("the instructions do not mention %s:\n%s", name, got)
		}
		if !tools[name] {
			t.Errorf("the instructions name %s, which is not a tool", name)
		}
	}
	if i, j := strings.Index(got, "get_context"), strings.Index(got, "search_memory"); i > j {
		t.Errorf("get_context should come first, at the start of a session:\n%s", got)
	}
}
