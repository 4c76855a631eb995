package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/mcpserver"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// connect serves a Store on a fresh repository over an in-memory
// transport and returns a connected client, the Store (for changes made
// "behind the server's back") and the repository.
func connect(t *testing.T) (*mcp.ClientSession, *contextfs.Store, string) {
	t.Helper()
	ctx := context.Background()
	dir := testgit.Init(t)
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := mcpserver.New(s, mcpserver.Options{Version: "test"})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, s, dir
}

// call calls a tool and decodes its structured result into out; it fails
// the test on a protocol error or a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) string {
	t.Helper()
	res := callRaw(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, raw, err)
		}
	}
	return text(res)
}

func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestTools(t *testing.T) {
	cs, s, dir := connect(t)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: missing input or output schema", tl.Name)
		}
	}
	for _, want := range []string{"save_memory", "search_memory", "recall_memory", "list_memories", "update_memory", "delete_memory", "memory_status"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("tool %s not listed (got %v)", want, names)
		}
	}

	var saved mcpserver.SaveOutput
	txt := call(t, cs, "save_memory", map[string]any{
		"type": "adr", "tag": []string{"db"},
		"content": "We pool Postgres connections with pgxpool, twenty per instance.",
		"data":    map[string]any{"decision": "pgxpool, 20 per instance", "status": "accepted"},
	}, &saved)
	if saved.ID == "" || saved.Type != "decision" || !strings.HasPrefix(saved.Path, ".contextfs/memories/") || len(saved.Warnings) != 0 {
		t.Fatalf("save_memory: %+v", saved)
	}
	if !strings.Contains(txt, saved.ID) {
		t.Errorf("save_memory text %q does not name the ID", txt)
	}

	t.Run("search finds the memory by meaning", func(t *testing.T) {
		var out mcpserver.SearchOutput
		call(t, cs, "search_memory", map[string]any{"query": "how do we pool db connections", "type": "decision", "detail": true}, &out)
		if len(out.Results) == 0 || out.Results[0].ID != saved.ID || out.Results[0].Snippet == "" {
			t.Fatalf("search_memory: %+v", out.Results)
		}
	})

	t.Run("recall reads the file", func(t *testing.T) {
		var m memory.Memory
		txt := call(t, cs, "recall_memory", map[string]any{"id": saved.ID[:5]}, &m)
		if m.ID != saved.ID || m.Data["status"] != "accepted" || !strings.Contains(m.Body, "pgxpool") || len(m.Tags) != 1 {
			t.Fatalf("recall_memory: %+v", m)
		}
		if !strings.Contains(txt, "id: "+saved.ID) {
			t.Errorf("recall_memory text is not the file: %q", txt)
		}
	})

	t.Run("update merges data and edits tags", func(t *testing.T) {
		call(t, cs, "update_memory", map[string]any{"id": saved.ID, "add_tag": []string{"postgres"}, "remove_tag": []string{"db"},
			"data": map[string]any{"status": "deprecated"}}, nil)
		m, err := s.Resolve(ctx, saved.ID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(m.Tags, ",") != "postgres" || m.Data["status"] != "deprecated" || m.Data["decision"] != "pgxpool, 20 per instance" {
			t.Fatalf("after update_memory: tags %v data %v", m.Tags, m.Data)
		}
	})

	t.Run("list and status count by type", func(t *testing.T) {
		call(t, cs, "save_memory", map[string]any{"type": "procedural", "content": "Run make bench before tagging a release."}, nil)
		var l mcpserver.ListOutput
		call(t, cs, "list_memories", map[string]any{"type": "decision"}, &l)
		if len(l.Memories) != 1 || l.Memories[0].ID != saved.ID {
			t.Fatalf("list_memories: %+v", l.Memories)
		}
		var st mcpserver.StatusOutput
		call(t, cs, "memory_status", map[string]any{}, &st)
		if st.Memories != 2 || st.ByType["decision"] != 1 || st.ByType["procedural"] != 1 {
			t.Fatalf("memory_status: %+v", st)
		}
	})

	t.Run("changes made outside the server are seen", func(t *testing.T) {
		// Through the API, as the CLI would…
		if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "error", Body: "EADDRINUSE in parallel tests: listen on port 0."}); err != nil {
			t.Fatal(err)
		}
		var out mcpserver.SearchOutput
		call(t, cs, "search_memory", map[string]any{"query": "EADDRINUSE", "mode": "keyword"}, &out)
		if len(out.Results) != 1 || out.Results[0].Type != "error" {
			t.Fatalf("search after an API save: %+v", out.Results)
		}
		// …and by a person editing files.
		file := "---\nid: zz9abcdefg\ntype: fact\ntitle: Staging runs on Fridays\ncreated: 2024-05-01T00:00:00Z\nupdated: 2024-05-01T00:00:00Z\n---\nThe staging deploy runs every Friday at noon.\n"
		if err := os.WriteFile(filepath.Join(dir, ".contextfs", "memories", "staging-zz9abcdefg.md"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		call(t, cs, "search_memory", map[string]any{"query": "when does staging deploy", "type": "fact"}, &out)
		if len(out.Results) == 0 || out.Results[0].ID != "zz9abcdefg" {
			t.Fatalf("search after a hand-written file: %+v", out.Results)
		}
	})

	t.Run("errors are tool errors", func(t *testing.T) {
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			// type and mode are enums in the input schemas: the SDK refuses a
			// value outside them and lists the valid ones.
			{"save_memory", map[string]any{"type": "decison", "content": "x"}, `unknown type "decison"; did you mean "decision"?`},
			{"recall_memory", map[string]any{"id": "nosuch"}, "no memory with that ID"},
			{"update_memory", map[string]any{"id": saved.ID, "data": map[string]any{"status": 42}}, "invalid"},
			{"search_memory", map[string]any{"query": " "}, "query is empty"},
			{"search_memory", map[string]any{"query": "x", "mode": "fuzzy"}, "fuzzy does not equal any of: [hybrid keyword semantic]"},
			{"search_memory", map[string]any{"query": "x", "tests": "some"}, "unknown tests option"},
			{"search_memory", map[string]any{"query": "x", "group": "folder"}, "unknown grouping"},
			{"save_memory", map[string]any{"content": "no type"}, "type"},
			// A huge limit is refused before any ranker sizes its arrays by
			// it (it used to end the server: out of memory).
			{"search_memory", map[string]any{"query": "x", "limit": 1000000000}, "at most 1000"},
			{"delete_memory", map[string]any{"id": "   "}, "no memory with that ID"},
			{"recall_memory", map[string]any{"id": " "}, "no memory with that ID"},
		} {
			res := callRaw(t, cs, c.tool, c.args)
			if !res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s %v: IsError %v, %q; want an error containing %q", c.tool, c.args, res.IsError, text(res), c.want)
			}
		}
		// The server is still serving.
		call(t, cs, "memory_status", nil, nil)
	})

	t.Run("secrets are reported", func(t *testing.T) {
		var out mcpserver.SaveOutput
		// Built at run time so that this file holds no token itself.
		token := "ghp_" + "q8Zr3Lk2Vx7Nw4Tb9Hm1Pc6Yd5Fs0Gj2Ua8Ke3R"
		call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The CI token is " + token + "."}, &out)
		if len(out.Warnings) == 0 {
			t.Errorf("save_memory: no secret warning for a GitHub token: %+v", out)
		}
		// An edit can bring a secret in as a save can.
		var up mcpserver.UpdateOutput
		call(t, cs, "update_memory", map[string]any{"id": saved.ID, "content": "Deploys use " + token + " now."}, &up)
		if len(up.Warnings) == 0 {
			t.Errorf("update_memory: no secret warning for a GitHub token: %+v", up)
		}
		var clean mcpserver.UpdateOutput
		call(t, cs, "update_memory", map[string]any{"id": saved.ID, "content": "Deploys read the token from the CI secret store."}, &clean)
		if len(clean.Warnings) != 0 {
			t.Errorf("update_memory without a secret warned: %+v", clean.Warnings)
		}
	})

	t.Run("delete removes the file", func(t *testing.T) {
		var out mcpserver.DeleteOutput
		call(t, cs, "delete_memory", map[string]any{"id": saved.ID}, &out)
		if _, err := os.Stat(filepath.Join(dir, out.Path)); !os.IsNotExist(err) {
			t.Fatalf("delete_memory left %s: %v", out.Path, err)
		}
		if res := callRaw(t, cs, "recall_memory", map[string]any{"id": saved.ID}); !res.IsError {
			t.Fatalf("recall after delete: %s", text(res))
		}
	})
}
