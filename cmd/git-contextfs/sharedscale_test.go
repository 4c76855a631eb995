package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// QA's report, through the CLI: a preference in the user store sharing
// only "use" with the question ranked first (keyword 1, semantic 0), above
// the repository's decision about the embedder. Searched together, the
// stores rank with the keyword statistics of both (docs/SCOPES.md).
func TestCLIAUserPreferenceSharingOneWordDoesNotOutrankTheAnswer(t *testing.T) {
	isolateScopes(t)
	repo := testgit.Init(t)
	ok(t, repo, "save", "--type", "preference", "Tests use real git repositories in temp dirs, never mocks")
	want := strings.TrimSpace(ok(t, repo, "save", "--type", "decision",
		"The embedder is model2vec potion-base-8M, run in process so search works offline"))
	for _, b := range []string{
		"We use golangci-lint with the default linters on every pull request",
		"Postgres connections are pooled with pgxpool, twenty per instance",
		"Releases are tagged from main after the changelog is reviewed",
	} {
		ok(t, repo, "save", "--type", "decision", b)
	}
	var hits []struct {
		ID, Title, Scope string
		Score            float64
		Keyword          float64 `json:"keyword_score"`
	}
	decodeJSON(t, ok(t, repo, "search", "--json", "what embedder do we use"), &hits)
	if len(hits) == 0 || hits[0].ID != want {
		t.Fatalf("search = %+v; want the embedder decision %s first", hits, want)
	}
	for _, h := range hits {
		if h.Scope == "user" && h.Keyword >= 0.5 {
			t.Errorf("the user preference %q has keyword score %v on the one word it shares; want under 0.5", h.Title, h.Keyword)
		}
	}
}
