package scope_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/scope"
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
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s %.3f (keyword %.3f, semantic %.3f) %q", h.Scope, h.Score, h.Keyword, h.Semantic, h.Title))
			}
			if len(hits) == 0 || hits[0].Scope != tt.scope || !strings.HasPrefix(hits[0].Title, tt.want) {
				t.Fatalf("%q ranked:\n%s\nwant first the %s memory %q", tt.query, strings.Join(got, "\n"), tt.scope, tt.want)
			}
		})
	}
}
