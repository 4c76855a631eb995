package agentsetup

import (
	"encoding/json"
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
			// The earlier entry is ours too: remove takes it out with the
			// new one, and keeps the user's.
			if tt.before != "" {
				if got := read(t, path); strings.Contains(got, ServerName) || !strings.Contains(got, `"other"`) {
					t.Errorf("after remove:\n%s", got)
				}
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

func TestRemoveNeverPutsBackAStaleBackupOverLaterChanges(t *testing.T) {
	tests := []struct {
		name, client string
		user         bool
		file, before string
		// edit is what others write after the first setup: it drops our
		// entry (or one of them) and adds their own content, so the second
		// setup writes again over a file the first backup no longer
		// describes. "" is no edit and no second setup.
		edit          string
		want, notWant []string
	}{
		{
			name: "~/.claude.json keeps what Claude Code wrote after the first setup", client: "claude", user: true,
			file: ".claude.json", before: `{"numStartups": 1, "mcpServers": {}}` + "\n",
			edit: `{"numStartups": 42, "mcpServers": {}, "projects": {"/work/app": {"history": ["state"]}}, "oauthAccount": {"email": "me@x"}}` + "\n",
			want: []string{`"numStartups": 42`, `"/work/app"`, `"oauthAccount"`}, notWant: []string{ServerName},
		},
		{
			name: "a project .mcp.json keeps a server added after the first setup", client: "claude",
			file: ".mcp.json", before: userMCP,
			edit: `{"mcpServers": {"github": {"command": "gh-mcp"}, "new": {"command": "mine"}}}` + "\n",
			want: []string{`"new"`, `"mine"`, `"gh-mcp"`}, notWant: []string{ServerName},
		},
		{
			name: "a codex config.toml keeps a setting added after the first setup", client: "codex",
			file: ".codex/config.toml", before: "model = \"o3\"\n",
			edit: "model = \"o3\"\napproval_policy = \"never\"\n",
			want: []string{"model = \"o3\"", "approval_policy = \"never\""}, notWant: []string{ServerName},
		},
		{
			// The second setup backs up a file that still holds our
			// SessionStart hook; remove must not put that hook back.
			name: "a settings.json that kept our SessionStart hook but lost SessionEnd", client: "claude",
			file: ".claude/settings.json", before: `{"theme": "dark"}` + "\n",
			edit: `{"theme": "dark", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "` + contextCommand + `"}]}]}}` + "\n",
			want: []string{`"theme": "dark"`}, notWant: []string{"git contextfs", "hooks"},
		},
		{
			// A committed file that had our hook before the first setup
			// (a teammate's setup): its backup must not hold it either.
			name: "a settings.json that had our SessionStart hook before the first setup", client: "claude",
			file:   ".claude/settings.json",
			before: `{"theme": "dark", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "` + contextCommand + `"}]}]}}` + "\n",
			want:   []string{`"theme": "dark"`}, notWant: []string{"git contextfs", "hooks"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, tt.client)
			o.User = tt.user
			base := o.Root
			if tt.user {
				base = o.Home
			}
			path := filepath.Join(base, tt.file)
			write(t, path, tt.before)
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			if tt.edit != "" {
				write(t, path, tt.edit)
				if _, err := Run(o); err != nil {
					t.Fatal(err)
				}
			}
			if !strings.Contains(read(t, path), ServerName) {
				t.Fatalf("the second setup wrote no entry:\n%s", read(t, path))
			}
			o.Remove = true
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			got := read(t, path)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("after remove the file lacks %s:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("after remove the file still has %s:\n%s", w, got)
				}
			}
		})
	}
}

// TestRemoveTakesOurEntriesOutOfABackupThatHoldsThem: a backup that an
// earlier version saved with our hook in it (the file had it already) is
// put back without it.
func TestRemoveTakesOurEntriesOutOfABackupThatHoldsThem(t *testing.T) {
	o := options(t, "claude")
	path := filepath.Join(o.Root, ".claude", "settings.json")
	f := claudeHooksFile(path, nil, false)
	orig := []byte(`{"theme": "dark", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "` + contextCommand + `"}]}]}}` + "\n")
	cur, _, err := f.add(orig)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, string(cur))
	raw, err := json.Marshal(backup{Path: path, Existed: true, Original: orig, Written: hash(cur)})
	if err != nil {
		t.Fatal(err)
	}
	write(t, backupPath(o, path), string(raw))
	o.Remove = true
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); strings.Contains(got, "git contextfs") || !strings.Contains(got, `"theme"`) {
		t.Errorf("after remove:\n%s", got)
	}
}

