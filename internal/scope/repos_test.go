package scope_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestNormalizeRemoteGivesOneNamePerProject(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"scp-like ssh", "git@github.com:acme/api.git", "github.com/acme/api"},
		{"https", "https://github.com/acme/api", "github.com/acme/api"},
		{"https with a user, a port and a trailing slash", "https://bob@GitHub.com:443/acme/api.git/", "github.com/acme/api"},
		{"ssh URL", "ssh://git@github.com/acme/api.git", "github.com/acme/api"},
		{"a local path", "/srv/git/api.git", "srv/git/api"},
		{"a file URL", "file:///srv/git/api.git", "srv/git/api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scope.NormalizeRemote(tt.in); got != tt.want {
				t.Errorf("NormalizeRemote(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// repoWith makes a repository with origin url and the given memories.
func repoWith(t *testing.T, url string, bodies ...string) string {
	t.Helper()
	dir := testgit.Init(t)
	testgit.Run(t, dir, "remote", "add", "origin", url)
	s, _ := open(t, dir)
	for _, b := range bodies {
		save(t, s, scope.Repo, "fact", b)
	}
	s.Close()
	return dir
}

func TestTwoClonesOfAProjectAreOneRegisteredRepository(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	c1 := repoWith(t, "git@github.com:acme/api.git")
	c2 := repoWith(t, "https://github.com/acme/api")
	var cfg scope.Config
	if _, err := cfg.AddRepo(ctx, c1, ""); err != nil {
		t.Fatal(err)
	}
	e, err := cfg.AddRepo(ctx, c2, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Repos) != 1 || e.Name != "api" || e.ID != "github.com/acme/api" || e.Path != c2 {
		t.Fatalf("repos = %+v; want one entry api at the second clone", cfg.Repos)
	}
	loaded, err := scope.LoadConfig()
	if err != nil || !slices.Equal(loaded.Repos, cfg.Repos) {
		t.Fatalf("reloaded %+v, %v; want %+v", loaded.Repos, err, cfg.Repos)
	}
	if _, err := cfg.RemoveRepo(ctx, c1); err != nil || len(cfg.Repos) != 0 {
		t.Errorf("remove by the other clone's path: %v, left %+v", err, cfg.Repos)
	}
	if _, err := cfg.RemoveRepo(ctx, "api"); err == nil {
		t.Error("removing an unregistered name succeeded")
	}
}

func TestAddingANameTakenByAnotherProjectIsRefused(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	var cfg scope.Config
	if _, err := cfg.AddRepo(ctx, repoWith(t, "git@github.com:acme/api.git"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.AddRepo(ctx, repoWith(t, "git@github.com:other/api.git"), ""); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("err = %v; want the name taken, with a hint at --name", err)
	}
	if _, err := cfg.AddRepo(ctx, t.TempDir(), ""); err == nil {
		t.Error("a folder that is no repository was registered")
	}
}

// A path that names nothing must not stand for the repository around it:
// Discover walks up, so a typo inside a registered repository named it.
func TestAMistypedPathNamesNoRepository(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	dir := repoWith(t, "git@github.com:acme/api.git")
	var cfg scope.Config
	if _, err := cfg.AddRepo(ctx, dir, ""); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "no-such-dir")
	if _, err := cfg.RemoveRepo(ctx, typo); !errors.Is(err, scope.ErrUnknownRepo) || len(cfg.Repos) != 1 {
		t.Errorf("remove %s: %v, left %+v; want unknown, the registration kept", typo, err, cfg.Repos)
	}
	if _, err := cfg.AddRepo(ctx, typo, "other"); err == nil || !strings.Contains(err.Error(), "no such folder") {
		t.Errorf("add %s: %v; want no such folder", typo, err)
	}
}

// A folder name with spaces gives a default name with dashes, not a
// refusal.
func TestADefaultNameHasNoSpaces(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	parent := filepath.Join(t.TempDir(), "My Project")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, parent, "init", "-q")
	var cfg scope.Config
	e, err := cfg.AddRepo(ctx, parent, "")
	if err != nil || e.Name != "My-Project" {
		t.Errorf("add %q: %+v, %v; want the name My-Project", parent, e, err)
	}
}

func ids(hits []scope.Result) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Repo+":"+h.Title)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestSearchAcrossRegisteredRepositories(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	a := repoWith(t, "git@github.com:acme/api.git", "The api retries webhooks three times")
	b := repoWith(t, "git@github.com:acme/client.git", "The client retries requests with backoff")
	var cfg scope.Config
	for _, d := range []string{a, b} {
		if _, err := cfg.AddRepo(ctx, d, ""); err != nil {
			t.Fatal(err)
		}
	}
	search := func() ([]scope.Result, string) {
		t.Helper()
		s, warn := open(t, t.TempDir()) // outside any repository
		repos, err := s.Config.Pick([]string{"all"})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.SearchRepos(ctx, repos, scope.All, contextfs.Query{Text: "retries", Mode: contextfs.ModeKeyword})
		if err != nil {
			t.Fatal(err)
		}
		return hits, warn.String()
	}
	hits, warn := search()
	want := "api:The api retries webhooks three times client:The client retries requests with backoff"
	if got := ids(hits); got != want || warn != "" {
		t.Fatalf("hits %s, warnings %q; want %s", got, warn, want)
	}

	if err := os.RemoveAll(filepath.Join(b, ".git", "contextfs")); err != nil {
		t.Fatal(err)
	}
	again, _ := search()
	if ids(again) != want || again[0].Score != hits[0].Score || again[1].Score != hits[1].Score {
		t.Errorf("after deleting B's cache: %+v; want the same results as before", again)
	}

	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	hits, warn = search()
	if got := ids(hits); got != "api:The api retries webhooks three times" {
		t.Errorf("with B removed: %s; want A's result", got)
	}
	if !strings.Contains(warn, "client") || !strings.Contains(warn, b) {
		t.Errorf("warnings %q do not name the missing repository", warn)
	}
}

