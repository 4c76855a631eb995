package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMCPTakesAnAgentsNaturalGuesses drives the real server process
// through the official TypeScript SDK with an agent's natural guesses.
// For a list argument it guesses a string (kind "code", tag "x", repos
// "all"): the server takes it as a one-element list, or split at commas
// where the CLI splits the same flag, instead of refusing the call. For an
// argument's name it guesses the plural of a singular one (tags, paths),
// the singular of a plural one (repo), body or text for content: the call
// reaches the tool under the real name. A call that also gives the real
// name, or a name that is no near guess, is still refused by the schema.
func TestMCPTakesAnAgentsNaturalGuesses(t *testing.T) {
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
	finds := func(t *testing.T, a dayAnswer) {
		t.Helper()
		if ids := found(a.Structured); !slices.Contains(ids, saved.ID) {
			t.Errorf("found %v, want %s", ids, saved.ID)
		}
	}
	tests := []struct {
		name    string
		step    dayStep
		refused bool
		check   func(t *testing.T, a dayAnswer)
	}{
		{"search kind as a string", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "kind": "memory"}}, false, finds},
		{"search kind as a comma-separated string is split as --kind is", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "kind": "memory,commit"}}, false, finds},
		{"search tag as a string filters by it", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "tag": "db"}}, false, finds},
		{"search tag as a string that no memory has finds none", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "tag": "frontend"}}, false,
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); len(ids) != 0 {
					t.Errorf("found %v, want none: the tag was not applied", ids)
				}
			}},
		{"search repos as a string", dayStep{Tool: "search_memory", Args: map[string]any{"query": "PostgreSQL storage", "repos": "all"}}, false, finds},
		{"list tag as a string", dayStep{Tool: "list_memories", Args: map[string]any{"tag": "db"}}, false,
			func(t *testing.T, a dayAnswer) {
				if ids := found(a.Structured); !slices.Equal(ids, []string{saved.ID}) {
					t.Errorf("listed %v, want [%s]", ids, saved.ID)
				}
			}},
		{"get_context repos as a string", dayStep{Tool: "get_context", Args: map[string]any{"task": "storage", "repos": "all"}}, false,
			func(t *testing.T, a dayAnswer) {
				if !strings.Contains(a.Text, saved.ID) {
					t.Errorf("the block lacks %s:\n%s", saved.ID, a.Text)
				}
			}},
		{"update add_tag as a comma-separated string adds each tag", dayStep{Tool: "update_memory", Args: map[string]any{"id": saved.ID, "add_tag": "sql, storage"}}, false,
			func(t *testing.T, a dayAnswer) {
				if !strings.Contains(a.Text, saved.ID) {
					t.Errorf("answer %q does not name %s", a.Text, saved.ID)
				}
				got := dayOK(t, env, dir, "list", "--tag", "sql", "--tag", "storage")
				if !strings.Contains(got, saved.ID) {
					t.Errorf("list --tag sql --tag storage lacks %s:\n%s", saved.ID, got)
				}
			}},
		{"update add_path as a string attaches the glob", dayStep{Tool: "update_memory", Args: map[string]any{"id": saved.ID, "add_path": "db/**"}}, false,
			func(t *testing.T, a dayAnswer) {
				got := dayOK(t, env, dir, "recall", saved.ID)
				if !strings.Contains(got, "- db/**") {
					t.Errorf("the memory lacks the glob db/**:\n%s", got)
				}
			}},
		// Names: after the lists, whose "list tag" wants the one memory.
		{"save with tags and paths saves the tags and globs", dayStep{Tool: "save_memory", Args: map[string]any{
			"type": "fact", "content": "Slack webhook URLs start with https://hooks.slack.com/services/.",
			"tags": []string{"slack", "rules"}, "paths": []string{"rules/slack.go"}}}, false,
			func(t *testing.T, a dayAnswer) {
				got := dayOK(t, env, dir, "list", "--tag", "slack", "--tag", "rules", "--path", "rules/slack.go")
				if !strings.Contains(got, "Slack webhook") {
					t.Errorf("list --tag slack --tag rules --path rules/slack.go lacks the memory:\n%s", got)
				}
			}},
		{"save with body saves the text", dayStep{Tool: "save_memory", Args: map[string]any{
			"type": "fact", "body": "Release tags are signed with the team key."}}, false,
			func(t *testing.T, a dayAnswer) {
				if got := dayOK(t, env, dir, "list"); !strings.Contains(got, "Release tags are signed") {
					t.Errorf("list lacks the memory saved with body:\n%s", got)
				}
			}},
		{"search with repo for repos is taken", dayStep{Tool: "search_memory", Args: map[string]any{"query": "slack webhook", "repo": "all"}}, false,
			func(t *testing.T, a dayAnswer) {
				if !strings.Contains(a.Text, "Slack webhook") {
					t.Errorf("the answer lacks the memory:\n%s", a.Text)
				}
			}},
		{"both the guess and the real name are refused", dayStep{Tool: "save_memory", Args: map[string]any{
			"type": "fact", "content": "x y z", "tag": []string{"a"}, "tags": []string{"b"}}}, true, nil},
		{"a name that is no near guess is refused", dayStep{Tool: "save_memory", Args: map[string]any{
			"type": "fact", "content": "x y z", "labels": []string{"a"}}}, true, nil},
	}
	steps := make([]dayStep, len(tests))
	for i, tc := range tests {
		steps[i] = tc.step
	}
	answers := dayMCP(t, node, client, env, dir, steps)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := answers[i]
			refused := a.IsError || a.Error != ""
			if refused != tc.refused {
				t.Fatalf("%s: refused %v, want %v: %s%s", tc.step.name(), refused, tc.refused, a.Error, a.Text)
			}
			if tc.check != nil {
				tc.check(t, a)
			}
		})
	}
}
