package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// isolateScopes points the user store and the user's config at this
// test's own temp dirs.
func isolateScopes(t *testing.T) (userDir string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	return filepath.Join(home, "data", "contextfs", "user")
}

type scopedHit struct {
	ID, Title, Scope, Repo string
}

func TestCLIAUserMemoryFollowsTheUserAndStaysOutOfTheRepository(t *testing.T) {
	userDir := isolateScopes(t)
	a, b := testgit.Init(t), testgit.Init(t)
	id := strings.TrimSpace(ok(t, a, "save", "--type", "user", "prefers terse answers"))
	if st := testgit.Run(t, a, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git -C A status --porcelain:\n%s", st)
	}
	if got := strings.TrimSpace(ok(t, b, "user", "path")); got != userDir {
		t.Errorf("user path = %q, want %q", got, userDir)
	}
	if n := testgit.Run(t, userDir, "rev-list", "--count", "HEAD"); n != "2" {
		t.Errorf("the user store has %s commits, want 2 (its creation, the save)", n)
	}
	var hits []scopedHit
	decodeJSON(t, ok(t, b, "search", "--json", "terse"), &hits)
	if len(hits) != 1 || hits[0].ID != id || hits[0].Scope != "user" {
		t.Fatalf("search in B = %+v; want %s with scope user", hits, id)
	}
	if out := ok(t, b, "search", "terse"); !strings.Contains(out, "user: .contextfs/memories/") {
		t.Errorf("human output does not say the hit is the user's:\n%s", out)
	}
	if out := ok(t, b, "recall", id[:6]); !strings.Contains(out, "prefers terse answers") || !strings.Contains(out, "(user store)") {
		t.Errorf("recall from B:\n%s", out)
	}
	if r := cli(t, b, "", "search", "--scope", "repo", "--json", "terse"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("--scope repo: exit %d, %s; want no hits", r.code, r.stdout)
	}
	ok(t, b, "delete", id)
	if n := testgit.Run(t, userDir, "rev-list", "--count", "HEAD"); n != "3" {
		t.Errorf("the user store has %s commits after delete, want 3", n)
	}
}

func TestCLISearchAcrossRegisteredRepositories(t *testing.T) {
	isolateScopes(t)
	a, b := testgit.Init(t), testgit.Init(t)
	testgit.Run(t, a, "remote", "add", "origin", "git@github.com:acme/api.git")
	ok(t, a, "save", "The api retries webhooks three times")
	ok(t, b, "save", "The client retries requests with backoff")
	ok(t, a, "repos", "add")
	if out := ok(t, a, "repos", "add", b); !strings.Contains(out, "registered") {
		t.Errorf("repos add: %s", out)
	}
	if out := ok(t, a, "repos", "list"); !strings.Contains(out, "github.com/acme/api") {
		t.Errorf("repos list:\n%s", out)
	}
	elsewhere := t.TempDir()
	var hits []scopedHit
	decodeJSON(t, ok(t, elsewhere, "search", "--repos", "all", "--json", "retries"), &hits)
	repos := map[string]bool{}
	for _, h := range hits {
		repos[h.Repo] = true
	}
	if len(hits) != 2 || !repos["api"] || !repos[filepath.Base(b)] {
		t.Fatalf("hits %+v; want one from api and one from %s", hits, filepath.Base(b))
	}
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	r := cli(t, elsewhere, "", "search", "--repos", "all", "--json", "retries")
	decodeJSON(t, r.stdout, &hits)
	if r.code != 0 || len(hits) != 1 || hits[0].Repo != "api" || !strings.Contains(r.stderr, "warning: repository "+filepath.Base(b)) {
		t.Errorf("with B gone: exit %d, hits %+v, stderr %q; want A's hit and a warning", r.code, hits, r.stderr)
	}
	if r := cli(t, elsewhere, "", "search", "--repos", "nope", "x"); r.code != exitFail {
		t.Errorf("--repos nope: exit %d, want 1 (not found)", r.code)
	}
	ok(t, a, "repos", "remove", "api")
	if r := cli(t, a, "", "repos", "remove", "api"); r.code != exitFail {
		t.Errorf("removing it twice: exit %d, want 1 (not found)", r.code)
	}
}

func TestCLIScopeMistakesExit2(t *testing.T) {
	isolateScopes(t)
	dir := testgit.Init(t)
	for _, args := range [][]string{
		{"save", "--scope", "all", "x"},
		{"save", "--scope", "team", "x"},
		{"search", "--scope", "nope", "x"},
		{"list", "--scope", "nope"},
	} {
		if r := cli(t, dir, "", args...); r.code != exitUsage || !strings.Contains(r.stderr, "--scope") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --scope", args, r.code, r.stderr)
		}
	}
}

