package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestSetupReportsAMissingFileItLeavesMissing: a file that does not exist
// and that setup does not create (project setup after user setup, where
// the user's file has every hook; --remove where there is nothing) is
// reported as "nothing to do", never as "unchanged", which says it is
// there; --json says "absent".
func TestSetupReportsAMissingFileItLeavesMissing(t *testing.T) {
	tests := []struct {
		name    string
		before  [][]string // setup runs first, in the repository
		args    []string
		missing string // the file, relative to the repository, that stays missing
		want    string // the line's end after "nothing to do: <file> does not exist"
	}{
		{"project settings after user setup", [][]string{{"setup", "claude", "--user"}}, []string{"setup", "claude"},
			".claude/settings.json", " and needs nothing (see the notes), so it is not created"},
		{"project settings after user setup, dry run", [][]string{{"setup", "claude", "--user"}}, []string{"setup", "claude", "--dry-run"},
			".claude/settings.json", " and needs nothing (see the notes), so it is not created"},
		{"codex hooks after user setup", [][]string{{"setup", "codex", "--user"}}, []string{"setup", "codex"},
			".codex/hooks.json", " and needs nothing (see the notes), so it is not created"},
		{"remove where setup never ran", nil, []string{"setup", "claude", "--remove"},
			".claude/settings.json", ", so there is nothing to remove"},
		{"remove twice", [][]string{{"setup", "claude"}, {"setup", "claude", "--remove"}}, []string{"setup", "claude", "--remove"},
			".mcp.json", ", so there is nothing to remove"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolateSetup(t)
			dir := testgit.Init(t)
			for _, args := range tc.before {
				ok(t, dir, args...)
			}
			path := filepath.Join(dir, tc.missing)
			out := ok(t, dir, tc.args...)
			if want := "nothing to do: " + path + " does not exist" + tc.want + "\n"; !strings.Contains(out, want) {
				t.Errorf("%s printed\n%s\nwant the line %q", strings.Join(tc.args, " "), out, want)
			}
			if strings.Contains(out, "unchanged "+path) {
				t.Errorf("reports the missing %s as unchanged:\n%s", tc.missing, out)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%s exists (%v), want it left missing", tc.missing, err)
			}
			var chs []struct{ Path, Action string }
			decodeJSON(t, ok(t, dir, append(tc.args, "--json")...), &chs)
			for _, c := range chs {
				if c.Path == path && c.Action != "absent" {
					t.Errorf("--json: %s is %q, want absent", tc.missing, c.Action)
				}
			}
		})
	}
}
