package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/worldset"
	"github.com/contextfs/contextfs/memory"
)

// seedTeamRepo is the seeds' motivating example as a repository: a
// team's 49 memories (internal/worldset, all but the PostgreSQL decision),
// committed by teammates earlier, a little code indexed beside them, and
// a morning session on the CLI that saves the decision, an error fix and
// a progress note, and ends with a summary. It returns the repository and
// the decision's ID.
func seedTeamRepo(t *testing.T) (string, string) {
	t.Helper()
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := testgit.Init(t)
	ts := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	var decision string
	for i, wm := range set.Memories {
		if wm.ID == "postgres" {
			decision = wm.Text
			continue
		}
		m := &memory.Memory{ID: fmt.Sprintf("team%06d", i), Type: wm.Type, Title: wm.Text, Created: ts, Updated: ts, Body: wm.Text + "\n"}
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		testgit.WriteFile(t, dir, filepath.Join(".contextfs", "memories", memory.Slug(m.Title)+"-"+m.ID+".md"), string(raw))
	}
	testgit.WriteFile(t, dir, "store/store.go", "package store\n\n// Open connects to the database named by the DSN and returns the pool.\nfunc Open(dsn string) (*Pool, error) { return dial(dsn) }\n\n// Pool hands out connections.\ntype Pool struct{ max int }\n")
	testgit.WriteFile(t, dir, "feature/new.go", "package feature\n\n// New registers a new feature behind its flag.\nfunc New(name string) error { return register(name) }\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "The team's memories and code")
	ok(t, dir, "init")
	ok(t, dir, "index")
	ok(t, dir, "session", "start", "--label", "connection pool")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--tag", "db", "--data", `{"decision":"PostgreSQL with connection pooling","status":"accepted"}`, decision))
	ok(t, dir, "save", "--type", "error", "--tag", "db", "--title", "too many connections in the integration tests",
		"The integration tests failed with 'FATAL: too many connections' from PostgreSQL: each test opened its own pool. Fix: one pool per test binary, capped at 20 connections.")
	ok(t, dir, "save", "--type", "progress", "Connection pooling is wired in; the README install section and the CHANGELOG entry are still to write.")
	ok(t, dir, "session", "end", "--summary", "Chose PostgreSQL pooling and fixed the too-many-connections failure.", "--outcome", "success")
	return dir, id
}

// TestSeedExampleFindsTheDatabaseDecision: in the afternoon a new session
// asks "What database should I use for this new feature?" among 50 team
// memories, the morning's session and the code. The question shares no
// word with the decision but "use" ("database" against "PostgreSQL");
// the built-in embedder's word vectors know what PostgreSQL is, and the
// context block for "add a database for the new feature" cites it: on
// the CLI, and through MCP (search_memory, get_context) driven by the
// official TypeScript SDK (tests/mcp-client), as the agent day is.
//
// Default search ranks it first, above "Feature flags are managed in
// LaunchDarkly", which shares "feature" with the question literally: the
// decision covers more of the question (embed.Coverage; it was 2nd
// before, 4th before queries left function words out of their word
// vectors and BM25 was scaled by the query's attainable score;
// docs/EMBEDDER.md has the measurements).
func TestSeedExampleFindsTheDatabaseDecision(t *testing.T) {
	dir, id := seedTeamRepo(t)
	var res []struct{ ID, Kind string }
	decodeJSON(t, ok(t, dir, "search", "--json", seedQuestion), &res)
	at := slices.IndexFunc(res, func(r struct{ ID, Kind string }) bool { return r.ID == id })
	t.Logf("search ranks the decision %d of %d", at+1, len(res))
	if at != 0 {
		t.Errorf("search: the decision %s is at %d of %v, want it first", id, at+1, res)
	}
	checkTask := func(what, block string) {
		t.Helper()
		_, task, _ := strings.Cut(block, "## Relevant to the task")
		task, _, _ = strings.Cut(task, "\n## ")
		if !strings.Contains(task, id) {
			t.Errorf("%s: the task section does not cite the decision %s:\n%s", what, id, block)
		}
	}
	checkTask("context --task", ok(t, dir, "context", "--task", seedTask))

	// The afternoon's new session, through the official MCP client.
	node, client := dayClient(t)
	answers := dayMCP(t, node, client, testgit.Env(), dir, []dayStep{
		{Tool: "search_memory", Args: map[string]any{"query": seedQuestion}},
		{Tool: "get_context", Args: map[string]any{"task": seedTask}},
	})
	if len(answers) != 2 || answers[0].IsError || answers[1].IsError || answers[0].Error+answers[1].Error != "" {
		t.Fatalf("MCP answers: %+v", answers)
	}
	ids := daySearchIDs(t, answers[0].Structured)
	t.Logf("search_memory ranks the decision %d of %d", slices.Index(ids, id)+1, len(ids))
	if at := slices.Index(ids, id); at != 0 {
		t.Errorf("search_memory: the decision %s is at %d of %v, want it first", id, at+1, ids)
	}
	checkTask("get_context", answers[1].Text)
}

// The seeds' question and task.
const (
	seedQuestion = "What database should I use for this new feature?"
	seedTask     = "add a database for the new feature"
)

// TestTheDecisionLeadsInASmallRepository: with only a few memories the
// question's subject ("database") matches no word of any of them, and the
// memory that shares its incidental word ("feature") must not take a full
// keyword score: a word nothing matches still counts in the attainable
// score (cache.Terms.Sum). Seen first in a new repository of five
// memories, where the flags memory ranked first.
func TestTheDecisionLeadsInASmallRepository(t *testing.T) {
	tests := []struct {
		name   string
		others [][]string // save arguments
	}{
		{"beside the flags memory alone", [][]string{{"--type", "fact", "Feature flags are managed in LaunchDarkly."}}},
		{"among a handful, a preference of the person's too", [][]string{
			{"--type", "fact", "Feature flags are managed in LaunchDarkly."},
			{"--type", "preference", "--data", `{"scope":"team"}`, "Use spaces for indentation in YAML files"},
			{"--type", "progress", "Auth: login works, refresh tokens next."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			ok(t, dir, "init")
			id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "We use PostgreSQL with connection pooling, max 20 connections per instance."))
			for _, o := range tt.others {
				ok(t, dir, append([]string{"save"}, o...)...)
			}
			var res []struct {
				ID string `json:"id"`
			}
			out := ok(t, dir, "search", "--json", "What database should I use for this new feature?")
			decodeJSON(t, out, &res)
			if len(res) == 0 || res[0].ID != id {
				t.Errorf("want the decision %s first:\n%s", id, out)
			}
		})
	}
}
