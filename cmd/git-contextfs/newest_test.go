package main

import (
	"slices"
	"strings"
	"testing"
	"time"

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

// TestContextSaysMayBeStaleThroughTheCLI: a memory attached to code that
// a later commit changed is "may be stale" in the block context prints
// (JSON may_be_stale, and in the Markdown).
func TestContextSaysMayBeStaleThroughTheCLI(t *testing.T) {
	dir := hookedRepo(t)
	writeFile(t, dir, "auth/token.go", "package auth\n")
	id := save(t, dir, "--type", "architecture", "--title", "Tokens", "--path", "auth/**", "Tokens live one hour.")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "auth and its memory")
	if md := ok(t, dir, "context"); strings.Contains(md, "may be stale") {
		t.Fatalf("may be stale before its code changed:\n%s", md)
	}
	writeFile(t, dir, "auth/token.go", "package auth\n\nconst TTL = 2\n")
	testgit.Run(t, dir, "add", "-A")
	// A commit an hour on: within one second of the save, commit times
	// cannot tell the two apart.
	t.Setenv("GIT_COMMITTER_DATE", time.Now().Add(time.Hour).Format(time.RFC3339))
	testgit.Run(t, dir, "commit", "-q", "-m", "auth: TTL")
	var b struct {
		Sections []struct {
			Items []struct {
				ID         string `json:"id"`
				MayBeStale bool   `json:"may_be_stale"`
			} `json:"items"`
		} `json:"sections"`
	}
	decodeJSON(t, ok(t, dir, "context", "--format", "json"), &b)
	found := false
	for _, s := range b.Sections {
		for _, it := range s.Items {
			if it.ID == id {
				found = it.MayBeStale
			}
		}
	}
	if !found {
		t.Errorf("%s is not may_be_stale in context --format json: %+v", id, b.Sections)
	}
	if md := ok(t, dir, "context"); !strings.Contains(md, "["+id+"] Tokens (architecture; may be stale") {
		t.Errorf("the Markdown does not say may be stale:\n%s", md)
	}
}
