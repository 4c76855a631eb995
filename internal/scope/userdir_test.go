package scope_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/testgit"
)

// committedRepo is a repository with one commit, so that a commit made by
// mistake shows in its history.
func committedRepo(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "README", "hi\n")
	testgit.Run(t, dir, "add", "README")
	testgit.Run(t, dir, "commit", "-qm", "init")
	return dir
}

// TestAUserStoreInAWorkTreeIsRefusedAndNothingIsWritten: a user store
// that is the repository a command runs in, or sits inside a work tree,
// is refused before anything is written. The existing test of a refused
// store (TestAUserStoreInsideAnotherRepositoryIsRefused) gave the store a
// broken .git of its own; a folder with none was made a repository nested
// in the work tree, and the repository itself passed as "the root of its
// own repository", so a user save committed the team's pending memories.
func TestAUserStoreInAWorkTreeIsRefusedAndNothingIsWritten(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	repo := committedRepo(t)
	s0, _ := open(t, repo)
	if _, err := s0.Repo.Init(ctx); err != nil { // its config.yaml left uncommitted
		t.Fatal(err)
	}
	save(t, s0, scope.Repo, "fact", "A teammate's fact, not committed yet")
	nested := filepath.Join(repo, "nested")
	os.MkdirAll(nested, 0o755)
	testgit.Run(t, nested, "init", "-q")
	other := committedRepo(t)

	tests := []struct {
		name string
		dir  string
		tree string // the work tree that must not change
	}{
		{"the repository you are in", repo, repo},
		{"a folder in it, not created yet", filepath.Join(repo, "sub", "store"), repo},
		{"a repository nested in it", nested, repo},
		{"a folder in another repository's work tree", filepath.Join(other, "store"), other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONTEXTFS_USER_DIR", tt.dir)
			status := testgit.Run(t, tt.tree, "status", "--porcelain", "--untracked-files=all")
			s, _ := open(t, repo)
			_, err := s.Save(ctx, scope.User, contextfs.SaveRequest{Type: "user", Body: "my private preference"})
			var ude *scope.UserDirError
			if !errors.As(err, &ude) || !strings.Contains(err.Error(), "CONTEXTFS_USER_DIR") || !strings.Contains(err.Error(), tt.dir) {
				t.Fatalf("user save = %v; want a UserDirError naming CONTEXTFS_USER_DIR and %s", err, tt.dir)
			}
			if n := testgit.Run(t, tt.tree, "rev-list", "--count", "HEAD"); n != "1" {
				t.Errorf("%s has %s commits, want 1:\n%s", tt.tree, n, testgit.Run(t, tt.tree, "log", "--stat", "-1"))
			}
			if got := testgit.Run(t, tt.tree, "status", "--porcelain", "--untracked-files=all"); got != status {
				t.Errorf("%s status went from\n%s\nto\n%s", tt.tree, status, got)
			}
			if tt.dir != repo {
				if _, err := os.Stat(filepath.Join(tt.dir, ".contextfs")); !os.IsNotExist(err) {
					t.Errorf("%s got a .contextfs/ (stat: %v)", tt.dir, err)
				}
			}
			// Reads go on without the user store, and find the repository's
			// memory once.
			hits, err := s.Search(ctx, scope.All, contextfs.Query{Text: "teammate fact"})
			if err != nil || len(hits) != 1 || hits[0].Scope != scope.Repo {
				t.Errorf("search = %+v, %v; want the repository's fact once", hits, err)
			}
		})
	}
}

// TestARelativeUserDirIsRefused: a relative CONTEXTFS_USER_DIR named
// another store from every directory, and one inside the repository a
// command ran in.
func TestARelativeUserDirIsRefused(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	repo := committedRepo(t)
	t.Chdir(repo)
	t.Setenv("CONTEXTFS_USER_DIR", "relstore")
	_, err := scope.UserDir()
	var ude *scope.UserDirError
	if !errors.As(err, &ude) || !strings.Contains(err.Error(), "CONTEXTFS_USER_DIR") || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("UserDir() error = %v; want a UserDirError asking for an absolute CONTEXTFS_USER_DIR", err)
	}
	s, warn := open(t, repo)
	if _, err := s.Save(ctx, scope.User, contextfs.SaveRequest{Type: "user", Body: "relative store pref"}); !errors.As(err, &ude) {
		t.Errorf("user save = %v; want a UserDirError", err)
	}
	if _, err := os.Stat(filepath.Join(repo, "relstore")); !os.IsNotExist(err) {
		t.Errorf("relstore/ was created in the work tree (stat: %v)", err)
	}
	if _, err := s.Search(ctx, scope.All, contextfs.Query{Text: "pref"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "CONTEXTFS_USER_DIR") {
		t.Errorf("a search said nothing of the user store left out: %q", warn)
	}
}