func TestSearchReposFromARegisteredRepositoryNamesItOnce(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	a := repoWith(t, "git@github.com:acme/api.git", "The api retries webhooks")
	var cfg scope.Config
	if _, err := cfg.AddRepo(ctx, a, ""); err != nil {
		t.Fatal(err)
	}
	s, _ := open(t, a)
	save(t, s, scope.User, "user", "I want retries explained briefly")
	repos, _ := s.Config.Pick([]string{"api"})
	hits, err := s.SearchRepos(ctx, repos, scope.All, contextfs.Query{Text: "retries", Mode: contextfs.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); got != ":I want retries explained briefly api:The api retries webhooks" {
		t.Errorf("hits %s; want the user memory and A's, A's once and named", got)
	}
	if _, err := s.Config.Pick([]string{"api,nope"}); err == nil {
		t.Error("an unknown name was accepted")
	}
}

// TestSearchReposPreparesTheCurrentRepositoryOnce: prepare runs once, on
// the way to searching the current repository, and its error is the
// search's; the identity of a repository is read from its remote without
// starting git, and is the same as git's.
func TestSearchReposPreparesTheCurrentRepositoryOnce(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	a := repoWith(t, "git@github.com:acme/api.git", "The api retries webhooks three times")
	b := repoWith(t, "https://github.com/acme/client", "The client retries requests with backoff")
	if got := scope.RepoID(ctx, a); got != "github.com/acme/api" {
		t.Errorf("RepoID(a) = %q, want github.com/acme/api", got)
	}
	var cfg scope.Config
	for _, d := range []string{a, b} {
		if _, err := cfg.AddRepo(ctx, d, ""); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("index refresh failed")
	tests := []struct {
		name    string
		prepErr error
		want    string
	}{
		{"prepare succeeds: both repositories answer", nil, "api:The api retries webhooks three times client:The client retries requests with backoff"},
		{"prepare fails: its error is returned", boom, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := open(t, a)
			repos, err := s.Config.Pick([]string{"all"})
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			hits, err := s.SearchReposPrepared(ctx, repos, scope.All, contextfs.Query{Text: "retries", Mode: contextfs.ModeKeyword},
				func() error { calls++; return tt.prepErr })
			if calls != 1 || !errors.Is(err, tt.prepErr) || tt.prepErr == nil && err != nil {
				t.Fatalf("prepare ran %d times, err %v; want once, err %v", calls, err, tt.prepErr)
			}
			if got := ids(hits); got != tt.want {
				t.Errorf("hits %s, want %s", got, tt.want)
			}
		})
	}
}
