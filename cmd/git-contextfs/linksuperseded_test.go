package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestLinkToASupersededMemorySaysSo: a link to an old version is made —
// it may name history on purpose — but the CLI (on stderr) and MCP
// link_memories (in its text and target_superseded_by) name the memory
// that supersedes it, the same through both adapters; a link to a current
// memory, or from the memory that supersedes the target, says nothing more.
func TestLinkToASupersededMemorySaysSo(t *testing.T) {
	// memories saves alpha, evolves it into its new version, and saves
	// two more, in a new repository.
	type ids struct{ old, newer, c, d string }
	setup := func(t *testing.T, env []string) (string, ids) {
		dir := testgit.Init(t)
		dayOK(t, env, dir, "init")
		var m ids
		m.old = strings.TrimSpace(dayOK(t, env, dir, "save", "--type", "fact", "alpha one fact here"))
		m.newer = strings.TrimSpace(dayOK(t, env, dir, "evolve", m.old, "alpha two, evolved"))
		m.c = strings.TrimSpace(dayOK(t, env, dir, "save", "--type", "fact", "gamma three other fact"))
		m.d = strings.TrimSpace(dayOK(t, env, dir, "save", "--type", "fact", "delta four more facts"))
		return dir, m
	}
	tests := []struct {
		name     string
		link     func(m ids) (from, to string)
		wantNote func(m ids) []string // the superseding IDs the note names; nil: no note
	}{
		{"a link to a current memory has no note",
			func(m ids) (string, string) { return m.c, m.newer }, func(ids) []string { return nil }},
		{"a link to a superseded memory names what supersedes it",
			func(m ids) (string, string) { return m.d, m.old }, func(m ids) []string { return []string{m.newer} }},
		{"the superseding memory linking its old version has no note",
			func(m ids) (string, string) { return m.newer, m.old }, func(ids) []string { return nil }},
	}
	// linked checks that from's file now links to to.
	linked := func(t *testing.T, env []string, dir, from, to string) {
		t.Helper()
		if out := dayOK(t, env, dir, "related", from); !strings.Contains(out, to) {
			t.Errorf("related %s does not reach %s: the link was not written:\n%s", from, to, out)
		}
	}

	t.Run("cli", func(t *testing.T) {
		env := dayEnv(t)
		dir, m := setup(t, env)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				from, to := tc.link(m)
				r := dayCLI(t, env, dir, "link", from, to)
				if r.code != 0 {
					t.Fatalf("link %s %s: exit %d\n%s", from, to, r.code, r.stderr)
				}
				want := tc.wantNote(m)
				note := strings.Contains(r.stderr, "note:")
				switch {
				case want == nil && note:
					t.Errorf("stderr has a note, want none:\n%s", r.stderr)
				case want != nil && (!note || !strings.Contains(r.stderr, to+" is superseded by "+strings.Join(want, ", "))):
					t.Errorf("stderr does not say %s is superseded by %v:\n%s", to, want, r.stderr)
				}
				linked(t, env, dir, from, to)
			})
		}
	})

	t.Run("mcp", func(t *testing.T) {
		node, client := dayClient(t)
		env := dayEnv(t)
		dir, m := setup(t, env)
		steps := make([]dayStep, len(tests))
		for i, tc := range tests {
			from, to := tc.link(m)
			steps[i] = dayStep{Tool: "link_memories", Args: map[string]any{"from": from, "to": to}}
		}
		answers := dayMCP(t, node, client, env, dir, steps)
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				from, to := tc.link(m)
				a := answers[i]
				if a.IsError || a.Error != "" {
					t.Fatalf("link_memories refused: %s%s", a.Error, a.Text)
				}
				var out struct {
					TargetSupersededBy []string `json:"target_superseded_by"`
				}
				if err := json.Unmarshal(a.Structured, &out); err != nil {
					t.Fatalf("structured %s: %v", a.Structured, err)
				}
				want := tc.wantNote(m)
				if !slices.Equal(out.TargetSupersededBy, want) {
					t.Errorf("target_superseded_by %v, want %v", out.TargetSupersededBy, want)
				}
				note := strings.Contains(a.Text, "note:")
				switch {
				case want == nil && note:
					t.Errorf("the text has a note, want none:\n%s", a.Text)
				case want != nil && (!note || !strings.Contains(a.Text, to+" is superseded by "+strings.Join(want, ", "))):
					t.Errorf("the text does not say %s is superseded by %v:\n%s", to, want, a.Text)
				}
				linked(t, env, dir, from, to)
			})
		}
	})
}
