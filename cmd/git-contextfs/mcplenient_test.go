package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMCPListArgumentsTakeABareString: an agent's natural guess for a
// list argument is a string (kind "code", tag "x", repos "all"); the
// server takes it as a one-element list, or split at commas where the
// CLI splits the same flag, instead of refusing the call. Driven through
// the official TypeScript SDK against the real server process.
func TestMCPListArgumentsTakeABareString(t *testing.T) {
	node, client := dayClient(t)
	env := dayEnv(t)
	dir := testgit.Init(t)
	dayOK(t, env, dir, "init")
	var saved struct{ ID string }
	if err := json.Unmarshal([]byte(dayOK(t, env, dir, "save", "--json", "--type", "decision", "--tag", "db",
		"We use PostgreSQL for storage. It has the JSON operators we need.")), &saved); err != nil || saved.ID == "" {
		t.Fatalf("save --json: %v", err)
	}

	// found reads the IDs of a search_memory or list_memories answer.
	found := func(raw json.RawMessage) []string {
		var out struct {
			Results  []struct{ ID string }
			Memories []struct{ ID string }
		}
		_ = json.Unmarshal(raw, &out)
		var ids []string
		for _, r := range append(out.Results, out.Memories...) {
			ids = append(ids, r.ID)
		}
		return ids
	}
	tests := []struct {
		name  string
		step  dayStep
		check func(t *testing.T, a dayAnswer)
	}{
		{"search kind as a string", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "kind": "memory"}},
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); !slices.Contains(ids, saved.ID) {
					t.Errorf("found %v, want %s", ids, saved.ID)
				}
			}},
		{"search kind as a comma-separated string is split as --kind is", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "kind": "memory,commit"}},
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); !slices.Contains(ids, saved.ID) {
					t.Errorf("found %v, want %s", ids, saved.ID)
				}
			}},
		{"search tag as a string filters by it", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "tag": "db"}},
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); !slices.Contains(ids, saved.ID) {
					t.Errorf("found %v, want %s", ids, saved.ID)
				}
			}},
		{"search tag as a string that no memory has finds none", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "tag": "frontend"}},
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); len(ids) != 0 {
					t.Errorf("found %v, want none: the tag was not applied", ids)
				}
			}},
		{"search repos as a string", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "repos": "all"}},
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); !slices.Contains(ids, saved.ID) {
					t.Errorf("found %v, want %s", ids, saved.ID)
				}
			}},
		{"list tag as a string", dayStep{Tool: "list_memories", Args: map[string]any{"tag": "db"}},
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); !slices.Equal(ids, []string{saved.ID}) {
					t.Errorf("listed %v, want [%s]", ids, saved.ID)
				}
			}},
		{"get_context repos as a string", dayStep{Tool: "get_context", Args: map[string]any{"task": "storage", "repos": "all"}},
			func(t *testing.T, a dayAnswer) {
				if !strings.Contains(a.Text, saved.ID) {
					t.Errorf("the block lacks %s:\n%s", saved.ID, a.Text)
				}
			}},
		{"update add_tag as a comma-separated string adds each tag", dayStep{Tool: "update_memory", Args: map[string]any{"id": saved.ID, "add_tag": "sql, storage"}},
			func(t *testing.T, a dayAnswer) {
				if !strings.Contains(a.Text, saved.ID) {
					t.Errorf("answer %q does not name %s", a.Text, saved.ID)
				}
				got := dayOK(t, env, dir, "list", "--tag", "sql", "--tag", "storage")
				if !strings.Contains(got, saved.ID) {
					t.Errorf("list --tag sql --tag storage lacks %s:\n%s", saved.ID, got)
				}
			}},
		{"update add_path as a string attaches the glob", dayStep{Tool: "update_memory", Args: map[string]any{"id": saved.ID, "add_path": "db/**"}},
			func(t *testing.T, a dayAnswer) {
				got := dayOK(t, env, dir, "recall", saved.ID)
				if !strings.Contains(got, "- db/**") {
					t.Errorf("the memory lacks the glob db/**:\n%s", got)
				}
			}},
	}
	steps := make([]dayStep, len(tests))
	for i, tc := range tests {
		steps[i] = tc.step
	}
	answers := dayMCP(t, node, client, env, dir, steps)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := answers[i]
			if a.IsError || a.Error != "" {
				t.Fatalf("%s refused: %s%s", tc.step.name(), a.Error, a.Text)
			}
			tc.check(t, a)
		})
	}
}