func TestSetupWritesThroughASymlinkAndKeepsIt(t *testing.T) {
	tests := []struct {
		name, client string
		user         bool
		file, before string
		want         string
	}{
		{"a dotfiles-managed ~/.claude/settings.json", "claude", true, ".claude/settings.json", `{"theme":"dark"}` + "\n", "git contextfs context"},
		{"a project .mcp.json linked to a file in the repository", "claude", false, ".mcp.json", userMCP, `"contextfs"`},
		{"a codex config.toml linked to a file in the repository", "codex", false, ".codex/config.toml", "model = \"o3\"\n", "[mcp_servers.contextfs]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, tt.client)
			o.User = tt.user
			base := o.Root
			// The user's files may link anywhere (a dotfiles folder); the
			// project's only within the repository.
			dotfile := filepath.Join(o.Root, "config", "shared", filepath.Base(tt.file))
			if tt.user {
				base = o.Home
				dotfile = filepath.Join(t.TempDir(), "dotfiles", filepath.Base(tt.file))
			}
			link := filepath.Join(base, tt.file)
			write(t, dotfile, tt.before)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dotfile, link); err != nil {
				t.Fatal(err)
			}
			isLink := func(when string) {
				t.Helper()
				fi, err := os.Lstat(link)
				if err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("%s: %s is no longer a symbolic link (%v)", when, link, err)
				}
			}
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			isLink("after setup")
			if got := read(t, dotfile); !strings.Contains(got, tt.want) {
				t.Errorf("the link's target lacks %s:\n%s", tt.want, got)
			}
			o.Remove = true
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			isLink("after remove")
			if got := read(t, dotfile); got != tt.before {
				t.Errorf("remove did not restore the link's target:\n%s", got)
			}
		})
	}
}

