package agentsetup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const userMCP = `{
    "mcpServers": {
        "github": {"command": "gh-mcp", "args": ["--stdio"]}
    },
    "zeta": 1, "alpha": [true, null, 2.50]
}
`

const userSettings = `{"permissions": {"allow": ["Bash(make test)"]},
 "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}}
`

func options(t *testing.T, client string) Options {
	t.Helper()
	root := t.TempDir()
	return Options{Client: client, Root: root, GitDir: filepath.Join(root, ".git"), Home: t.TempDir(), StateDir: t.TempDir()}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func actions(chs []Change) string {
	var out []string
	for _, c := range chs {
		out = append(out, filepath.Base(c.Path)+":"+c.Action)
	}
	return strings.Join(out, " ")
}

func TestClaudeProjectSetupMergesIsIdempotentAndRemovesByteForByte(t *testing.T) {
	o := options(t, "claude")
	mcp, settings := filepath.Join(o.Root, ".mcp.json"), filepath.Join(o.Root, ".claude", "settings.json")
	write(t, mcp, userMCP)
	write(t, settings, userSettings)

	chs, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(chs); got != ".mcp.json:update settings.json:update" {
		t.Errorf("first run: %s", got)
	}
	m, s := read(t, mcp), read(t, settings)
	for _, want := range []string{`"github"`, `"gh-mcp"`, `"contextfs"`, `"command": "git"`, `"zeta": 1`, `2.50`} {
		if !strings.Contains(m, want) {
			t.Errorf(".mcp.json lacks %s:\n%s", want, m)
		}
	}
	if strings.Index(m, `"zeta"`) > strings.Index(m, `"alpha"`) {
		t.Errorf("the user's key order changed:\n%s", m)
	}
	for _, want := range []string{`"echo hi"`, `"Bash(make test)"`, "git contextfs context", "git contextfs session end --if-open", `"SessionEnd"`} {
		if !strings.Contains(s, want) {
			t.Errorf("settings.json lacks %s:\n%s", want, s)
		}
	}

	again, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(again); got != ".mcp.json:unchanged settings.json:unchanged" {
		t.Errorf("second run: %s", got)
	}
	if read(t, mcp) != m || read(t, settings) != s {
		t.Error("a second run changed a byte")
	}

	o.Remove = true
	rm, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rm); got != ".mcp.json:restore settings.json:restore" {
		t.Errorf("remove: %s", got)
	}
	if read(t, mcp) != userMCP || read(t, settings) != userSettings {
		t.Errorf("remove did not restore the files byte for byte:\n%s\n%s", read(t, mcp), read(t, settings))
	}
}

func TestRemoveDeletesFilesSetupCreated(t *testing.T) {
	o := options(t, "cursor")
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(o.Root, ".cursor", "mcp.json")
	if !strings.Contains(read(t, path), `"contextfs"`) {
		t.Fatal("no cursor entry written")
	}
	o.Remove = true
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".cursor/ left behind: %v", err)
	}
}

func TestRemoveAfterTheUserEditedTakesOutOnlyOurs(t *testing.T) {
	o := options(t, "cursor")
	path := filepath.Join(o.Root, ".cursor", "mcp.json")
	write(t, path, userMCP)
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(read(t, path), `"zeta": 1`, `"zeta": 2`, 1)
	write(t, path, edited)
	o.Remove = true
	chs, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	if chs[0].Action != "update" || strings.Contains(got, "contextfs") || !strings.Contains(got, `"zeta": 2`) || !strings.Contains(got, "gh-mcp") {
		t.Errorf("remove after an edit (%s):\n%s", chs[0].Action, got)
	}
}

