package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// isolateSetup points every place setup reads or writes for the user (the
// home directory, the state directory for backups, Codex's home) at this
// test's own temp dir, and returns the home directory.
func isolateSetup(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	return home
}

func TestSetupRemoveKeepsWhatClaudeCodeWroteSinceThroughTheCLI(t *testing.T) {
	home := isolateSetup(t)
	dir := testgit.Init(t)
	writeFile(t, home, ".claude.json", `{"numStartups": 1, "mcpServers": {}}`+"\n")
	ok(t, dir, "setup", "claude", "--user")
	// Claude Code writes its state, and the user takes our server out
	// (claude mcp remove contextfs -s user).
	var doc map[string]any
	decodeJSON(t, readFile(t, home, ".claude.json"), &doc)
	doc["numStartups"] = 42
	doc["projects"] = map[string]any{"/work/app": map[string]any{"history": []string{"state"}}}
	doc["oauthAccount"] = map[string]any{"email": "me@x"}
	delete(doc["mcpServers"].(map[string]any), "contextfs")
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, home, ".claude.json", string(raw))
	ok(t, dir, "setup", "claude", "--user")
	ok(t, dir, "setup", "claude", "--user", "--remove")
	got := readFile(t, home, ".claude.json")
	for _, want := range []string{`"numStartups": 42`, `"/work/app"`, `"me@x"`} {
		if !strings.Contains(got, want) {
			t.Errorf("remove lost %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"contextfs"`) {
		t.Errorf("remove left our entry:\n%s", got)
	}
}

func TestSetupKeepsASymlinkedSettingsFileThroughTheCLI(t *testing.T) {
	home := isolateSetup(t)
	dir := testgit.Init(t)
	dotfiles := t.TempDir()
	dotfile := filepath.Join(dotfiles, "settings.json")
	const theirs = `{"theme":"dark"}` + "\n"
	writeFile(t, dotfiles, "settings.json", theirs)
	link := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfile, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"setup", "claude", "--user"}, {"setup", "claude", "--user", "--remove"}} {
		// The report names the file written, not only the link.
		out := ok(t, dir, args...)
		if want := link + " (link to " + dotfile + ")\n"; !strings.Contains(out, want) {
			t.Errorf("%v printed:\n%s\nwant a line ending %q", args, out, want)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %v the settings file is no longer a symbolic link (%v)", args, err)
		}
		got := readFile(t, dotfiles, "settings.json")
		if isSetup := len(args) == 3; isSetup != strings.Contains(got, "git contextfs context") {
			t.Errorf("after %v the dotfile reads:\n%s", args, got)
		}
	}
	if got := readFile(t, dotfiles, "settings.json"); got != theirs {
		t.Errorf("remove did not restore the dotfile:\n%s", got)
	}
}

func TestSetupCodexRefusesTheUsersEntryInAnyTOMLFormThroughTheCLI(t *testing.T) {
	tests := []struct {
		name, content, wantErr string
	}{
		{"dotted keys", "model = \"o3\"\nmcp_servers.contextfs.command = \"/opt/cfs\"\n", ".codex/config.toml:2 already has its own mcp_servers.contextfs entry"},
		{"an inline table", "[mcp_servers]\ncontextfs = { command = \"/opt/cfs\" }\n", ".codex/config.toml:2 already has its own mcp_servers.contextfs entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateSetup(t)
			dir := testgit.Init(t)
			writeFile(t, dir, ".codex/config.toml", tt.content)
			r := cli(t, dir, "", "setup", "codex")
			if r.code != 1 || !strings.Contains(r.stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, tt.wantErr)
			}
			if got := readFile(t, dir, ".codex/config.toml"); got != tt.content {
				t.Errorf("config.toml changed:\n%s", got)
			}
		})
	}
}

func TestSetupSaysItAddsNoSecondContextHookThroughTheCLI(t *testing.T) {
	home := isolateSetup(t)
	dir := testgit.Init(t)
	userSettings := filepath.Join(home, ".claude", "settings.json")
	writeFile(t, home, ".claude/settings.json", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "git contextfs context"}]}]}}`+"\n")
	r := cli(t, dir, "", "setup", "claude")
	wantNote := "note: hooks.SessionStart in " + userSettings + ` already runs "git contextfs context", so setup adds no second hook`
	if r.code != 0 || !strings.Contains(r.stderr, wantNote) {
		t.Fatalf("exit %d, stderr %q; want a note %q", r.code, r.stderr, wantNote)
	}
	settings := readFile(t, dir, ".claude/settings.json")
	if strings.Contains(settings, "SessionStart") || !strings.Contains(settings, "SessionEnd") {
		t.Errorf("the project's settings.json:\n%s", settings)
	}
	var chs []struct {
		Path, Action string
		Notes        []string
	}
	decodeJSON(t, ok(t, dir, "setup", "claude", "--json"), &chs)
	if len(chs) != 2 || chs[1].Action != "unchanged" || len(chs[1].Notes) != 1 || !strings.Contains(chs[1].Notes[0], "hooks.SessionStart") {
		t.Errorf("setup --json: %+v", chs)
	}
}

// TestSetupFollowsNoCommittedLinkOutOfTheRepositoryThroughTheCLI: a cloned
// repository whose .codex/config.toml and .mcp.json are links to files
// outside it gets them refused, by name, and the files outside are left
// as they were.
func TestSetupFollowsNoCommittedLinkOutOfTheRepositoryThroughTheCLI(t *testing.T) {
	isolateSetup(t)
	dir := testgit.Init(t)
	outside := t.TempDir()
	const victimTOML, victimJSON = "model = \"o3\"\n", `{"mcpServers": {}}` + "\n"
	writeFile(t, outside, "victim.toml", victimTOML)
	writeFile(t, outside, "victim.json", victimJSON)
	tests := []struct{ client, link, victim, content string }{
		{"codex", ".codex/config.toml", "victim.toml", victimTOML},
		{"claude", ".mcp.json", "victim.json", victimJSON},
	}
	for _, tt := range tests {
		link := filepath.Join(dir, tt.link)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(filepath.Dir(link), filepath.Join(outside, tt.victim))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"setup", tt.client}, {"setup", tt.client, "--remove"}} {
			r := cli(t, dir, "", args...)
			if r.code != 1 || !strings.Contains(r.stderr, tt.link) || !strings.Contains(r.stderr, filepath.Join(outside, tt.victim)) ||
				!strings.Contains(r.stderr, "nothing written") {
				t.Errorf("%v: exit %d, stderr %q; want 1 and a refusal naming %s and its target", args, r.code, r.stderr, tt.link)
			}
			if got := readFile(t, outside, tt.victim); got != tt.content {
				t.Errorf("%v changed %s outside the repository:\n%s", args, tt.victim, got)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".claude")); err == nil {
		t.Errorf("setup claude wrote .claude after refusing .mcp.json")
	}
}
