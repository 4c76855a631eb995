package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
)

func TestFormatMemoriesTool(t *testing.T) {
	cs, _, dir := connect(t)
	rel := ".contextfs/memories/out-of-order.md"
	raw := "---\ntype: fact\nid: abcd123456\ntitle: Out of order\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nBody.\n"
	if err := os.MkdirAll(filepath.Join(dir, ".contextfs", "memories"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}

	var res contextfs.FormatResult
	call(t, cs, "format_memories", map[string]any{"check": true}, &res)
	if !res.Check || res.Files != 1 || len(res.Changed) != 1 || res.Changed[0] != rel {
		t.Fatalf("format_memories check: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, rel)); string(b) != raw {
		t.Fatal("format_memories with check wrote the file")
	}
	call(t, cs, "format_memories", map[string]any{"path": []string{rel}}, &res)
	if b, _ := os.ReadFile(filepath.Join(dir, rel)); !strings.HasPrefix(string(b), "---\nid: abcd123456\ntype: fact\n") {
		t.Errorf("after format_memories:\n%s", b)
	}
	for _, bad := range []string{"../outside.md", ".contextfs/../x.md", "main.go"} {
		if res := callRaw(t, cs, "format_memories", map[string]any{"path": []string{bad}}); !res.IsError {
			t.Errorf("format_memories accepted %q", bad)
		}
	}
}

func TestCheckSetupTool(t *testing.T) {
	cs, _, _ := connect(t)
	var rep contextfs.DoctorReport
	txt := call(t, cs, "check_setup", map[string]any{}, &rep)
	names := map[string]bool{}
	for _, c := range rep.Checks {
		names[c.Name] = true
	}
	for _, want := range []string{"git-contextfs", "hooks", "merge-driver", "config", "cache", "memories"} {
		if !names[want] {
			t.Errorf("check %s missing from %+v", want, rep.Checks)
		}
	}
	if !strings.Contains(txt, "memories:") {
		t.Errorf("text %q does not list the checks", txt)
	}
}
