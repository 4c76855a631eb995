package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// schema --json writes snake_case keys, as every other --json does.
func TestSchemaJSONUsesTheSameKeysAsTheOtherCommands(t *testing.T) {
	dir := testgit.Init(t)
	var all []map[string]any
	decodeJSON(t, ok(t, dir, "schema", "--json"), &all)
	var one map[string]any
	decodeJSON(t, ok(t, dir, "schema", "decision", "--json"), &one)
	for _, m := range append(all, one) {
		for k := range m {
			if k != strings.ToLower(k) {
				t.Fatalf("key %q in %v", k, m)
			}
		}
		if m["name"] == nil || m["description"] == nil || m["schema"] == nil {
			t.Fatalf("name, description or schema missing: %v", m)
		}
	}
}