// TestProjectSetupFollowsNoLinkOutOfTheRepository: the project's files
// are a cloned repository's, so a committed link (the file's or a
// folder's on the way to it) that leads out of the work tree, or into
// the git directory, is refused before anything is written, setup and
// remove alike; the error names the link and where it leads.
func TestProjectSetupFollowsNoLinkOutOfTheRepository(t *testing.T) {
	tests := []struct {
		name, client string
		link         string // what in the repository is the link
		file         string // the file setup writes, under the link
		inGitDir     bool   // the link leads into .git, not out of the repository
		content      string // the file the link leads to, "" for none
	}{
		{name: ".mcp.json linked to a file outside", client: "claude", link: ".mcp.json", content: userMCP},
		{name: ".claude/settings.json linked to a file outside", client: "claude", link: ".claude/settings.json", content: `{"theme": "dark"}` + "\n"},
		{name: ".codex/config.toml linked to a file outside", client: "codex", link: ".codex/config.toml", content: "model = \"o3\"\n"},
		{name: ".codex linked to a folder outside", client: "codex", link: ".codex", file: "config.toml", content: "model = \"o3\"\n"},
		{name: ".codex linked to a folder outside without config.toml", client: "codex", link: ".codex", file: "config.toml"},
		{name: ".cursor/mcp.json linked into .git", client: "cursor", link: ".cursor/mcp.json", inGitDir: true, content: `{"mcpServers": {}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, remove := range []bool{false, true} {
				o := options(t, tt.client)
				o.Remove = remove
				outside := filepath.Join(t.TempDir(), "victim")
				if tt.inGitDir {
					outside = filepath.Join(o.GitDir, "victim")
				}
				dest, written := outside, outside
				if tt.file != "" {
					if err := os.MkdirAll(outside, 0o755); err != nil {
						t.Fatal(err)
					}
					written = filepath.Join(outside, tt.file)
				}
				if tt.content != "" {
					write(t, written, tt.content)
				}
				link := filepath.Join(o.Root, tt.link)
				if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(dest, link); err != nil {
					t.Fatal(err)
				}
				if remove && tt.content != "" {
					// What setup would have written there: remove leaves it.
					next, _, err := fileOf(t, o, filepath.Join(link, tt.file)).add([]byte(tt.content))
					if err != nil {
						t.Fatal(err)
					}
					tt.content = string(next)
					write(t, written, tt.content)
				}
				_, err := Run(o)
				if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), outside) || !strings.Contains(err.Error(), "nothing written") {
					t.Errorf("remove %v: err = %v, want a refusal naming %s and %s", remove, err, link, outside)
				}
				if tt.content == "" {
					if _, err := os.Lstat(written); err == nil {
						t.Errorf("remove %v: setup created %s", remove, written)
					}
				} else if got := read(t, written); got != tt.content {
					t.Errorf("remove %v: the file outside changed:\n%s", remove, got)
				}
				if _, err := os.Lstat(filepath.Join(o.GitDir, "contextfs")); err == nil {
					t.Errorf("remove %v: setup wrote a backup", remove)
				}
				if got, err := os.Readlink(link); err != nil || got != dest {
					t.Errorf("remove %v: the link changed: %q %v", remove, got, err)
				}
				if tt.content != "" && !remove {
					// A dry run refuses it too.
					o.DryRun = true
					if _, err := Run(o); err == nil {
						t.Errorf("a dry run reports no refusal")
					}
				}
			}
		})
	}
}

// fileOf is the file of o's client at path.
func fileOf(t *testing.T, o Options, path string) file {
	t.Helper()
	files, err := filesFor(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Clean(f.path) == filepath.Clean(path) {
			return f
		}
	}
	t.Fatalf("no file %s for %s", path, o.Client)
	return file{}
}

func TestSetupRefusesADanglingSymlink(t *testing.T) {
	o := options(t, "cursor")
	link := filepath.Join(o.Root, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone.json")
	if err := os.Symlink(missing, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(o); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v, want a refusal naming the symbolic link", err)
	}
	if dest, err := os.Readlink(link); err != nil || dest != missing {
		t.Errorf("the link changed: %q %v", dest, err)
	}
}

func TestCodexSetupFindsTheUsersEntryInEveryTOMLForm(t *testing.T) {
	tests := []struct {
		name, content, wantErr string
	}{
		{"dotted keys at the top level", "mcp_servers.contextfs.command = \"/opt/cfs\"\n", "config.toml:1 already has its own mcp_servers.contextfs entry"},
		{"an inline table under [mcp_servers]", "model = \"o3\"\n\n[mcp_servers]\ncontextfs = { command = \"/opt/cfs\" }\n", "config.toml:4 already has its own"},
		{"dotted keys under [mcp_servers]", "[mcp_servers]\ncontextfs.command = \"/opt/cfs\"\ncontextfs.args = []\n", "config.toml:2 already has its own"},
		{"a quoted key under [mcp_servers]", "[mcp_servers]\n\"contextfs\" = {command = \"x\"}\n", "config.toml:2 already has its own"},
		{"inside an inline mcp_servers table", "mcp_servers = { other = { command = \"x\" }, contextfs = { command = \"y\" } }\n", "config.toml:1 already has its own"},
		{"a table header with spaces and a literal key", "[ mcp_servers . 'contextfs' ]\ncommand = \"x\"\n", "config.toml:1 already has its own"},
		{"a sub-table of the entry", "[mcp_servers.contextfs.env]\nX = \"1\"\n", "config.toml:1 already has its own"},
		{"an inline mcp_servers table a table may not extend", "mcp_servers = { other = { command = \"x\" } }\n", "config.toml:1 defines mcp_servers as an inline table"},
		{"a string that does not end", "model = \"o3\n[mcp_servers.other]\n", "config.toml:1: setup cannot read this TOML"},
		{"a key defined twice", "model = \"o3\"\n\nmodel = \"gpt-5\"\n", "config.toml:3: setup cannot read this TOML"},
		{"a table defined twice", "[tui]\na = 1\n[tui]\nb = 2\n", "config.toml:3: setup cannot read this TOML"},
		{"mcp_servers a string our table cannot extend", "mcp_servers = \"none\"\n", "setup's [mcp_servers.contextfs] table would not fit this TOML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, "codex")
			path := filepath.Join(o.Root, ".codex", "config.toml")
			write(t, path, tt.content)
			if _, err := Run(o); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if read(t, path) != tt.content {
				t.Errorf("the user's file changed:\n%s", read(t, path))
			}
		})
	}
}

func TestCodexSetupAppendsToTOMLThatOnlyMentionsOurName(t *testing.T) {
	tests := []struct {
		name, content string
	}{
		{"a commented-out header", "# [mcp_servers.contextfs]\nmodel = \"o3\"\n"},
		{"a header inside a multi-line string", "notes = \"\"\"\n[mcp_servers.contextfs]\n\"\"\"\nlit = '''\n[mcp_servers.contextfs]'''\n"},
		{"another server as dotted keys", "mcp_servers.other.command = \"x\"\n"},
		{"contextfs in a profile, not at the top level", "[profiles.work]\nmcp_servers.contextfs.command = \"x\"\n"},
		{"a typical Codex config", "model = \"gpt-5\"\n[projects.\"/home/me/app\"]\ntrust_level = \"trusted\"\n\n[mcp_servers.github]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-github\"]\nenv = { \"GITHUB_TOKEN\" = \"x\" }\nstartup_timeout_sec = 20.5\n[tui]\nnotifications = [\"agent-turn-complete\"]\n"},
		{"CRLF line endings", "model = \"o3\"\r\n[mcp_servers.other] # theirs\r\ncommand = \"x\"\r\n"},
		{"a byte-order mark", "\ufeffmodel = \"o3\"\n"},
		{"an array spanning lines", "[tools]\nlist = [\n  [1, 2], # c\n  { a = \"contextfs\" },\n]\nwhen = 1979-05-27 07:32:00\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, "codex")
			path := filepath.Join(o.Root, ".codex", "config.toml")
			write(t, path, tt.content)
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			if got := read(t, path); !strings.HasPrefix(got, tt.content) || !strings.HasSuffix(got, codexBlock()) {
				t.Errorf("config.toml:\n%s", got)
			}
		})
	}
}

func TestClaudeHooksAreNotAddedBesideAnEquivalentHook(t *testing.T) {
	ownContext := `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "git contextfs context --budget 1500"}]}]}}` + "\n"
	tests := []struct {
		name string
		// files under the project root (p/) or the home directory (h/)
		files                map[string]string
		userSetupFirst       bool
		wantStarts, wantEnds int // hooks in the project's settings.json
	}{
		{name: "the user's own SessionStart hook runs git contextfs context",
			files:      map[string]string{"p/.claude/settings.json": ownContext},
			wantStarts: 1, wantEnds: 1},
		{name: "the user's settings already have setup's hooks",
			userSetupFirst: true, wantStarts: 0, wantEnds: 0},
		{name: "the user's own hook in ~/.claude/settings.json runs git contextfs context",
			files:      map[string]string{"h/.claude/settings.json": ownContext},
			wantStarts: 0, wantEnds: 1},
		{name: "the project's local settings run git contextfs context",
			files:      map[string]string{"p/.claude/settings.local.json": ownContext},
			wantStarts: 0, wantEnds: 1},
		{name: "a hook that only mentions contextfs is not equivalent",
			files:      map[string]string{"p/.claude/settings.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo git contextfs contexts"}]}]}}`},
			wantStarts: 2, wantEnds: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, "claude")
			for name, content := range tt.files {
				dir, rel, _ := strings.Cut(name, "/")
				base := o.Root
				if dir == "h" {
					base = o.Home
				}
				write(t, filepath.Join(base, rel), content)
			}
			if tt.userSetupFirst {
				u := o
				u.User = true
				if _, err := Run(u); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Run(o); err != nil {
				t.Fatal(err)
			}
			settings := filepath.Join(o.Root, ".claude", "settings.json")
			got := ""
			if _, err := os.Stat(settings); err == nil {
				got = read(t, settings)
				if tt.wantStarts+tt.wantEnds == 0 {
					t.Errorf("setup created a settings.json with no hook in it: %q", got)
				}
			}
			var doc struct {
				Hooks map[string][]struct {
					Hooks []struct{ Command string }
				}
			}
			if got != "" {
				if err := json.Unmarshal([]byte(got), &doc); err != nil {
					t.Fatal(err)
				}
			}
			count := func(ev string) int {
				n := 0
				for _, g := range doc.Hooks[ev] {
					n += len(g.Hooks)
				}
				return n
			}
			if count("SessionStart") != tt.wantStarts || count("SessionEnd") != tt.wantEnds {
				t.Errorf("SessionStart hooks %d (want %d), SessionEnd hooks %d (want %d):\n%s",
					count("SessionStart"), tt.wantStarts, count("SessionEnd"), tt.wantEnds, got)
			}
		})
	}
}