// TestCLIContextShowsTheUsersPreferencesInEveryRepository: a preference
// saved in one repository lands in the user store, and the context block of
// another repository lists it under Preferences, after the repository's own.
func TestCLIContextShowsTheUsersPreferencesInEveryRepository(t *testing.T) {
	isolateScopes(t)
	a, b := testgit.Init(t), testgit.Init(t)
	mine := strings.TrimSpace(ok(t, a, "save", "--type", "user", "I prefer terse answers with no preamble."))
	team := strings.TrimSpace(ok(t, b, "save", "--type", "user", "--scope", "repo", "This team writes British English in docs."))
	out := ok(t, b, "context")
	pref := strings.Index(out, "Preferences")
	at, am := strings.Index(out, team), strings.Index(out, mine)
	if pref < 0 || at < pref || am < pref {
		t.Fatalf("context in B does not list both preferences (team %s, user %s) under Preferences:\n%s", team, mine, out)
	}
	if at > am {
		t.Errorf("the repository's preference should come before the user's own:\n%s", out)
	}
	if st := testgit.Run(t, b, "status", "--porcelain", "--untracked-files=all", "--", ".contextfs/memories"); strings.Contains(st, mine) {
		t.Errorf("the user's preference was written into repository B:\n%s", st)
	}
}

// TestCLIUpdateJSONSaysWhichStoreHoldsTheMemory: update --json carries
// scope, as save and the reads do, for a memory of either store.
func TestCLIUpdateJSONSaysWhichStoreHoldsTheMemory(t *testing.T) {
	isolateScopes(t)
	dir := testgit.Init(t)
	tests := []struct {
		name, typ, want string
	}{
		{"a repository memory", "fact", "repo"},
		{"a user memory", "user", "user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := strings.TrimSpace(ok(t, dir, "save", "--type", tt.typ, "Answers are terse, "+tt.name+"."))
			var got struct{ ID, Title, Scope string }
			decodeJSON(t, ok(t, dir, "update", id, "--title", "Terse answers", "--json"), &got)
			if got.ID != id || got.Title != "Terse answers" || got.Scope != tt.want {
				t.Errorf("update --json = %+v; want id %s, the new title and scope %s", got, id, tt.want)
			}
		})
	}
}

// TestCLIStatusAndDoctorShowTheUserStore: status and doctor say where the
// user store is, how many memories it holds and whether they are all
// committed, before it exists, after a save and after a hand edit.
func TestCLIStatusAndDoctorShowTheUserStore(t *testing.T) {
	userDir := isolateScopes(t)
	dir := testgit.Init(t)
	type userStore struct {
		Path        string
		Exists      bool
		Memories    int
		Uncommitted []string
	}
	status := func() userStore {
		var st struct {
			UserStore userStore `json:"user_store"`
		}
		decodeJSON(t, ok(t, dir, "status", "--json"), &st)
		return st.UserStore
	}
	doctorLine := func() (msg string, warning bool) {
		var rep struct {
			Checks []struct {
				Name, Message string
				Warning       bool
			}
		}
		decodeJSON(t, cli(t, dir, "", "doctor", "--json").stdout, &rep)
		for _, c := range rep.Checks {
			if c.Name == "user-store" {
				return c.Message, c.Warning
			}
		}
		t.Fatal("doctor --json has no user-store check")
		return "", false
	}

	if got := status(); got.Path != userDir || got.Exists || got.Memories != 0 {
		t.Errorf("before any user save: %+v; want path %s, not existing", got, userDir)
	}
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "user", "Prefers terse answers."))
	if got := status(); !got.Exists || got.Memories != 1 || len(got.Uncommitted) != 0 {
		t.Errorf("after a user save: %+v; want 1 memory, all committed", got)
	}
	if msg, warn := doctorLine(); warn || !strings.Contains(msg, userDir) || !strings.Contains(msg, "1 memories, all committed") {
		t.Errorf("doctor after a save: %q (warning %v)", msg, warn)
	}
	if out := ok(t, dir, "status"); !strings.Contains(out, "user store  "+userDir+" (1 memories, all committed)") {
		t.Errorf("status does not show the user store:\n%s", out)
	}

	files, _ := filepath.Glob(filepath.Join(userDir, ".contextfs", "memories", "*"+id+".md"))
	if len(files) != 1 {
		t.Fatalf("the user memory's file: %v", files)
	}
	f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nAlso in reviews.\n")
	f.Close()
	if got := status(); len(got.Uncommitted) != 1 || !strings.HasSuffix(got.Uncommitted[0], id+".md") {
		t.Errorf("after a hand edit: %+v; want the edited file uncommitted", got)
	}
	if msg, warn := doctorLine(); !warn || !strings.Contains(msg, "1 uncommitted") {
		t.Errorf("doctor after a hand edit: %q (warning %v); want a warning naming the uncommitted change", msg, warn)
	}
}
