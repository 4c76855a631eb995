package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// sessionStartCommands returns the SessionStart hook commands of a Claude
// Code settings file (none when it is missing).
func sessionStartCommands(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, g := range doc.Hooks["SessionStart"] {
		for _, h := range g.Hooks {
			out = append(out, h.Command)
		}
	}
	return out
}

// TestSessionStartInjectsTheBlockOnce runs, as Claude Code does at the
// start of a session, every SessionStart hook of the user's settings and
// of the project's, whichever order setup ran in, and counts the context
// blocks they print: one. The user's hook leaves the block to a project
// hook that prints it (context --unless-project-hook), and setup --user
// says so; elsewhere the user's hook prints it.
func TestSessionStartInjectsTheBlockOnce(t *testing.T) {
	tests := []struct {
		name  string
		steps [][]string // setup command lines, in order
		note  string     // a note setup prints on stderr at the last step
	}{
		{"project, then user", [][]string{{"setup", "claude"}, {"setup", "claude", "--user"}}, "injected once"},
		{"user, then project", [][]string{{"setup", "claude", "--user"}, {"setup", "claude"}}, "adds no second hook"},
		{"user only", [][]string{{"setup", "claude", "--user"}}, ""},
		{"project only", [][]string{{"setup", "claude"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := isolateSetup(t)
			dir := hookedRepo(t)
			save(t, dir, "--type", "project-brief", "Billing turns usage events into invoices.")
			var stderr string
			for _, step := range tt.steps {
				r := cli(t, dir, "", step...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d: %s", step, r.code, r.stderr)
				}
				stderr = r.stderr
			}
			if tt.note != "" && !strings.Contains(stderr, tt.note) {
				t.Errorf("setup said %q; want a note with %q", stderr, tt.note)
			}
			cmds := append(sessionStartCommands(t, filepath.Join(home, ".claude", "settings.json")),
				sessionStartCommands(t, filepath.Join(dir, ".claude", "settings.json"))...)
			var out strings.Builder
			for _, c := range cmds {
				cmd := exec.Command("sh", "-c", c)
				cmd.Dir = dir
				cmd.Env = append(testgit.Env(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
				b, err := cmd.Output()
				if err != nil {
					t.Fatalf("%q: %v", c, err)
				}
				out.Write(b)
			}
			if n := strings.Count(out.String(), "# Project memory (contextfs)"); n != 1 {
				t.Errorf("SessionStart hooks %q printed %d blocks, want 1:\n%s", cmds, n, out.String())
			}
		})
	}
	// Elsewhere (no project hook) the user's hook prints the block.
	t.Run("user hook in another repository", func(t *testing.T) {
		home := isolateSetup(t)
		dir := hookedRepo(t)
		ok(t, dir, "setup", "claude")
		ok(t, dir, "setup", "claude", "--user")
		other := hookedRepo(t)
		cmds := sessionStartCommands(t, filepath.Join(home, ".claude", "settings.json"))
		if len(cmds) != 1 {
			t.Fatalf("user SessionStart hooks %q", cmds)
		}
		cmd := exec.Command("sh", "-c", cmds[0])
		cmd.Dir = other
		cmd.Env = append(testgit.Env(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		b, err := cmd.Output()
		if err != nil || !strings.Contains(string(b), "# Project memory (contextfs)") {
			t.Errorf("user hook in a repository without its own: %v\n%s", err, b)
		}
	})
}
