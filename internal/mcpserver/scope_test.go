package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs/internal/mcpserver"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestMain(m *testing.M) {
	// No test reads or writes the developer's own user store or config.
	dir, err := os.MkdirTemp("", "contextfs-mcp-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	os.Unsetenv("CONTEXTFS_USER_DIR")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestMCPAUserPreferenceGoesToTheUserStoreAndIsSearched(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	cs, _, dir := connect(t)
	var saved mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "user", "content": "Prefers terse answers"}, &saved)
	if saved.Scope != "user" {
		t.Fatalf("saved in scope %q, want user", saved.Scope)
	}
	if st := testgit.Run(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("the repository changed:\n%s", st)
	}
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "Answers go in the terse changelog"}, nil)

	var found mcpserver.SearchOutput
	call(t, cs, "search_memory", map[string]any{"query": "terse", "mode": "keyword"}, &found)
	scopes := map[string]string{}
	for _, r := range found.Results {
		scopes[r.ID] = string(r.Scope)
	}
	if len(found.Results) != 2 || scopes[saved.ID] != "user" {
		t.Errorf("search = %+v; want both memories, the preference with scope user", found.Results)
	}
	call(t, cs, "search_memory", map[string]any{"query": "terse", "mode": "keyword", "scope": "user"}, &found)
	if len(found.Results) != 1 || found.Results[0].ID != saved.ID {
		t.Errorf("scope user = %+v; want the preference only", found.Results)
	}
	var list mcpserver.ListOutput
	call(t, cs, "list_memories", map[string]any{"scope": "repo"}, &list)
	if len(list.Memories) != 1 || list.Memories[0].Scope != "repo" {
		t.Errorf("list scope repo = %+v", list.Memories)
	}
	if txt := call(t, cs, "recall_memory", map[string]any{"id": saved.ID, "scope": "user"}, nil); !strings.Contains(txt, "Prefers terse answers") {
		t.Errorf("recall: %s", txt)
	}
	// The tools that change or walk a memory work in the store that holds
	// it, as recall does.
	var second mcpserver.SaveOutput
	call(t, cs, "save_memory", map[string]any{"type": "user", "content": "Prefers tables over prose for comparisons"}, &second)
	var linked mcpserver.MemoryRef
	call(t, cs, "link_memories", map[string]any{"from": second.ID, "to": saved.ID, "rel": "related"}, &linked)
	if linked.Scope != "user" {
		t.Errorf("link_memories in the user store: %+v", linked)
	}
	var rel mcpserver.RecallOutput
	call(t, cs, "recall_memory", map[string]any{"id": saved.ID, "depth": 1}, &rel)
	if len(rel.Related) != 1 || rel.Related[0].ID != second.ID {
		t.Errorf("recall_memory depth 1 in the user store: %+v", rel.Related)
	}
	var evolved mcpserver.MemoryRef
	call(t, cs, "evolve_memory", map[string]any{"id": saved.ID, "content": "Prefers terse answers, with code first"}, &evolved)
	if evolved.Scope != "user" {
		t.Errorf("evolve_memory in the user store: %+v", evolved)
	}
	var lin mcpserver.RecallOutput
	call(t, cs, "recall_memory", map[string]any{"id": evolved.ID, "scope": "user", "lineage": true}, &lin)
	if len(lin.Versions) != 2 {
		t.Errorf("recall_memory lineage in the user store: %+v", lin.Versions)
	}
	if res := callRaw(t, cs, "recall_memory", map[string]any{"id": evolved.ID, "scope": "repo", "lineage": true}); !res.IsError {
		t.Errorf("recall_memory lineage with scope repo found a user-store memory: %s", text(res))
	}
	// The memory resource finds it in the user store, as recall does.
	r, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "contextfs://memory/" + saved.ID})
	if err != nil || !strings.Contains(r.Contents[0].Text, "Prefers terse answers") {
		t.Errorf("contextfs://memory/%s (user store): %+v %v", saved.ID, r, err)
	}
	if res := callRaw(t, cs, "search_memory", map[string]any{"query": "x", "scope": "team"}); !res.IsError {
		t.Error("scope team was accepted")
	}
	var repos mcpserver.ReposOutput
	call(t, cs, "list_repos", map[string]any{}, &repos)
	if repos.Repos == nil || len(repos.Repos) != 0 {
		t.Errorf("list_repos = %+v; want an empty list", repos)
	}
}
