package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestCLIAUserStoreInTheRepositoryIsRefused: CONTEXTFS_USER_DIR naming
// the repository a command runs in (or a folder in it, or a relative
// path) made a user save commit the team's pending memories, its config
// and the private preference into the team's history, or nest a
// repository in its work tree. It is refused, naming the variable, and
// nothing is written.
func TestCLIAUserStoreInTheRepositoryIsRefused(t *testing.T) {
	isolateScopes(t)
	repo := testgit.Init(t)
	testgit.WriteFile(t, repo, "README", "hi\n")
	testgit.Run(t, repo, "add", "README")
	testgit.Run(t, repo, "commit", "-qm", "init")
	ok(t, repo, "init")
	ok(t, repo, "save", "--type", "fact", "A teammate's fact, not committed yet")
	tests := []struct {
		name, dir, want string
	}{
		{"the repository itself", repo, "the repository you are in"},
		{"the current directory", ".", "absolute"},
		{"a relative path", "relstore", "absolute"},
		{"a folder in the work tree", filepath.Join(repo, "sub", "store"), "inside the work tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONTEXTFS_USER_DIR", tt.dir)
			status := testgit.Run(t, repo, "status", "--porcelain", "--untracked-files=all")
			r := cli(t, repo, "", "save", "--type", "user", "my private preference")
			if r.code != exitFail || !strings.Contains(r.stderr, "CONTEXTFS_USER_DIR") || !strings.Contains(r.stderr, tt.dir) || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("save --type user: exit %d, stderr %q; want 1 naming CONTEXTFS_USER_DIR, %s and %q", r.code, r.stderr, tt.dir, tt.want)
			}
			if n := testgit.Run(t, repo, "rev-list", "--count", "HEAD"); n != "1" {
				t.Errorf("the repository has %s commits, want 1:\n%s", n, testgit.Run(t, repo, "log", "--stat", "-1"))
			}
			if got := testgit.Run(t, repo, "status", "--porcelain", "--untracked-files=all"); got != status {
				t.Errorf("status went from\n%s\nto\n%s", status, got)
			}
			if r := cli(t, repo, "", "user", "path"); r.code != exitFail {
				t.Errorf("user path: exit %d, stdout %q; want 1", r.code, r.stdout)
			}
		})
	}
}

