package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// isolateHome points HOME and the XDG folders at the test's own, so that
// no test reads or writes the developer's user store or config.
func isolateHome(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	os.Unsetenv("CONTEXTFS_USER_DIR")
	for _, k := range []string{envSourceTool, envSourceModel} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// writeSessionRecord writes the open session's record by hand, as an
// older version (or a person) may have left it.
func writeSessionRecord(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, ".git", "contextfs", "session", "current.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSessionStartRefusesALabelNoSummaryCouldCarry(t *testing.T) {
	isolateHome(t)
	tests := []struct {
		name, label, want string
	}{
		{"a bell is a usage error", "bell\a", "must not contain control characters; found U+0007"},
		{"an escape sequence is a usage error", "ctrl \x1b[31m red", "found U+001B"},
		{"a label of 201 characters is a usage error", strings.Repeat("x", 201), "201 characters long; at most 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			r := cli(t, dir, "", "session", "start", "--label", tt.label)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d %q, want 2 and %q", r.code, r.stderr, tt.want)
			}
			if out := ok(t, dir, "session", "list", "--json"); !strings.Contains(out, `"open": null`) {
				t.Errorf("a refused start opened a session:\n%s", out)
			}
		})
	}
}

// TestAWedgedSessionCanBeEndedOrReplaced: a session recorded with a
// control character in its label (by a version that took one) no longer
// blocks end, start or the SessionEnd hook.
func TestAWedgedSessionCanBeEndedOrReplaced(t *testing.T) {
	isolateHome(t)
	const wedged = `{"id": "wedged01", "label": "bell\u0007", "started": "2026-03-01T09:00:00Z"}`
	for _, args := range [][]string{
		{"session", "end", "--summary", "x"},
		{"session", "start", "--label", "ok"},
		{"session", "end", "--if-open", "--outcome", "unknown"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := testgit.Init(t)
			ok(t, dir, "save", "A fact, so that the repository uses contextfs")
			writeSessionRecord(t, dir, wedged)
			ok(t, dir, args...)
			if args[len(args)-1] == "unknown" {
				// The hook's end of a session that saved nothing saves no
				// summary; it closes the session all the same.
				if out := ok(t, dir, "session", "list", "--json"); !strings.Contains(out, `"open": null`) {
					t.Errorf("the wedged session is still open:\n%s", out)
				}
				return
			}
			if out := ok(t, dir, "session", "show", "wedged01"); !strings.Contains(out, "Session: bell\n") {
				t.Errorf("session show wedged01:\n%s", out)
			}
		})
	}
}

func TestADamagedSessionRecordSaysHowToRecover(t *testing.T) {
	isolateHome(t)
	dir := testgit.Init(t)
	p := writeSessionRecord(t, dir, `{"id":"../../../x","tool":"t"}`)
	r := cli(t, dir, "", "save", "A fact")
	if r.code != 1 || strings.Contains(r.stderr, "<nil>") || !strings.Contains(r.stderr, `"../../../x" is not a session ID`) ||
		!strings.Contains(r.stderr, p) || !strings.Contains(r.stderr, "delete that file to start afresh") {
		t.Errorf("save with a damaged record: exit %d %q", r.code, r.stderr)
	}
}

