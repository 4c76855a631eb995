package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestNewVersionsInASessionAreTheSessionsSaves: evolve, merge and split
// write new memories; written while a session is open they carry its ID
// (session: and source.session), and the session's summary lists them
// among its saves, as it lists a plain save.
func TestNewVersionsInASessionAreTheSessionsSaves(t *testing.T) {
	t.Parallel()
	dir := testgit.Init(t)
	id := func(args ...string) string { return strings.TrimSpace(ok(t, dir, args...)) }
	a := id("save", "--type", "fact", "--tag", "db", "The primary database is PostgreSQL 15.")
	b := id("save", "--type", "fact", "--tag", "db", "Backups of the database run nightly at two.")
	c := id("save", "--type", "fact", "--tag", "cache", "Redis caches sessions for one hour.")
	d := id("save", "--type", "fact", "--tag", "ci", "CI runs on every push to any branch.")
	ok(t, dir, "session", "start", "--tool", "claude-code", "--label", "hygiene")
	cases := []struct {
		name string
		args []string
	}{
		{"evolve", []string{"evolve", a, "--reason", "correction", "The primary database is PostgreSQL 16."}},
		{"merge", []string{"merge", b, c}},
		{"split", []string{"split", d, "--part", "CI runs on every push.", "--part", "CI covers every branch."}},
	}
	var written []string
	for _, tc := range cases {
		ids := strings.Fields(ok(t, dir, tc.args...))
		if len(ids) == 0 {
			t.Fatalf("%s printed no ID", tc.name)
		}
		for _, nid := range ids {
			rec := ok(t, dir, "recall", nid, "--json")
			var m struct {
				Session string `json:"session"`
			}
			if err := json.Unmarshal([]byte(rec), &m); err != nil {
				t.Fatalf("%s: recall %s --json: %v\n%s", tc.name, nid, err, rec)
			}
			if m.Session == "" {
				t.Errorf("%s: %s carries no session:\n%s", tc.name, nid, rec)
			}
			written = append(written, nid)
		}
	}
	end := ok(t, dir, "session", "end", "--summary", "hygiene done", "--json")
	var sum struct {
		Data struct {
			Saved []string `json:"saved"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(end), &sum); err != nil {
		t.Fatalf("session end --json: %v\n%s", err, end)
	}
	for _, nid := range written {
		if !slices.Contains(sum.Data.Saved, nid) {
			t.Errorf("the summary's saved %v lacks %s", sum.Data.Saved, nid)
		}
	}
}
