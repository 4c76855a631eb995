package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/mcpserver"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMCPRegistersRepositoriesAndTheBlockReadsThemWhenAsked: list_repos
// with add registers a repository (the CLI's repos add); get_context
// leaves its memories out by default and adds those the task finds with
// repos, each naming its repository; repos without a task is refused.
func TestMCPRegistersRepositoriesAndTheBlockReadsThemWhenAsked(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	other := testgit.Init(t)
	st, err := contextfs.Open(context.Background(), contextfs.Options{Dir: other})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := st.Save(context.Background(), contextfs.SaveRequest{Type: "decision", Title: "Retry with exponential backoff",
		Body: "Outgoing HTTP calls retry three times with exponential backoff and jitter."})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	cs, _, _ := connect(t)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The billing service sends invoices by email."}, nil)
	var repos mcpserver.ReposOutput
	call(t, cs, "list_repos", map[string]any{"add": other, "name": "payments"}, &repos)
	if len(repos.Repos) != 1 || repos.Repos[0].Name != "payments" {
		t.Fatalf("list_repos after add = %+v; want payments", repos)
	}
	task := "retry policy with backoff"
	if got := call(t, cs, "get_context", map[string]any{"task": task}, nil); strings.Contains(got, theirs.Memory.ID) {
		t.Errorf("the block holds another repository's memory without repos:\n%s", got)
	}
	got := call(t, cs, "get_context", map[string]any{"task": task, "repos": []string{"all"}}, nil)
	if !strings.Contains(got, "From registered repositories") || !strings.Contains(got, theirs.Memory.ID) || !strings.Contains(got, "repository payments") {
		t.Errorf("the block with repos all:\n%s", got)
	}
	if res := callRaw(t, cs, "get_context", map[string]any{"repos": []string{"all"}}); !res.IsError {
		t.Error("repos without a task was accepted")
	}
	if res := callRaw(t, cs, "get_context", map[string]any{"task": task, "repos": []string{"nosuch"}}); !res.IsError {
		t.Error("an unknown repository was accepted")
	}
	if res := callRaw(t, cs, "list_repos", map[string]any{"name": "x"}); !res.IsError {
		t.Error("name without add was accepted")
	}
}