// TestHookCommandsLeaveARepositoryWithoutContextfsAlone runs what setup
// claude's hooks run. With --user they run in every repository Claude
// opens: one that never used contextfs must not get a .contextfs folder,
// and a session that saved nothing leaves no summary anywhere. A session
// that saved, in the user store only too, gets its summary: it is the
// record of what it saved.
func TestHookCommandsLeaveARepositoryWithoutContextfsAlone(t *testing.T) {
	isolateHome(t)
	tests := []struct {
		name      string
		contextfs bool
		save      string // the scope a memory is saved in during the session ("": none)
		summaries int
	}{
		{"a repository without .contextfs gets nothing", false, "", 0},
		{"a repository with .contextfs gets no summary of a session that saved nothing", true, "", 0},
		{"a repository with .contextfs gets the summary of a session that saved", true, "repo", 1},
		{"a repository without .contextfs gets the summary of a session that saved in the user store", false, "user", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			if tt.contextfs {
				ok(t, dir, "init")
				testgit.Run(t, dir, "add", ".")
				testgit.Run(t, dir, "commit", "-qm", "contextfs")
			}
			ok(t, dir, "session", "start", "--tool", "claude-code", "--resume")
			ok(t, dir, "context")
			var id string
			if tt.save != "" {
				id = strings.TrimSpace(ok(t, dir, "save", "--scope", tt.save, "--type", "fact", "The build caches modules."))
				if tt.save == "repo" {
					testgit.Run(t, dir, "add", ".")
					testgit.Run(t, dir, "commit", "-qm", "fact")
				}
			}
			out := ok(t, dir, "session", "end", "--if-open", "--outcome", "unknown", "--json")
			if tt.summaries == 0 && out != "null\n" {
				t.Errorf("session end --if-open --json printed %q, want null", out)
			}
			if tt.summaries > 0 {
				var sum struct{ Data struct{ Saved []string } }
				if decodeJSON(t, out, &sum); !slices.Equal(sum.Data.Saved, []string{id}) {
					t.Errorf("the summary lists %v, want [%s]", sum.Data.Saved, id)
				}
			}
			var list struct{ Ended []any }
			decodeJSON(t, ok(t, dir, "session", "list", "--json"), &list)
			if len(list.Ended) != tt.summaries {
				t.Errorf("%d sessions ended with a summary, want %d", len(list.Ended), tt.summaries)
			}
			if st := testgit.Run(t, dir, "status", "--porcelain", "--untracked-files=all"); tt.summaries == 0 && st != "" {
				t.Errorf("the hooks changed the repository:\n%s", st)
			}
		})
	}
}

// TestHookCommandsOpenTheUserStoreOnlyForASessionThatSaved: the hooks
// start and end every agent session, in every repository (setup claude
// --user); opening the user store (its cache, its layout, git) for one
// that saved nothing is work for nothing. Its cache, removed, tells
// whether it was opened.
func TestHookCommandsOpenTheUserStoreOnlyForASessionThatSaved(t *testing.T) {
	isolateHome(t)
	ok(t, testgit.Init(t), "save", "--scope", "user", "--type", "user", "Tabs, not spaces.")
	userCache := filepath.Join(os.Getenv("XDG_DATA_HOME"), "contextfs", "user", ".git", "contextfs", "cache.db")
	if _, err := os.Stat(userCache); err != nil {
		t.Fatalf("the user store has no cache where the test looks: %v", err)
	}
	tests := []struct {
		name      string
		contextfs bool
		save      string // the scope a memory is saved in during the session ("": none)
		opened    bool
	}{
		{"a session that saved nothing, in a repository without .contextfs", false, "", false},
		{"a session that saved nothing, in a repository with .contextfs", true, "", false},
		{"a session that saved in the repository", true, "repo", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			if tt.contextfs {
				ok(t, dir, "init")
			}
			if tt.save != "" {
				// Before the session, so that the save itself opens no user store.
				ok(t, dir, "session", "start", "--tool", "claude-code", "--resume")
				ok(t, dir, "save", "--scope", tt.save, "--type", "fact", "The build caches modules.")
			}
			for _, p := range []string{userCache, userCache + "-wal", userCache + "-shm"} {
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{
				{"session", "start", "--tool", "claude-code", "--resume"},
				{"session", "end", "--if-open", "--outcome", "unknown"},
			} {
				ok(t, dir, args...)
				_, err := os.Stat(userCache)
				if opened := err == nil; opened && (!tt.opened || args[1] == "start") {
					t.Errorf("%s opened the user store", strings.Join(args, " "))
				}
			}
			if _, err := os.Stat(userCache); (err == nil) != tt.opened {
				t.Errorf("the user store opened=%v, want %v", err == nil, tt.opened)
			}
		})
	}
}

