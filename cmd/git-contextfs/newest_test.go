package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// blockIDs returns the IDs of every item the context block shows
// (context --format json), with task as its task when not "".
func blockIDs(t *testing.T, dir, task string) []string {
	t.Helper()
	args := []string{"context", "--format", "json"}
	if task != "" {
		args = append(args, "--task", task)
	}
	var b struct {
		Sections []struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		} `json:"sections"`
	}
	decodeJSON(t, ok(t, dir, args...), &b)
	var ids []string
	for _, s := range b.Sections {
		for _, it := range s.Items {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

// searchIDs returns the IDs a search for q finds.
func searchIDs(t *testing.T, dir, q string) []string {
	t.Helper()
	var rs []struct {
		ID string `json:"id"`
	}
	decodeJSON(t, ok(t, dir, "search", q, "--json"), &rs)
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestNewestWinsInTheBlockAndSearch: a newer memory that supersedes an
// older one (by --supersedes, by the newest-wins rule at save, or as a
// repeat saved with --dedup supersede) is the only one of the two that the
// context block and search show; review names the older one superseded,
// with the position the newer one changed.
func TestNewestWinsInTheBlockAndSearch(t *testing.T) {
	tests := []struct {
		name     string
		old, new []string // save arguments; new may name OLD
		task     string
		why      string // what review says of the old one ("" for nothing)
		stderr   string // what the second save says
	}{
		{"a save that supersedes", []string{"--type", "decision", "--title", "Deploy with Argo CD", "Production deploys go through Argo CD."},
			[]string{"--type", "decision", "--title", "Ship through Flux", "--supersedes", "OLD", "Production deploys go through Flux."},
			"production deploys", "", ""},
		{"a changed preference", []string{"--type", "user", "--scope", "repo", "--title", "Indent with tabs", "--data", `{"preference_key":"indent","preference_value":"tabs"}`, "Indent code with tabs."},
			[]string{"--type", "user", "--scope", "repo", "--title", "Indent with spaces", "--data", `{"preference_key":"indent","preference_value":"spaces"}`, "Indent code with four spaces."},
			"indent code", `preference_value differs: "spaces", was "tabs"`, "supersedes: OLD"},
		{"a changed decision", []string{"--type", "decision", "--title", "Deploy with Argo CD", "--data", `{"decision":"Argo CD"}`, "Production deploys go through Argo CD."},
			[]string{"--type", "decision", "--title", "Deploy with Flux", "--data", `{"decision":"Flux"}`, "Production deploys go through Flux."},
			"production deploys", `decision differs: "Flux", was "Argo CD"`, "supersedes: OLD"},
		{"a repeat saved with --dedup supersede", []string{"--type", "decision", "--title", "Use pgx pool", "We pool Postgres connections with pgxpool, 20 per instance."},
			[]string{"--type", "decision", "--title", "Use pgxpool for Postgres", "--dedup", "supersede", "Postgres connections are pooled with pgxpool: 20 per instance."},
			"postgres connections", "", "supersedes: OLD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hookedRepo(t)
			old := save(t, dir, tt.old...)
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "old")
			args := slices.Clone(tt.new)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "OLD", old)
			}
			r := cli(t, dir, "", append([]string{"save"}, args...)...)
			if r.code != 0 {
				t.Fatalf("save: exit %d: %s", r.code, r.stderr)
			}
			if want := strings.ReplaceAll(tt.stderr, "OLD", old); !strings.Contains(r.stderr, want) {
				t.Errorf("save said %q; want %q", r.stderr, want)
			}
			newer := strings.TrimSpace(r.stdout)
			// Decisions show in the block by a task; preferences always.
			if ids := blockIDs(t, dir, ""); slices.Contains(ids, old) {
				t.Errorf("block shows %v; want no %s", ids, old)
			}
			if ids := blockIDs(t, dir, tt.task); slices.Contains(ids, old) || !slices.Contains(ids, newer) {
				t.Errorf("block (task %q) shows %v; want %s and not %s", tt.task, ids, newer, old)
			}
			if ids := searchIDs(t, dir, tt.task); slices.Contains(ids, old) || !slices.Contains(ids, newer) {
				t.Errorf("search %q finds %v; want %s and not %s", tt.task, ids, newer, old)
			}
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "new")
			var rep struct {
				Changes []struct {
					Kind, ID, Why string
					SupersededBy  string `json:"superseded_by"`
				} `json:"changes"`
			}
			decodeJSON(t, ok(t, dir, "review", "HEAD~1..HEAD", "--json"), &rep)
			i := slices.IndexFunc(rep.Changes, func(c struct {
				Kind, ID, Why string
				SupersededBy  string `json:"superseded_by"`
			}) bool {
				return c.ID == old
			})
			if i < 0 || rep.Changes[i].Kind != "superseded" || rep.Changes[i].SupersededBy != newer || rep.Changes[i].Why != tt.why {
				t.Errorf("review changes %+v; want %s superseded by %s, why %q", rep.Changes, old, newer, tt.why)
			}
		})
	}
}
