package scope_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/testgit"
)

// A search of the repository and the user store ranks both with the
// keyword statistics of the two together (docs/SCOPES.md): a small store
// matching one generic word of the question does not score that word as
// a full keyword match, and a user memory that does answer still wins.
func TestKeywordScoresOfSeveralStoresShareOneScale(t *testing.T) {
	repoMemories := []string{
		"The embedder is model2vec potion-base-8M, run in process so search works offline",
		"We use golangci-lint with the default linters on every pull request",
		"Postgres connections are pooled with pgxpool, twenty per instance",
		"Releases are tagged from main after the changelog is reviewed",
	}
	tests := []struct {
		name  string
		repo  []string
		user  []string
		query string
		want  string // the first hit's text starts with this
		scope scope.Scope
	}{
		{
			name:  "a user preference sharing only 'use' ranks below the repository's embedder decision",
			repo:  repoMemories,
			user:  []string{"Tests use real git repositories in temp dirs, never mocks"},
			query: "what embedder do we use",
			want:  "The embedder is model2vec",
			scope: scope.Repo,
		},
		{
			name: "a larger user store sharing only 'use' still ranks below it",
			repo: repoMemories,
			user: []string{"Tests use real git repositories in temp dirs, never mocks",
				"Answer tersely, without summaries", "I run fish as my shell"},
			query: "what embedder do we use",
			want:  "The embedder is model2vec",
			scope: scope.Repo,
		},
		{
			name:  "a user memory that answers the question ranks first",
			repo:  repoMemories,
			user:  []string{"My shell is fish, with starship for the prompt"},
			query: "which shell prompt do I use",
			want:  "My shell is fish",
			scope: scope.User,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			s, _ := open(t, testgit.Init(t))
			for _, b := range tt.repo {
				save(t, s, scope.Repo, "decision", b)
			}
			for _, b := range tt.user {
				save(t, s, scope.User, "preference", b)
			}
			hits, err := s.Search(context.Background(), scope.All, contextfs.Query{Text: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			checkFirst(t, tt.query, hits, tt.scope, "", tt.want)
		})
	}
}

// The same across registered repositories: a small one sharing only "use"
// with the question does not outrank the one that answers it.
func TestKeywordScoresOfRegisteredRepositoriesShareOneScale(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	tests := repoWith(t, "git@github.com:acme/tests.git", "Tests use real git repositories in temp dirs, never mocks")
	api := repoWith(t, "git@github.com:acme/api.git",
		"The embedder is model2vec potion-base-8M, run in process so search works offline",
		"We use golangci-lint with the default linters on every pull request",
		"Postgres connections are pooled with pgxpool, twenty per instance",
		"Releases are tagged from main after the changelog is reviewed")
	var cfg scope.Config
	for _, d := range []string{tests, api} {
		if _, err := cfg.AddRepo(ctx, d, ""); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := open(t, t.TempDir()) // outside any repository
	repos, err := s.Config.Pick([]string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	q := contextfs.Query{Text: "what embedder do we use"}
	hits, err := s.SearchRepos(ctx, repos, scope.All, q)
	if err != nil {
		t.Fatal(err)
	}
	checkFirst(t, q.Text, hits, scope.Repo, "api", "The embedder is model2vec")
	hits, err = s.SearchRegistered(ctx, repos, q)
	if err != nil {
		t.Fatal(err)
	}
	checkFirst(t, q.Text+" (registered only)", hits, scope.Repo, "api", "The embedder is model2vec")
}

func checkFirst(t *testing.T, query string, hits []scope.Result, sc scope.Scope, repo, title string) {
	t.Helper()
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s %s %.3f (keyword %.3f, semantic %.3f) %q", h.Scope, h.Repo, h.Score, h.Keyword, h.Semantic, h.Title))
	}
	if len(hits) == 0 || hits[0].Scope != sc || hits[0].Repo != repo || !strings.HasPrefix(hits[0].Title, title) {
		t.Fatalf("%q ranked:\n%s\nwant first the %s memory %q of %q", query, strings.Join(got, "\n"), sc, title, repo)
	}
	t.Logf("%q ranked:\n%s", query, strings.Join(got, "\n"))
}