func TestSessionEndListsTheSessionsSavesInTheUserStore(t *testing.T) {
	isolateHome(t)
	dir := testgit.Init(t)
	ok(t, dir, "session", "start", "--tool", "claude-code", "--label", "scopetest")
	pref := strings.TrimSpace(ok(t, dir, "save", "--scope", "user", "--type", "procedural", "Never run the integration tests locally"))
	fact := strings.TrimSpace(ok(t, dir, "save", "--type", "fact", "Repo fact in the session"))
	var sum struct {
		Data struct{ Saved []string }
	}
	decodeJSON(t, ok(t, dir, "session", "end", "--summary", "done", "--json"), &sum)
	want := []string{pref, fact}
	slices.Sort(want)
	if !slices.Equal(sum.Data.Saved, want) {
		t.Errorf("saved %v, want %v (the user store's and the repository's)", sum.Data.Saved, want)
	}
}

func TestSessionShowLogAndEndAnswerEveryCase(t *testing.T) {
	isolateHome(t)
	dir := testgit.Init(t)
	if out := ok(t, dir, "session", "end", "--if-open", "--json"); out != "null\n" {
		t.Errorf("end --if-open --json with none open printed %q, want null", out)
	}
	sid := strings.TrimSpace(ok(t, dir, "session", "start", "--label", "show me"))
	mid := strings.Fields(ok(t, dir, "session", "end", "--summary", "Shown."))[0]
	for _, id := range []string{sid, mid, mid[:6]} {
		if out := ok(t, dir, "session", "show", id); !strings.HasPrefix(out, "session "+sid+"  (memory "+mid+")") {
			t.Errorf("session show %s:\n%s", id, out)
		}
	}
	if r := cli(t, dir, "", "session", "log", "--show", "nope"); r.code != 1 || !strings.Contains(r.stderr, `no log for session "nope"`) {
		t.Errorf("session log --show nope: exit %d %q", r.code, r.stderr)
	}
}

func TestAModelFromTheEnvironmentJoinsTheSessionsTool(t *testing.T) {
	isolateHome(t)
	dir := testgit.Init(t)
	ok(t, dir, "session", "start", "--tool", "claude-code")
	t.Setenv(envSourceModel, "gpt5")
	id := strings.TrimSpace(ok(t, dir, "save", "A fact saved with a model"))
	var m struct {
		Source struct{ Tool, Model string }
	}
	decodeJSON(t, ok(t, dir, "recall", id, "--json"), &m)
	if m.Source.Tool != "claude-code" || m.Source.Model != "gpt5" {
		t.Errorf("source %+v, want claude-code with gpt5", m.Source)
	}
}

func TestContextMasksSecretsAndLeavesOutExpiredMemories(t *testing.T) {
	isolateHome(t)
	dir := testgit.Init(t)
	const token = "ghp_R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Qr7St1Uv3W"
	secret := strings.TrimSpace(ok(t, dir, "save", "--type", "architecture", "Staging deploy token is "+token))
	expired := strings.TrimSpace(ok(t, dir, "save", "--type", "tech-context", "Expired tech note: uses Redis 6"))
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*-"+expired+".md"))
	if len(files) != 1 {
		t.Fatalf("the file of %s: %v", expired, files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], []byte(strings.Replace(string(raw), "\ncreated:", "\nexpires: 2020-01-01\ncreated:", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := ok(t, dir, "context")
	if strings.Contains(out, token) || !strings.Contains(out, "["+secret+"] Staging deploy token is ghp_****") {
		t.Errorf("context shows the token, or not its masked form:\n%s", out)
	}
	if strings.Contains(out, expired) {
		t.Errorf("context shows the expired %s:\n%s", expired, out)
	}
}
