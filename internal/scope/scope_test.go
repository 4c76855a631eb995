package scope_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// isolate points HOME, the XDG directories and git's identity at temp
// dirs, so a test never reads or writes the developer's own stores.
func isolate(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("CONTEXTFS_USER_DIR", "")
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return home
}

func open(t *testing.T, dir string) (*scope.Set, *bytes.Buffer) {
	t.Helper()
	var warn bytes.Buffer
	s, err := scope.Open(context.Background(), scope.Options{Store: contextfs.Options{Dir: dir}, Warnings: &warn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &warn
}

func save(t *testing.T, s *scope.Set, sc scope.Scope, typ, body string) *scope.SaveResult {
	t.Helper()
	res, err := s.Save(context.Background(), sc, contextfs.SaveRequest{Type: typ, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestUserDirFollowsTheEnvironment(t *testing.T) {
	home := isolate(t)
	tests := []struct {
		name, override, xdg, want string
	}{
		{"CONTEXTFS_USER_DIR wins", filepath.Join(home, "mine"), filepath.Join(home, "x"), filepath.Join(home, "mine")},
		{"XDG_DATA_HOME is next", "", filepath.Join(home, "x"), filepath.Join(home, "x", "contextfs", "user")},
		{"the home directory is the fallback", "", "", filepath.Join(home, ".local", "share", "contextfs", "user")},
		{"a relative XDG_DATA_HOME is ignored, as the spec says", "", "rel", filepath.Join(home, ".local", "share", "contextfs", "user")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONTEXTFS_USER_DIR", tt.override)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			got, err := scope.UserDir()
			if err != nil || got != tt.want {
				t.Errorf("UserDir() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestDefaultScopeOfASaveDependsOnItsType(t *testing.T) {
	cfg := scope.Config{Scopes: map[string]scope.Scope{"adr": scope.User, "user": scope.Repo}}
	tests := []struct {
		name string
		cfg  scope.Config
		typ  string
		want scope.Scope
	}{
		{"a user memory goes to the user store", scope.Config{}, "user", scope.User},
		{"an alias of user too", scope.Config{}, "preference", scope.User},
		{"a fact goes to the repository", scope.Config{}, "fact", scope.Repo},
		{"the config moves a type to the user store, by alias", cfg, "decision", scope.User},
		{"the config keeps user memories in the repository", cfg, "user", scope.Repo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.DefaultScope(tt.typ); got != tt.want {
				t.Errorf("DefaultScope(%q) = %q, want %q", tt.typ, got, tt.want)
			}
		})
	}
}

func TestAUserSaveLandsInTheUserStoreAndIsFoundFromAnotherRepository(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	a, b := testgit.Init(t), testgit.Init(t)
	sa, _ := open(t, a)
	res := save(t, sa, "", "user", "prefers terse answers")
	if res.Scope != scope.User || res.Commit == "" {
		t.Fatalf("saved in scope %q with commit %q; want user, committed", res.Scope, res.Commit)
	}
	if st := testgit.Run(t, a, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("repository A changed:\n%s", st)
	}
	dir, _ := scope.UserDir()
	// The store's creation is its first commit, the save its second.
	if n := testgit.Run(t, dir, "rev-list", "--count", "HEAD"); n != "2" {
		t.Errorf("user store has %s commits, want 2 (its creation, the save)", n)
	}
	if st := testgit.Run(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("user store left uncommitted:\n%s", st)
	}

	sb, _ := open(t, b)
	hits, err := sb.Search(ctx, scope.All, contextfs.Query{Text: "terse"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Scope != scope.User || hits[0].ID != res.Memory.ID {
		t.Fatalf("search from B = %+v; want the user memory with scope user", hits)
	}
	repoOnly, err := sb.Search(ctx, scope.Repo, contextfs.Query{Text: "terse"})
	if err != nil || len(repoOnly) != 0 {
		t.Errorf("--scope repo found %+v, %v; want nothing", repoOnly, err)
	}
}

func TestUpdateAndDeleteInTheUserStoreAreCommitted(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, _ := open(t, testgit.Init(t))
	res := save(t, s, scope.User, "fact", "I use fish")
	m, where, _, err := s.Update(ctx, scope.All, res.Memory.ID[:6], func(m *memory.Memory) error {
		m.Tags = append(m.Tags, "shell")
		return nil
	})
	if err != nil || where != scope.User || len(m.Tags) != 1 {
		t.Fatalf("Update = %+v, %q, %v", m, where, err)
	}
	if _, _, err := s.Delete(ctx, scope.User, res.Memory.ID); err != nil {
		t.Fatal(err)
	}
	dir, _ := scope.UserDir()
	if n := testgit.Run(t, dir, "rev-list", "--count", "HEAD"); n != "4" {
		t.Errorf("user store has %s commits after its creation, save, update and delete; want 4", n)
	}
	if _, _, err := s.Delete(ctx, scope.Repo, res.Memory.ID); err == nil {
		t.Error("deleting a user memory in the repository scope succeeded")
	}
}

// A user-store file held back for a suspected secret is left uncommitted,
// named in a warning, and the store's other changes are still committed:
// the store commits every change at once, so one such file used to keep
// every later save, update and delete uncommitted.
func TestASecretInTheUserStoreHoldsBackOnlyItsOwnFile(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, warn := open(t, testgit.Init(t))
	kept := save(t, s, scope.User, "user", "Prefers terse answers")
	secret := save(t, s, scope.User, "procedural", "Deploy with the key AKIAQWERTYUIOPASDFGH")
	if !strings.Contains(warn.String(), "left uncommitted") || !strings.Contains(warn.String(), filepath.Base(secret.Memory.Path)) {
		t.Fatalf("no warning naming the file held back: %q", warn)
	}
	if secret.Commit != "" {
		t.Fatalf("the save holding a secret made commit %s", secret.Commit)
	}
	warn.Reset()
	if _, _, _, err := s.Update(ctx, scope.User, kept.Memory.ID, func(m *memory.Memory) error {
		m.Tags = append(m.Tags, "style")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	dir, _ := scope.UserDir()
	if n := testgit.Run(t, dir, "rev-list", "--count", "HEAD"); n != "3" {
		t.Errorf("user store has %s commits after its creation, a save, a save held back and an update; want 3", n)
	}
	status := testgit.Run(t, dir, "status", "--porcelain")
	if !strings.Contains(status, filepath.Base(secret.Memory.Path)) || strings.Contains(status, filepath.Base(kept.Memory.Path)) {
		t.Fatalf("user store status:\n%s\nwant only the file with the secret uncommitted", status)
	}
	if !strings.Contains(warn.String(), "left uncommitted") {
		t.Errorf("the update's commit did not say what it left out: %q", warn)
	}
}

// Deleting a user memory that another links to leaves that link naming no
// memory in a committed file the next commits do not change. Like the
// pre-commit hook, the user store's commit checks only the files it
// changes, so the deletion and every later save are still committed.
func TestADanglingLinkInACommittedUserMemoryBlocksNoLaterCommit(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, warn := open(t, testgit.Init(t))
	target := save(t, s, scope.User, "user", "Prefers tabs")
	linking, err := s.Save(ctx, scope.User, contextfs.SaveRequest{Type: "user", Body: "Prefers short lines", Links: []string{target.Memory.ID}})
	if err != nil || linking.Commit == "" {
		t.Fatalf("save with a link = %+v, %v; want it committed", linking, err)
	}
	dir, _ := scope.UserDir()
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"the deletion of the memory linked to", func(t *testing.T) {
			if _, _, err := s.Delete(ctx, scope.User, target.Memory.ID); err != nil {
				t.Fatal(err)
			}
		}},
		{"a later save", func(t *testing.T) {
			if res := save(t, s, scope.User, "user", "Prefers dark themes"); res.Commit == "" {
				t.Error("the save was not committed")
			}
		}},
		{"a later update", func(t *testing.T) {
			other := save(t, s, scope.User, "user", "Prefers vim")
			if _, _, _, err := s.Update(ctx, scope.User, other.Memory.ID, func(m *memory.Memory) error {
				m.Tags = append(m.Tags, "editor")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range steps {
		t.Run(st.name+" is committed", func(t *testing.T) {
			warn.Reset()
			st.do(t)
			if status := testgit.Run(t, dir, "status", "--porcelain"); status != "" {
				t.Errorf("user store left uncommitted:\n%s\nwarnings: %s", status, warn)
			}
			if strings.Contains(warn.String(), "not committed") || strings.Contains(warn.String(), "left uncommitted") {
				t.Errorf("warnings %q; want none: the file with the link is not part of the commit", warn)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, linking.Memory.Path)); err != nil || !strings.Contains(string(b), target.Memory.ID) {
		t.Errorf("the memory with the link changed: %q, %v", b, err)
	}
}

func TestAMalformedUserFileDoesNotStopRepositorySearch(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, warn := open(t, testgit.Init(t))
	save(t, s, scope.Repo, "fact", "the deploy runs on fridays")
	u, err := s.User(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(u.Repo.MemoryDir(), "memories", "broken.md")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	if err := os.WriteFile(bad, []byte("---\nid: [unclosed\n---\ndeploy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, scope.All, contextfs.Query{Text: "deploy fridays"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Scope != scope.Repo {
		t.Errorf("hits = %+v; want the repository memory", hits)
	}
	if !strings.Contains(warn.String(), "broken.md") {
		t.Errorf("warnings %q do not name broken.md", warn.String())
	}
}

// The stores share their keyword statistics, not their average lengths:
// a copy in a store of shorter documents loses a little to BM25's length
// normalisation, and nothing else.
func TestTheSameMemoryScoresAboutTheSameInEitherStore(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, _ := open(t, testgit.Init(t))
	body := "Postgres connections are pooled with pgxpool, twenty per instance"
	save(t, s, scope.Repo, "fact", body)
	save(t, s, scope.User, "fact", body)
	// Other memories change the repository's statistics, not the scale.
	for _, x := range []string{"pool party on friday", "the instance count is three", "Redis caches sessions"} {
		save(t, s, scope.Repo, "fact", x)
	}
	hits, err := s.Search(ctx, scope.All, contextfs.Query{Text: "how are postgres connections pooled"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 || math.Abs(hits[0].Score-hits[1].Score) > 0.05 || hits[0].Scope == hits[1].Scope || hits[0].Title != hits[1].Title {
		t.Fatalf("top two hits %+v; want the two copies, one per scope, with scores within 0.05", hits)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hit %d scores %v after %v: not merged by score", i, hits[i].Score, hits[i-1].Score)
		}
	}
}

func TestMergeOrdersByScoreThenByStoreAndKeepsTheLimit(t *testing.T) {
	r := func(id string, score float64, sc scope.Scope, repo string) scope.Result {
		return scope.Result{Result: contextfs.Result{ID: id, Score: score}, Scope: sc, Repo: repo}
	}
	a := []scope.Result{r("a1", 0.9, scope.Repo, "api"), r("a2", 0.5, scope.Repo, "api")}
	u := []scope.Result{r("u1", 0.7, scope.User, ""), r("u2", 0.5, scope.User, "")}
	b := []scope.Result{r("b1", 0.5, scope.Repo, "")}
	tests := []struct {
		name  string
		limit int
		lists [][]scope.Result
		want  string
	}{
		{"best score first across stores", 10, [][]scope.Result{a, u}, "a1 u1 a2 u2"},
		{"ties do not depend on the order stores answered", 10, [][]scope.Result{u, b, a}, "a1 u1 b1 a2 u2"},
		{"the limit applies to the merged list", 2, [][]scope.Result{u, a}, "a1 u1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			for _, h := range scope.Merge(tt.limit, tt.lists...) {
				ids = append(ids, h.ID)
			}
			if got := strings.Join(ids, " "); got != tt.want {
				t.Errorf("Merge = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseScope(t *testing.T) {
	for in, want := range map[string]scope.Scope{"": "", "repo": scope.Repo, "USER": scope.User, " all ": scope.All} {
		if got, err := scope.Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := scope.Parse("team"); err == nil {
		t.Error("Parse(team) succeeded")
	}
}

func TestAUserStoreInsideAnotherRepositoryIsRefused(t *testing.T) {
	isolate(t)
	repo := testgit.Init(t)
	t.Setenv("CONTEXTFS_USER_DIR", filepath.Join(repo, "sub"))
	os.MkdirAll(filepath.Join(repo, "sub", ".git"), 0o755) // a .git that is not a repository
	s, _ := open(t, repo)
	if _, err := s.User(context.Background()); err == nil {
		t.Fatal("a user store inside the team's work tree was opened")
	}
	if st := testgit.Run(t, repo, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, ".contextfs") {
		t.Errorf("the repository got a .contextfs/:\n%s", st)
	}
}

func TestReadsDoNotCreateTheUserStore(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	repo := testgit.Init(t)
	s, warn := open(t, repo)
	var cfg scope.Config
	if _, err := cfg.AddRepo(ctx, repo, "here"); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []scope.Scope{scope.All, scope.User} {
		if _, err := s.Search(ctx, sc, contextfs.Query{Text: "anything"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.List(ctx, sc, contextfs.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SearchRepos(ctx, cfg.Repos, sc, contextfs.Query{Text: "anything"}); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := s.Resolve(ctx, sc, "abcd"); err == nil {
			t.Error("resolved a memory in an empty store")
		}
	}
	dir, _ := scope.UserDir()
	if _, err := os.Stat(dir); !os.IsNotExist(err) || warn.Len() > 0 {
		t.Errorf("stat %s: %v, warnings %q; want no store and no warning", dir, err, warn)
	}
}

func TestATeamPreferenceStaysInTheRepository(t *testing.T) {
	isolate(t)
	s, _ := open(t, testgit.Init(t))
	res, err := s.Save(context.Background(), "", contextfs.SaveRequest{Type: "user", Body: "tabs",
		Data: map[string]any{"preference_key": "indent", "preference_value": "tabs", "scope": "team"}})
	if err != nil || res.Scope != scope.Repo {
		t.Fatalf("Save = %+v, %v; want scope repo", res, err)
	}
}

func TestAMalformedUserConfigIsWarnedAboutAndTheDefaultsUsed(t *testing.T) {
	isolate(t)
	p, _ := scope.ConfigPath()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("scopes:\n  decision: everywhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, warn := open(t, testgit.Init(t))
	if !strings.Contains(warn.String(), p) || !strings.Contains(warn.String(), "everywhere") {
		t.Errorf("warnings %q do not name the file and the problem", warn)
	}
	if res := save(t, s, "", "decision", "x"); res.Scope != scope.Repo {
		t.Errorf("saved in %q, want the default repo", res.Scope)
	}
}

func TestClosingABorrowedSetLeavesItsStoresOpen(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, _ := open(t, testgit.Init(t))
	save(t, s, scope.Repo, "fact", "the deploy runs on fridays")
	save(t, s, scope.User, "user", "I prefer terse answers")
	for i := 0; i < 2; i++ {
		b := s.Borrow()
		res, err := b.Search(ctx, scope.All, contextfs.Query{Text: "deploy terse"})
		if err != nil || len(res) != 2 {
			t.Fatalf("borrowed search %d: %d results, %v", i, len(res), err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The lender's stores still answer.
	if res, err := s.Search(ctx, scope.All, contextfs.Query{Text: "deploy terse"}); err != nil || len(res) != 2 {
		t.Fatalf("after two borrowed sets closed: %d results, %v", len(res), err)
	}
}

// TestListMergesTheStoresNewestFirst lists a repository and the user
// store whose memories interleave in time: one listing, newest first, the
// repository's first on equal times, cut at the limit, and a reader that
// stops early stops the listing.
func TestListMergesTheStoresNewestFirst(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	dir := testgit.Init(t)
	s, _ := open(t, dir)
	first := save(t, s, scope.User, "fact", "saved now, so the newest of all").Memory.ID
	udir, err := scope.UserDir()
	if err != nil {
		t.Fatal(err)
	}
	mem := func(id, updated string) string {
		return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T" + updated + ":00Z\n---\nBody.\n"
	}
	for _, m := range []struct{ dir, id, updated string }{
		{dir, "rrrr0001", "10:03"}, {dir, "rrrr0002", "10:01"}, {dir, "rrrr0003", "10:00"},
		{udir, "uuuu0001", "10:02"}, {udir, "uuuu0002", "10:01"},
	} {
		testgit.WriteFile(t, m.dir, ".contextfs/"+m.id+".md", mem(m.id, m.updated))
	}
	ids := func(es []scope.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID+"/"+string(e.Scope))
		}
		return strings.Join(out, " ")
	}
	all := first + "/user rrrr0001/repo uuuu0001/user rrrr0002/repo uuuu0002/user rrrr0003/repo"
	tests := []struct {
		name  string
		sc    scope.Scope
		limit int
		want  string
	}{
		{"both stores merged by time", scope.All, 0, all},
		{"the limit cuts the merged listing", scope.All, 3, first + "/user rrrr0001/repo uuuu0001/user"},
		{"one store alone", scope.Repo, 0, "rrrr0001/repo rrrr0002/repo rrrr0003/repo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es, err := s.List(ctx, tc.sc, contextfs.ListOptions{Limit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(es); got != tc.want {
				t.Errorf("listed %s\nwant     %s", got, tc.want)
			}
		})
	}
	var got []scope.Entry
	for e, err := range s.ListSeq(ctx, scope.All, contextfs.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, e); len(got) == 2 {
			break
		}
	}
	if want := first + "/user rrrr0001/repo"; ids(got) != want {
		t.Errorf("the first two read = %s, want %s", ids(got), want)
	}
}