// TestTheUserStoreCanBeUsedFromInsideIt: a store contextfs created is
// marked as a user store, so a command run in its own directory still
// reaches it; an unmarked one there (a clone, or a team's repository) is
// refused with the way to mark it.
func TestTheUserStoreCanBeUsedFromInsideIt(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, _ := open(t, testgit.Init(t))
	save(t, s, scope.User, "user", "prefers terse answers")
	dir, _ := scope.UserDir()
	inside, _ := open(t, dir)
	if res := save(t, inside, scope.User, "user", "short commit messages"); res.Commit == "" {
		t.Error("the save from inside the user store was not committed")
	}

	testgit.Run(t, dir, "config", "--unset", "contextfs.userStore")
	unmarked, _ := open(t, dir)
	_, err := unmarked.Save(ctx, scope.User, contextfs.SaveRequest{Type: "user", Body: "no trailing summaries"})
	if err == nil || !strings.Contains(err.Error(), "config contextfs.userStore true") {
		t.Fatalf("save from inside an unmarked store = %v; want it refused, saying how to mark it", err)
	}
	testgit.Run(t, dir, "config", "contextfs.userStore", "true")
	marked, _ := open(t, dir)
	save(t, marked, scope.User, "user", "no trailing summaries")
}

// TestTheUserStoreCannotBeRegistered: registering the user store (or a
// clone of it) as a repository made every user memory show twice in
// `search --repos all`.
func TestTheUserStoreCannotBeRegistered(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, _ := open(t, testgit.Init(t))
	save(t, s, scope.User, "user", "prefers terse answers")
	dir, _ := scope.UserDir()
	testgit.Run(t, dir, "remote", "add", "origin", "git@example.com:me/memories.git")
	clone := testgit.Init(t)
	testgit.Run(t, clone, "remote", "add", "origin", "https://example.com/me/memories")
	for _, tt := range []struct{ name, dir string }{
		{"the user store", dir},
		{"a folder in it", filepath.Join(dir, ".contextfs")},
		{"a clone of it", clone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var cfg scope.Config
			if e, err := cfg.AddRepo(ctx, tt.dir, ""); err == nil || !strings.Contains(err.Error(), "user store") {
				t.Errorf("AddRepo = %+v, %v; want an error saying it is the user store", e, err)
			}
			if len(cfg.Repos) != 0 {
				t.Errorf("registered %+v", cfg.Repos)
			}
		})
	}
}

