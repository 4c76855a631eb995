package mcpserver_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestSessionStartJoinsTheSessionAHookStarted: setup claude's SessionStart
// hook starts a session, then the instructions ask the agent to call
// session start: that is one session, with one summary, not a junk
// "left open" summary of the hook's.
func TestSessionStartJoinsTheSessionAHookStarted(t *testing.T) {
	tests := []struct {
		name    string
		args    map[string]any
		resumed bool
	}{
		{"by default the open session is joined", map[string]any{"label": "mcp work"}, true},
		{"resume true joins it", map[string]any{"label": "mcp work", "resume": true}, true},
		{"resume false closes it and starts another", map[string]any{"label": "mcp work", "resume": false}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, s, dir := connect(t)
			hook, err := session.Start(context.Background(), s, session.StartOptions{Tool: "claude-code"}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Session struct{ ID, Label, Tool string }
				Resumed bool
				Closed  string
			}
			args := map[string]any{"action": "start"}
			maps.Copy(args, tt.args)
			txt := call(t, cs, "session", args, &out)
			summaries, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "session-*.md"))
			if tt.resumed {
				if !out.Resumed || out.Session.ID != hook.Session.ID || out.Closed != "" || len(summaries) != 0 {
					t.Fatalf("session start = %+v (%q), %d summaries; want the hook's session %s joined", out, txt, len(summaries), hook.Session.ID)
				}
				if out.Session.Label != "mcp work" || out.Session.Tool != "claude-code" {
					t.Errorf("joined session %+v: want the call's label and the hook's tool", out.Session)
				}
				return
			}
			if out.Resumed || out.Session.ID == hook.Session.ID || out.Closed == "" || len(summaries) != 1 {
				t.Errorf("session start = %+v (%q), %d summaries; want the hook's session closed", out, txt, len(summaries))
			}
		})
	}
}

func TestSessionStartRefusesALabelWithAControlCharacter(t *testing.T) {
	cs, s, _ := connect(t)
	res := callRaw(t, cs, "session", map[string]any{"action": "start", "label": "ctrl \x1b[31m red"})
	if !res.IsError || !strings.Contains(text(res), "control characters") {
		t.Fatalf("session start with an escape in the label: error=%v %q", res.IsError, text(res))
	}
	if cur, _ := session.Current(s.Repo); cur != nil {
		t.Errorf("a refused start opened %+v", cur)
	}
}

func TestSessionEndWithNoneOpenNamesTheTool(t *testing.T) {
	cs, _, _ := connect(t)
	res := callRaw(t, cs, "session", map[string]any{"action": "end", "summary": "x"})
	if !res.IsError || !strings.Contains(text(res), `"start"`) || strings.Contains(text(res), "git contextfs") {
		t.Errorf("session end with none open: error=%v %q; want it to name the start action", res.IsError, text(res))
	}
}

// TestSessionEndListsTheUserStoresSaves: a preference saved in the
// session goes to the user's own store, and is one of the session's saves.
func TestSessionEndListsTheUserStoresSaves(t *testing.T) {
	isolateHome(t)
	cs, _, _ := connect(t)
	call(t, cs, "session", map[string]any{"action": "start"}, nil)
	var pref, fact struct{ ID, Scope string }
	call(t, cs, "save_memory", map[string]any{"type": "user", "content": "Never run the integration tests locally."}, &pref)
	call(t, cs, "save_memory", map[string]any{"type": "fact", "content": "The repo fact of the session."}, &fact)
	if pref.Scope != "user" {
		t.Fatalf("the preference went to scope %q", pref.Scope)
	}
	var ended struct{ Saved []string }
	call(t, cs, "session", map[string]any{"action": "end", "summary": "done"}, &ended)
	if strings.Join(ended.Saved, " ") != strings.Join(sorted(pref.ID, fact.ID), " ") {
		t.Errorf("session end saved %v, want %s and %s", ended.Saved, pref.ID, fact.ID)
	}
}

func sorted(a, b string) []string {
	if a > b {
		a, b = b, a
	}
	return []string{a, b}
}

// isolateHome points HOME and the XDG folders at the test's own, and
// gives git the tests' identity, for a test that writes in the user store.
func isolateHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return home
}

// TestSessionToolsOpenTheUserStoreOnlyForASummary: session start and
// session end list the user store's saves only when a summary is saved;
// a call that saves none leaves the store closed. Its cache, removed,
// tells whether it was opened.
func TestSessionToolsOpenTheUserStoreOnlyForASummary(t *testing.T) {
	home := isolateHome(t)
	ctx := context.Background()
	dir, err := scope.UserDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, home) {
		t.Fatalf("the user store %s is not the test's", dir)
	}
	u, err := scope.OpenUser(ctx, dir, contextfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u.Close()
	userCache := filepath.Join(dir, ".git", "contextfs", "cache.db")
	for _, p := range []string{userCache, userCache + "-wal", userCache + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	opened := func() bool { _, err := os.Stat(userCache); return err == nil }
	cs, _, _ := connect(t)
	if res := callRaw(t, cs, "session", map[string]any{"action": "end", "summary": "x"}); !res.IsError || opened() {
		t.Errorf("session end with none open: error=%v, the user store opened=%v; want an error, and it closed", res.IsError, opened())
	}
	call(t, cs, "session", map[string]any{"action": "start", "resume": false}, nil)
	if opened() {
		t.Error("session start with none open opened the user store")
	}
	call(t, cs, "session", map[string]any{"action": "end", "summary": "done"}, nil)
	if !opened() {
		t.Error("session end saving a summary did not list the user store's saves")
	}
}