// TestCLIDeleteRefusesAPrefixInBothStores: a prefix matching a memory
// in the repository and one in the user store is ambiguous, as two
// matches in one store are; delete used to take the repository's.
func TestCLIDeleteRefusesAPrefixInBothStores(t *testing.T) {
	isolateScopes(t)
	repo := testgit.Init(t)
	userDir := strings.TrimSpace(ok(t, repo, "user", "path"))
	mem := func(id string) string {
		return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nBody.\n"
	}
	testgit.WriteFile(t, repo, ".contextfs/ecwg51e0rk.md", mem("ecwg51e0rk"))
	testgit.WriteFile(t, userDir, ".contextfs/eh4dnjx8vc.md", mem("eh4dnjx8vc"))
	for _, args := range [][]string{{"delete", "e"}, {"recall", "e"}, {"update", "e", "--add-tag", "x"}} {
		r := cli(t, repo, "", args...)
		if r.code != exitFail || !strings.Contains(r.stderr, "ambiguous") ||
			!strings.Contains(r.stderr, "ecwg51e0rk") || !strings.Contains(r.stderr, "eh4dnjx8vc") || !strings.Contains(r.stderr, "user store") {
			t.Errorf("%v: exit %d, stderr %q; want 1, ambiguous, naming both memories and the user store", args, r.code, r.stderr)
		}
	}
	for _, p := range []string{filepath.Join(repo, ".contextfs", "ecwg51e0rk.md"), filepath.Join(userDir, ".contextfs", "eh4dnjx8vc.md")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// A full ID is its memory.
	if out := ok(t, repo, "delete", "ecwg51e0rk"); !strings.Contains(out, "ecwg51e0rk") {
		t.Errorf("delete by full ID: %q", out)
	}
}

// TestCLIReposAddRefusesTheUserStore: registered, the user store answered
// `search --repos all` with every user memory twice.
func TestCLIReposAddRefusesTheUserStore(t *testing.T) {
	isolateScopes(t)
	repo := testgit.Init(t)
	ok(t, repo, "save", "--type", "user", "prefers terse answers")
	userDir := strings.TrimSpace(ok(t, repo, "user", "path"))
	if r := cli(t, repo, "", "repos", "add", userDir); r.code != exitFail || !strings.Contains(r.stderr, "user store") {
		t.Errorf("repos add the user store: exit %d, stderr %q; want 1 saying it is the user store", r.code, r.stderr)
	}
	if out := ok(t, repo, "repos", "list"); out != "" {
		t.Errorf("repos list:\n%s", out)
	}
	var hits []scopedHit
	decodeJSON(t, ok(t, repo, "search", "--repos", "all", "--json", "terse"), &hits)
	if len(hits) != 1 {
		t.Errorf("search --repos all = %+v; want the user memory once", hits)
	}
}

// TestCLIAnUnregisteredNameIsNotFound: a repository name nobody
// registered is a thing not found (exit 1, as the README's table has it),
// not a command line written wrong (2), and the message says how to list
// the names.
func TestCLIAnUnregisteredNameIsNotFound(t *testing.T) {
	isolateScopes(t)
	repo := testgit.Init(t)
	for _, args := range [][]string{{"repos", "remove", "nosuch"}, {"search", "--repos", "nosuch", "x"}} {
		r := cli(t, repo, "", args...)
		if r.code != exitFail || !strings.Contains(r.stderr, `"nosuch"`) || !strings.Contains(r.stderr, "repos list") {
			t.Errorf("%v: exit %d, stderr %q; want 1 naming nosuch and repos list", args, r.code, r.stderr)
		}
	}
}

// TestCLIAnotherRepositoryIsNotTakenAsTheUserStore: CONTEXTFS_USER_DIR
// naming another project's checkout made `save --scope user` commit the
// memory into that project's history. It is refused, naming the
// variable, the path, why, and how to mark a real user store, and the
// project is left as it was; status and doctor say so. A repository that
// holds only memories (a user store made before the mark) is adopted and
// marked.
func TestCLIAnotherRepositoryIsNotTakenAsTheUserStore(t *testing.T) {
	tests := []struct {
		name    string
		file    string // committed to the repository
		refused bool
	}{
		{"another project's checkout is refused", "main.go", true},
		{"a store made before the mark is adopted", ".contextfs/memories/abcd1234.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateScopes(t)
			other := testgit.Init(t)
			testgit.WriteFile(t, other, tt.file, testgit.Memory("abcd1234", "", "Body.\n"))
			testgit.Run(t, other, "add", "-A")
			testgit.Run(t, other, "commit", "-qm", "init")
			config, err := os.ReadFile(filepath.Join(other, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("CONTEXTFS_USER_DIR", other)
			work := testgit.Init(t)
			r := cli(t, work, "", "save", "--scope", "user", "--type", "preference", "I like tabs")
			if !tt.refused {
				if r.code != 0 || testgit.Run(t, other, "rev-list", "--count", "HEAD") != "2" {
					t.Fatalf("save: exit %d, stderr %q; want the store adopted and the save committed", r.code, r.stderr)
				}
				if got := testgit.Run(t, other, "config", "--local", "--get", "contextfs.userStore"); got != "true" {
					t.Errorf("the adopted store's mark = %q, want true", got)
				}
				return
			}
			for _, want := range []string{"CONTEXTFS_USER_DIR", other, "not marked as a user store", "main.go", "git -C " + other + " config contextfs.userStore true"} {
				if r.code != exitFail || !strings.Contains(r.stderr, want) {
					t.Errorf("save: exit %d, stderr %q; want 1 saying %q", r.code, r.stderr, want)
				}
			}
			if n := testgit.Run(t, other, "rev-list", "--count", "HEAD"); n != "1" {
				t.Errorf("the other repository has %s commits, want 1:\n%s", n, testgit.Run(t, other, "log", "--stat", "-1"))
			}
			if got := testgit.Run(t, other, "status", "--porcelain", "--untracked-files=all"); got != "" {
				t.Errorf("the other repository's status:\n%s", got)
			}
			if got, _ := os.ReadFile(filepath.Join(other, ".git", "config")); string(got) != string(config) {
				t.Errorf(".git/config went from\n%s\nto\n%s", config, got)
			}
			var st struct {
				UserStore struct {
					Problem string
					Refused bool
				} `json:"user_store"`
			}
			decodeJSON(t, ok(t, work, "status", "--json"), &st)
			if !st.UserStore.Refused || !strings.Contains(st.UserStore.Problem, "main.go") {
				t.Errorf("status --json user_store = %+v; want it refused, naming main.go", st.UserStore)
			}
			if out := cli(t, work, "", "doctor").stdout; !strings.Contains(out, "refused: it is an existing git repository not marked as a user store") {
				t.Errorf("doctor does not say the user store is refused:\n%s", out)
			}
		})
	}
}