// TestAPrefixInBothStoresIsAmbiguous: with scope all, a prefix that
// matches a memory in each store names both, as two matches in one store
// do; delete used to take the repository's without a word. A full ID
// is its memory whatever the other store holds.
func TestAPrefixInBothStoresIsAmbiguous(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	repo := testgit.Init(t)
	s, _ := open(t, repo)
	if _, err := s.User(ctx); err != nil {
		t.Fatal(err)
	}
	udir, _ := scope.UserDir()
	mem := func(id string) string {
		return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nBody.\n"
	}
	for dir, ids := range map[string][]string{
		repo: {"ecwg51e0rk", "abcd1234", "wxyz5678a", "jjjj0001", "jjjj0002"},
		udir: {"eh4dnjx8vc", "abcd12345", "wxyz5678", "zzzz0001"},
	} {
		for _, id := range ids {
			testgit.WriteFile(t, dir, ".contextfs/"+id+".md", mem(id))
		}
	}
	tests := []struct {
		name      string
		sc        scope.Scope
		id        string
		wantID    string
		wantScope scope.Scope
		ambiguous []string // what the error names, when it is ambiguous
	}{
		{"a prefix in each store names both", scope.All, "e", "", "", []string{"ecwg51e0rk", "(repository)", "eh4dnjx8vc", "(user store)"}},
		{"the default scope is all", "", "e", "", "", []string{"ecwg51e0rk", "eh4dnjx8vc"}},
		{"a full ID in the repository wins", scope.All, "abcd1234", "abcd1234", scope.Repo, nil},
		{"a full ID in the user store wins", scope.All, "wxyz5678", "wxyz5678", scope.User, nil},
		{"a prefix in one store is its memory", scope.All, "zzz", "zzzz0001", scope.User, nil},
		{"two matches in one store are ambiguous as ever", scope.All, "jjjj", "", "", []string{"jjjj0001", "jjjj0002"}},
		{"one scope looks in one store", scope.Repo, "e", "ecwg51e0rk", scope.Repo, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, sc, _, err := s.Resolve(ctx, tt.sc, tt.id)
			if tt.ambiguous != nil {
				var amb *contextfs.AmbiguousError
				if !errors.As(err, &amb) {
					t.Fatalf("Resolve(%q) = %v, %q, %v; want ambiguous", tt.id, m, sc, err)
				}
				for _, w := range tt.ambiguous {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not name %s", err, w)
					}
				}
				return
			}
			if err != nil || m.ID != tt.wantID || sc != tt.wantScope {
				t.Fatalf("Resolve(%q) = %v, %q, %v; want %s in %s", tt.id, m, sc, err, tt.wantID, tt.wantScope)
			}
		})
	}
	if _, _, err := s.Delete(ctx, scope.All, "e"); err == nil {
		t.Error("delete of a prefix in both stores succeeded")
	}
	for _, p := range []string{filepath.Join(repo, ".contextfs", "ecwg51e0rk.md"), filepath.Join(udir, ".contextfs", "eh4dnjx8vc.md")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestASearchEveryStoreRefusesIsAnError: a query no store accepts (a
// limit out of range) is the error, not "no matches": with the user
// store there, each store's refusal was skipped as that store's failure.
func TestASearchEveryStoreRefusesIsAnError(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	s, warn := open(t, testgit.Init(t))
	save(t, s, scope.Repo, "fact", "the deploy runs on fridays")
	save(t, s, scope.User, "user", "prefers terse answers")
	if res, err := s.Search(ctx, scope.All, contextfs.Query{Text: "deploy", Limit: contextfs.MaxSearchLimit + 1}); err == nil {
		t.Errorf("search with limit %d = %+v, no error (warnings %q)", contextfs.MaxSearchLimit+1, res, warn)
	}
}

// A new store in a folder that the repository around it ignores is taken:
// a home directory kept in git with everything but the dotfiles ignored
// shows nothing of it, as it shows nothing of the rest of ~/.local.
func TestANewUserStoreInAnIgnoredFolderIsTaken(t *testing.T) {
	isolate(t)
	home := committedRepo(t)
	if err := os.WriteFile(filepath.Join(home, ".gitignore"), []byte("/.local/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, home, "add", ".gitignore")
	testgit.Run(t, home, "commit", "-q", "-m", "ignore .local")
	dir := filepath.Join(home, ".local", "share", "contextfs", "user")
	t.Setenv("CONTEXTFS_USER_DIR", dir)
	s, _ := open(t, testgit.Init(t))
	res := save(t, s, scope.User, "user", "Prefers terse answers")
	if res.Commit == "" {
		t.Fatalf("the user save made no commit: %+v", res)
	}
	if got := testgit.Run(t, home, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Fatalf("the repository around the store shows it:\n%s", got)
	}
}

// TestAnExistingRepositoryIsTheUserStoreOnlyIfItHoldsOnlyMemories: a
// CONTEXTFS_USER_DIR naming the root of another project's repository was
// taken as the user store, and user memories were committed into that
// project's history. An existing repository not marked as a user store is
// refused, and left as it was (no commit, no file, no config change),
// unless all it holds, in its index, its work tree and its history, is
// what contextfs writes to a store: a store made before the mark existed,
// or a clone of one, which is adopted and marked.
func TestAnExistingRepositoryIsTheUserStoreOnlyIfItHoldsOnlyMemories(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	memoryOnly := func(t *testing.T, dir string) {
		testgit.WriteFile(t, dir, ".contextfs/memories/abcd1234.md", testgit.Memory("abcd1234", "", "An old preference.\n"))
		testgit.WriteFile(t, dir, ".gitattributes", ".contextfs/**/*.md merge=contextfs\n")
		testgit.Run(t, dir, "add", "-A")
		testgit.Run(t, dir, "commit", "-qm", "contextfs: add 1 user")
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		refused string // what the refusal names; "" when the store is adopted
	}{
		{"another project's checkout is refused", func(t *testing.T, dir string) {
			testgit.WriteFile(t, dir, "main.go", "package main\n")
			testgit.Run(t, dir, "add", "main.go")
			testgit.Run(t, dir, "commit", "-qm", "code")
		}, "main.go"},
		{"another project's checkout with memories of its own is refused", func(t *testing.T, dir string) {
			memoryOnly(t, dir)
			testgit.WriteFile(t, dir, "cmd/tool/main.go", "package main\n")
			testgit.Run(t, dir, "add", "cmd")
			testgit.Run(t, dir, "commit", "-qm", "code")
		}, "cmd/tool/main.go"},
		{"a project with files staged and no commit is refused", func(t *testing.T, dir string) {
			testgit.WriteFile(t, dir, "go.mod", "module x\n")
			testgit.Run(t, dir, "add", "go.mod")
		}, "go.mod"},
		{"a project with files not yet added is refused", func(t *testing.T, dir string) {
			testgit.WriteFile(t, dir, "src/app.py", "print(1)\n")
		}, "src/app.py"},
		{"a repository whose history holds other files is refused", func(t *testing.T, dir string) {
			testgit.WriteFile(t, dir, "main.go", "package main\n")
			testgit.Run(t, dir, "add", "main.go")
			testgit.Run(t, dir, "commit", "-qm", "code")
			testgit.Run(t, dir, "rm", "-q", "main.go")
			testgit.Run(t, dir, "commit", "-qm", "remove the code")
			memoryOnly(t, dir)
		}, "history"},
		{"a store made before the mark is adopted", memoryOnly, ""},
		{"an empty repository is adopted", func(t *testing.T, dir string) {}, ""},
		{"files the store ignores do not count", func(t *testing.T, dir string) {
			memoryOnly(t, dir)
			testgit.WriteFile(t, dir, ".git/info/exclude", ".DS_Store\n")
			testgit.WriteFile(t, dir, ".DS_Store", "x")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			tt.setup(t, dir)
			t.Setenv("CONTEXTFS_USER_DIR", dir)
			head, _ := testgit.Try(dir, "rev-parse", "-q", "--verify", "HEAD")
			status := testgit.Run(t, dir, "status", "--porcelain", "--untracked-files=all")
			config, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			if st := scope.UserStatus(ctx); st.Refused != (tt.refused != "") || !st.Exists ||
				tt.refused != "" && !strings.Contains(st.Summary(), "refused: ") {
				t.Errorf("UserStatus = %+v (%s); want refused %v", st, st.Summary(), tt.refused != "")
			}
			if got, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(got) != string(config) {
				t.Errorf("UserStatus changed .git/config from\n%s\nto\n%s", config, got)
			}
			s, _ := open(t, testgit.Init(t))
			res, err := s.Save(ctx, scope.User, contextfs.SaveRequest{Type: "user", Body: "I like tabs"})

			if tt.refused == "" {
				if err != nil || res.Commit == "" {
					t.Fatalf("user save = %+v, %v; want the store adopted and the save committed", res, err)
				}
				if got := testgit.Run(t, dir, "config", "--local", "--get", "contextfs.userStore"); got != "true" {
					t.Errorf("the adopted store's mark = %q, want true", got)
				}
				return
			}
			var ude *scope.UserDirError
			if !errors.As(err, &ude) {
				t.Fatalf("user save = %+v, %v; want a UserDirError", res, err)
			}
			for _, want := range []string{"CONTEXTFS_USER_DIR", dir, "not marked as a user store", tt.refused, "git -C " + dir + " config contextfs.userStore true"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if got, _ := testgit.Try(dir, "rev-parse", "-q", "--verify", "HEAD"); got != head {
				t.Errorf("HEAD went from %q to %q:\n%s", head, got, testgit.Run(t, dir, "log", "--stat", "-1"))
			}
			if got := testgit.Run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != status {
				t.Errorf("status went from\n%s\nto\n%s", status, got)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(got) != string(config) {
				t.Errorf(".git/config went from\n%s\nto\n%s", config, got)
			}
			if st := scope.UserStatus(ctx); !st.Refused || !strings.Contains(st.Problem, tt.refused) {
				t.Errorf("UserStatus after the refusal = %+v; want it refused, naming %s", st, tt.refused)
			}
		})
	}
}

// A user store just made holds what Init wrote in its first commit, so
// that doctor (and MCP check_setup, outside any repository, where the
// server makes the store at its start) does not report a store nobody has
// touched as having uncommitted changes.
func TestANewUserStoreStartsCommitted(t *testing.T) {
	isolate(t)
	s, _ := open(t, testgit.Init(t))
	u, err := s.User(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := testgit.Run(t, u.Repo.Root, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Fatalf("a new user store has uncommitted changes:\n%s", got)
	}
	if got := testgit.Run(t, u.Repo.Root, "log", "--format=%s"); !strings.Contains(got, "create the user store") {
		t.Fatalf("the new store's history is %q, want its first commit", got)
	}
}
