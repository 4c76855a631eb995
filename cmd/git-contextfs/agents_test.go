package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

func TestSessionAndContextThroughTheCLI(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "project-brief", "--title", "Billing", "Billing turns usage into invoices.")
	dec := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--path", "auth/**", "--data", `{"decision":"1h","status":"accepted"}`, "Tokens expire after one hour"))
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte("package auth\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	sid := strings.TrimSpace(ok(t, dir, "session", "start", "--tool", "claude-code", "--model", "opus"))
	a := strings.TrimSpace(ok(t, dir, "save", "First finding"))
	b := strings.TrimSpace(ok(t, dir, "save", "--source", "cursor", "Second finding"))
	for _, id := range []string{a, b} {
		if out := ok(t, dir, "recall", id); !strings.Contains(out, "session: "+sid) {
			t.Errorf("memory %s does not carry session %s:\n%s", id, sid, out)
		}
	}
	if out := ok(t, dir, "list", "--source", "cursor"); !strings.Contains(out, b) || strings.Contains(out, a) {
		t.Errorf("list --source cursor:\n%s", out)
	}
	r := cli(t, dir, "", "session", "start")
	if r.code != 0 || !strings.Contains(r.stderr, "session "+sid+" was still open") {
		t.Fatalf("a second start was silent or failed: %d %q", r.code, r.stderr)
	}
	out := ok(t, dir, "session", "end", "--summary", "Done.", "--outcome", "partial", "--json")
	var sum map[string]any
	decodeJSON(t, out, &sum)
	if sum["type"] != "episodic" {
		t.Errorf("session end wrote %v", sum["type"])
	}
	var list struct {
		Open  any
		Ended []struct {
			ID    string   `json:"session_id"`
			Saved []string `json:"saved"`
		}
	}
	decodeJSON(t, ok(t, dir, "session", "list", "--json"), &list)
	if list.Open != nil || len(list.Ended) != 2 {
		t.Fatalf("session list: %+v", list)
	}
	first := list.Ended[0]
	if first.ID != sid {
		first = list.Ended[1] // both ended within the same second
	}
	if first.ID != sid || len(first.Saved) != 2 || !strings.Contains(strings.Join(first.Saved, " "), a) || !strings.Contains(strings.Join(first.Saved, " "), b) {
		t.Errorf("the first session lists %+v, want %s and %s", first, a, b)
	}
	if r := cli(t, dir, "", "session", "end"); r.code != 1 || !strings.Contains(r.stderr, "no session is open") {
		t.Errorf("end with none open: %d %q", r.code, r.stderr)
	}
	if r := cli(t, dir, "", "session", "end", "--if-open"); r.code != 0 {
		t.Errorf("end --if-open with none open: %d %q", r.code, r.stderr)
	}

	ctx := ok(t, dir, "context", "--budget", "1000")
	for _, want := range []string{"## Project brief", "## Last session", "## Relevant to your changes", "[" + dec + "]"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	if out := ok(t, dir, "search", "--path", "auth/token.go"); !strings.Contains(out, dec) {
		t.Errorf("search --path auth/token.go:\n%s", out)
	}
	for _, args := range [][]string{{"context", "--format", "xml"}, {"session", "end", "--outcome", "great"}, {"search"}} {
		if r := cli(t, dir, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
}

func TestSetupClaudeProjectThroughTheCLI(t *testing.T) {
	isolateSetup(t) // project setup reads the user's settings too
	dir := testgit.Init(t)
	mcp, settings := filepath.Join(dir, ".mcp.json"), filepath.Join(dir, ".claude", "settings.json")
	const theirMCP = "{\"mcpServers\": {\"github\": {\"command\": \"gh-mcp\"}}}\n"
	const theirSettings = "{\"model\": \"opus\", \"hooks\": {\"SessionEnd\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo bye\"}]}]}}\n"
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{mcp: theirMCP, settings: theirSettings} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if out := ok(t, dir, "setup", "claude", "--dry-run"); !strings.Contains(out, "would update") || read(mcp) != theirMCP {
		t.Fatalf("dry run wrote or said nothing:\n%s", out)
	}
	ok(t, dir, "setup", "claude", "--project")
	m, s := read(mcp), read(settings)
	if !strings.Contains(m, "gh-mcp") || !strings.Contains(m, `"contextfs"`) || !strings.Contains(s, "echo bye") || !strings.Contains(s, "git contextfs context") {
		t.Fatalf("after setup:\n%s\n%s", m, s)
	}
	if out := ok(t, dir, "setup", "claude"); strings.Count(out, "unchanged") != 2 || read(mcp) != m || read(settings) != s {
		t.Errorf("a second run changed something:\n%s", out)
	}
	ok(t, dir, "setup", "claude", "--remove")
	if read(mcp) != theirMCP || read(settings) != theirSettings {
		t.Errorf("remove did not restore the files:\n%s\n%s", read(mcp), read(settings))
	}
	if r := cli(t, dir, "", "setup", "vim"); r.code != 2 {
		t.Errorf("setup vim: exit %d", r.code)
	}
}

func TestReviewListsMemoriesOnTheChangedCode(t *testing.T) {
	dir := testgit.Init(t)
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"auth/token.go", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("v1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dec := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--path", "auth/**", "--data", `{"decision":"1h","status":"accepted"}`, "Tokens expire after one hour"))
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "base")
	tests := []struct {
		name, branch, file string
		want               bool
	}{
		{"a range changing auth/ lists the decision", "auth", "auth/token.go", true},
		{"a range changing only the README does not", "readme", "README.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testgit.Run(t, dir, "checkout", "-q", "main")
			testgit.Run(t, dir, "checkout", "-qb", tt.branch)
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte("v2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			testgit.Run(t, dir, "commit", "-qam", "change")
			out := ok(t, dir, "review", "main...HEAD")
			if got := strings.Contains(out, "Memories on the changed code") && strings.Contains(out, dec); got != tt.want {
				t.Errorf("review lists the decision = %v, want %v:\n%s", got, tt.want, out)
			}
		})
	}
}

// TestReviewFlagsAMemoryWhoseCodeChangedWithoutIt: a range that changes
// the code a memory is attached to, and not the memory, marks it "may be
// stale"; one that updates the memory too does not.
func TestReviewFlagsAMemoryWhoseCodeChangedWithoutIt(t *testing.T) {
	dir := testgit.Init(t)
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dec := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--path", "auth/**", "--data", `{"decision":"1h","status":"accepted"}`, "Tokens expire after one hour"))
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-qm", "base")
	for _, tt := range []struct {
		name, branch string
		updateMemory bool
		stale        bool
	}{
		{"the code alone changes", "code-only", false, true},
		{"the memory is updated with it", "both", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			testgit.Run(t, dir, "checkout", "-q", "main")
			testgit.Run(t, dir, "checkout", "-qb", tt.branch)
			if err := os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte("v2 "+tt.branch+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.updateMemory {
				ok(t, dir, "update", dec, "Tokens expire after two hours")
			}
			testgit.Run(t, dir, "add", ".")
			testgit.Run(t, dir, "commit", "-qm", "change")
			var rep struct {
				Relevant []struct {
					ID         string `json:"id"`
					MayBeStale bool   `json:"may_be_stale"`
				} `json:"relevant"`
			}
			decodeJSON(t, ok(t, dir, "review", "main...HEAD", "--format", "json"), &rep)
			if len(rep.Relevant) != 1 || rep.Relevant[0].ID != dec || rep.Relevant[0].MayBeStale != tt.stale {
				t.Errorf("relevant = %+v, want %s with may_be_stale %v", rep.Relevant, dec, tt.stale)
			}
			md := ok(t, dir, "review", "main...HEAD")
			if got := strings.Contains(md, "may be stale"); got != tt.stale {
				t.Errorf("the report says may be stale = %v, want %v:\n%s", got, tt.stale, md)
			}
		})
	}
}

// TestSearchRefusesAnUnknownKindAsAUsageError: --kind is checked with the
// other flags, exit 2, naming the value.
func TestSearchRefusesAnUnknownKindAsAUsageError(t *testing.T) {
	dir := testgit.Init(t)
	r := cli(t, dir, "", "search", "--kind", "memory,bogus", "x")
	if r.code != 2 || !strings.Contains(r.stderr, `not "bogus"`) {
		t.Errorf("exit %d, stderr %q; want 2 naming bogus", r.code, r.stderr)
	}
}