func TestSetupNeverClobbersTheUsersOwnEntry(t *testing.T) {
	tests := []struct {
		client, file, content string
	}{
		{"cursor", ".cursor/mcp.json", `{"mcpServers": {"contextfs": {"command": "my-own"}}}`},
		{"codex", ".codex/config.toml", "[mcp_servers.contextfs]\ncommand = \"my-own\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			o := options(t, tt.client)
			path := filepath.Join(o.Root, tt.file)
			write(t, path, tt.content)
			_, err := Run(o)
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a ConflictError", err)
			}
			if read(t, path) != tt.content {
				t.Error("the user's file changed")
			}
		})
	}
}

func TestCodexUserSetupAppendsAMarkedBlock(t *testing.T) {
	o := options(t, "codex")
	o.User = true
	path := filepath.Join(o.Home, ".codex", "config.toml")
	orig := "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\""
	write(t, path, orig)
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	if !strings.HasPrefix(got, orig+"\n\n") || !strings.Contains(got, "[mcp_servers.contextfs]\ncommand = \"git\"\nargs = [\"contextfs\", \"mcp\"]\n") {
		t.Errorf("config.toml:\n%s", got)
	}
	if chs, _ := Run(o); chs[0].Action != "unchanged" {
		t.Errorf("second run: %s", chs[0].Action)
	}
	o.Remove = true
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if read(t, path) != orig {
		t.Errorf("not restored:\n%q", read(t, path))
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	o := options(t, "claude")
	o.DryRun = true
	chs, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(chs); got != ".mcp.json:create settings.json:create" {
		t.Errorf("dry run: %s", got)
	}
	if !strings.Contains(string(chs[1].After), "SessionStart") {
		t.Errorf("the dry run does not show the change: %s", chs[1].After)
	}
	if ents, _ := os.ReadDir(o.Root); len(ents) != 0 {
		t.Errorf("a dry run wrote %v", ents)
	}
}

func TestInvalidJSONIsReportedAndLeftAlone(t *testing.T) {
	o := options(t, "cursor")
	path := filepath.Join(o.Root, ".cursor", "mcp.json")
	write(t, path, "{not json")
	if _, err := Run(o); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("err = %v", err)
	}
	if read(t, path) != "{not json" {
		t.Error("the broken file was rewritten")
	}
}

func TestCursorEntryNamesTheWorkspaceAndUpgradesTheEarlierEntry(t *testing.T) {
	want := `"args": [
        "contextfs",
        "mcp",
        "--repo",
        "${workspaceFolder}"
      ]`
	earlier := `{"mcpServers": {"contextfs": {"command": "git", "args": ["contextfs", "mcp"]}, "other": {"command": "x"}}}` + "\n"
	tests := []struct {
		name, before string
		action       string
	}{
		{"a new file gets the entry with --repo", "", "create"},
		{"the entry an earlier setup wrote is replaced", earlier, "update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, "cursor")
			path := filepath.Join(o.Root, ".cursor", "mcp.json")
			if tt.before != "" {
				write(t, path, tt.before)
			}
			chs, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			got := read(t, path)
			if chs[0].Action != tt.action || !strings.Contains(got, want) {
				t.Fatalf("%s:\n%s", chs[0].Action, got)
			}
			if tt.before != "" && !strings.Contains(got, `"other"`) {
				t.Errorf("the user's entry is gone:\n%s", got)
			}
			if chs, err := Run(o); err != nil || chs[0].Action != "unchanged" {
				t.Errorf("second run: %v %v", chs, err)
			}
			o.Remove = true
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			if tt.before != "" && read(t, path) != tt.before {
				t.Errorf("remove did not restore the file:\n%s", read(t, path))
			}
		})
	}
}

func TestCursorRemoveTakesOutTheEarlierEntry(t *testing.T) {
	o := options(t, "cursor")
	o.Remove = true
	path := filepath.Join(o.Root, ".cursor", "mcp.json")
	write(t, path, `{"mcpServers": {"contextfs": {"command": "git", "args": ["contextfs", "mcp"]}, "other": {"command": "x"}}}`)
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); strings.Contains(got, "contextfs") || !strings.Contains(got, `"other"`) {
		t.Errorf("after remove:\n%s", got)
	}
}
