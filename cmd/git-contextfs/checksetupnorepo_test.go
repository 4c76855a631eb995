package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMCPCheckSetupHooksOutsideARepository: outside any repository the MCP
// server serves the user store, where hooks do not apply: check_setup says
// so instead of warning that they are not installed; in a repository
// without hooks it still warns. Through the TypeScript SDK against the
// real server process.
func TestMCPCheckSetupHooksOutsideARepository(t *testing.T) {
	node, client := dayClient(t)
	tests := []struct {
		name     string
		dir      func(t testing.TB) string
		wantLine string
	}{
		{"outside a repository hooks do not apply", func(t testing.TB) string { return t.TempDir() },
			"ok hooks: not a repository: hooks are per repository"},
		{"in a repository without hooks it warns", testgit.Init,
			"warn hooks: not installed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := dayEnv(t)
			a := dayMCP(t, node, client, env, tc.dir(t), []dayStep{{Tool: "check_setup"}})[0]
			if a.IsError || a.Error != "" {
				t.Fatalf("check_setup refused: %s%s", a.Error, a.Text)
			}
			var hooks string
			for line := range strings.SplitSeq(a.Text, "\n") {
				if strings.Contains(line, " hooks: ") {
					hooks = line
				}
			}
			if !strings.HasPrefix(hooks, tc.wantLine) {
				t.Errorf("the hooks check says %q, want %q…\n%s", hooks, tc.wantLine, a.Text)
			}
		})
	}
}
