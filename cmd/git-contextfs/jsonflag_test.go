package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestJSONFlagIsFormatJSONWhereAFormatIsChosen: most commands take --json,
// so those that choose a --format (context, graph, as review) take it too,
// printing the same bytes as --format json.
func TestJSONFlagIsFormatJSONWhereAFormatIsChosen(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	id := ok(t, dir, "save", "--type", "decision", "--data", `{"decision":"pgxpool","status":"accepted"}`, "We pool Postgres connections with pgxpool.")
	ok(t, dir, "save", "--type", "fact", "--link", "related:"+strings.TrimSpace(id), "Postgres runs in version 16.")
	for _, tc := range []struct {
		name   string
		json   []string
		format []string
	}{
		{"context", []string{"context", "--json"}, []string{"context", "--format", "json"}},
		{"context with a task", []string{"context", "--task", "pooling", "--json"}, []string{"context", "--task", "pooling", "--format", "json"}},
		{"graph", []string{"graph", "--json"}, []string{"graph", "--format", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := ok(t, dir, tc.json...), ok(t, dir, tc.format...)
			if got != want {
				t.Errorf("--json printed\n%s\nwant (--format json)\n%s", got, want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("--json printed no JSON:\n%s", got)
			}
		})
	}
}
