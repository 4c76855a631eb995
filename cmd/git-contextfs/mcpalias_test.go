package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// An agent's natural guess at an argument's name — the plural of a
// singular one (tags, paths), the singular of a plural one (repo), body or
// text for content — reaches the tool under its real name, through the
// official TypeScript SDK; a call that also gives the real name, or a
// name that is no near guess, is still refused by the schema.
func TestMCPArgumentNamesTakeTheNaturalGuess(t *testing.T) {
	node, client := dayClient(t)
	env := dayEnv(t)
	dir := testgit.Init(t)
	dayOK(t, env, dir, "init")
	tests := []struct {
		name    string
		step    dayStep
		refused bool
		check   func(t *testing.T, a dayAnswer)
	}{
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
