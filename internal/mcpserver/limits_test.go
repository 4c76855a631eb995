package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestALimitOutOfRangeIsAToolError: a limit the CLI refuses is a tool
// error here too. With a user store to search besides the repository,
// search_memory {"limit": 1001} answered "no matches" (each store's
// refusal was skipped as that store's failure), and a negative limit
// was taken as the default.
func TestALimitOutOfRangeIsAToolError(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	cs, _, _ := connect(t)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The deploy runs on fridays"}, nil)
	call(t, cs, "save_memory", map[string]any{"type": "user", "content": "Prefers deploy notes to be terse"}, nil)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string // "" for a result
	}{
		{"a search limit above the most is refused", "search_memory", map[string]any{"query": "deploy", "limit": 1001}, "at most 1000"},
		{"a negative search limit is refused", "search_memory", map[string]any{"query": "deploy", "limit": -1}, "0 (the default) or more"},
		{"a negative list limit is refused", "list_memories", map[string]any{"limit": -3}, "0 (the default) or more"},
		{"a negative session list limit is refused", "session", map[string]any{"action": "list", "limit": -1}, "0 (the default) or more"},
		{"the most is taken", "search_memory", map[string]any{"query": "deploy", "limit": 1000}, ""},
		{"0 is the default", "search_memory", map[string]any{"query": "deploy", "limit": 0}, ""},
		{"a list limit has no most", "list_memories", map[string]any{"limit": 5000}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callRaw(t, cs, tt.tool, tt.args)
			switch {
			case tt.want == "" && (res.IsError || !strings.Contains(text(res), "deploy")):
				t.Errorf("%s %v: error %v, %q; want the two memories", tt.tool, tt.args, res.IsError, text(res))
			case tt.want != "" && (!res.IsError || !strings.Contains(text(res), tt.want)):
				t.Errorf("%s %v: error %v, %q; want a tool error saying %q", tt.tool, tt.args, res.IsError, text(res), tt.want)
			}
		})
	}
}
