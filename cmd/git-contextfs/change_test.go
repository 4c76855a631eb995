package main

import (
	"slices"
	"strings"
	"testing"
)

// TestCLISaveOfAChangedPreferenceIsNotSkipped is the report that found
// it, through the real CLI: a team preference saved as "Use tabs ..." and
// then "Use spaces ..." (similarity 0.77, above the duplicate threshold)
// must write the second, supersede the first (newest wins: only the
// newer in the block and search) and say so; saving the first again in
// other words is still a repeat, not saved.
func TestCLISaveOfAChangedPreferenceIsNotSkipped(t *testing.T) {
	dir := hookedRepo(t)
	pref := func(text string) result {
		return cli(t, dir, "", "save", "--type", "preference", "--data", `{"scope":"team"}`, text)
	}
	tabs := pref("Use tabs for indentation in YAML files")
	if tabs.code != 0 {
		t.Fatalf("save tabs: exit %d: %s", tabs.code, tabs.stderr)
	}
	old := strings.TrimSpace(tabs.stdout)
	tests := []struct {
		name, text string
		written    bool   // a new memory, not old's ID
		stderr     string // what the save says
	}{
		{"tabs to spaces is written and supersedes tabs", "Use spaces for indentation in YAML files", true,
			`supersedes: ` + old + ` Use tabs for indentation in YAML files (text differs: "spaces", was "tabs"): newest wins`},
		{"spaces said again in other words is a repeat, not saved", "Use spaces for the indentation of YAML files.", false,
			"not saved: "},
	}
	var newer string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := pref(tt.text)
			if r.code != 0 {
				t.Fatalf("save: exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("save said %q; want %q", r.stderr, tt.stderr)
			}
			id := strings.TrimSpace(r.stdout)
			if tt.written {
				if id == old {
					t.Fatalf("save printed %s, the memory it changes: not written", id)
				}
				newer = id
			} else if id != newer {
				t.Errorf("save printed %s; want the memory it repeats, %s", id, newer)
			}
			if ids := blockIDs(t, dir, ""); slices.Contains(ids, old) || !slices.Contains(ids, newer) {
				t.Errorf("block shows %v; want %s and not %s", ids, newer, old)
			}
			if ids := searchIDs(t, dir, "indentation in YAML files"); slices.Contains(ids, old) || !slices.Contains(ids, newer) {
				t.Errorf("search finds %v; want %s and not %s", ids, newer, old)
			}
		})
	}
}