// codexHookCommands returns the commands of the hooks.json at path by
// event ("" when the file does not exist).
func codexHookCommands(t *testing.T, path string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, raw)
	}
	out := map[string][]string{}
	for ev, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Type != "command" {
					t.Errorf("%s: a %s hook of type %q", path, ev, h.Type)
				}
				out[ev] = append(out[ev], h.Command)
			}
		}
	}
	return out
}

func TestCodexSetupWritesItsHooksBesideTheUsersOwn(t *testing.T) {
	const theirs = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}]}, "x": 1}` + "\n"
	tests := []struct {
		name     string
		user     bool
		existing string // the hooks.json before setup ("" : none)
		want     map[string][]string
		// actions of config.toml and hooks.json: setup, then --remove
		setup, remove string
	}{
		{name: "a project without hooks.json gets one, which --remove deletes",
			want:  map[string][]string{"UserPromptSubmit": {promptCommand}, "Stop": {stopCommand}},
			setup: "config.toml:create hooks.json:create", remove: "config.toml:delete hooks.json:delete"},
		{name: "the project's own Stop hook stays, ours runs after it, --remove restores the file byte for byte",
			existing: theirs,
			want:     map[string][]string{"UserPromptSubmit": {promptCommand}, "Stop": {"notify-send done", stopCommand}},
			setup:    "config.toml:create hooks.json:update", remove: "config.toml:delete hooks.json:restore"},
		{name: "the user's hooks.json in CODEX_HOME", user: true, existing: theirs,
			want:  map[string][]string{"UserPromptSubmit": {promptCommand}, "Stop": {"notify-send done", stopCommand}},
			setup: "config.toml:create hooks.json:update", remove: "config.toml:delete hooks.json:restore"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, "codex")
			o.User = tt.user
			dir := filepath.Join(o.Root, ".codex")
			if tt.user {
				o.CodexHome = filepath.Join(t.TempDir(), "codex-home")
				dir = o.CodexHome
			}
			path := filepath.Join(dir, "hooks.json")
			if tt.existing != "" {
				write(t, path, tt.existing)
			}
			chs, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(chs); got != tt.setup {
				t.Errorf("setup: %s, want %s", got, tt.setup)
			}
			got := codexHookCommands(t, path)
			if len(got) != len(tt.want) {
				t.Errorf("hooks.json has events %v, want %v", got, tt.want)
			}
			for ev, cmds := range tt.want {
				if strings.Join(got[ev], " | ") != strings.Join(cmds, " | ") {
					t.Errorf("hooks.%s runs %q, want %q", ev, got[ev], cmds)
				}
			}
			written := read(t, path)
			if tt.existing != "" && !strings.Contains(written, `"x": 1`) || tt.existing != "" && !strings.Contains(written, `"timeout": 5`) {
				t.Errorf("setup lost the user's keys:\n%s", written)
			}

			again, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(again); got != "config.toml:unchanged hooks.json:unchanged" || read(t, path) != written {
				t.Errorf("a second run: %s, or a byte changed", got)
			}

			o.Remove = true
			rm, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(rm); got != tt.remove {
				t.Errorf("remove: %s, want %s", got, tt.remove)
			}
			if tt.existing == "" {
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left behind: %v", dir, err)
				}
			} else if got := read(t, path); got != tt.existing {
				t.Errorf("remove did not restore hooks.json byte for byte:\n%s", got)
			}
		})
	}
}

// Codex runs the user's hooks.json and the project's together: a
// project's setup adds none the user's file already has, and says so.
func TestCodexProjectHooksAreNotAddedBesideTheUsersOwn(t *testing.T) {
	o := options(t, "codex")
	u := o
	u.User = true
	if _, err := Run(u); err != nil {
		t.Fatal(err)
	}
	chs, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(chs); got != "config.toml:create hooks.json:absent" {
		t.Errorf("project setup after user setup: %s", got)
	}
	if notes := strings.Join(chs[1].Notes, "\n"); !strings.Contains(notes, "hooks.UserPromptSubmit") || !strings.Contains(notes, "hooks.Stop") ||
		!strings.Contains(notes, "Codex would run both") {
		t.Errorf("notes: %q", notes)
	}
	if _, err := os.Stat(filepath.Join(o.Root, ".codex", "hooks.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("setup wrote a project hooks.json with no hook in it: %v", err)
	}
}
