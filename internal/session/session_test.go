package session_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/internal/testgit"
)

func open(t *testing.T) *contextfs.Store {
	t.Helper()
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func saveIn(t *testing.T, st *contextfs.Store, title string) string {
	t.Helper()
	req := contextfs.SaveRequest{Type: "fact", Title: title, Body: title}
	if err := session.Stamp(st.Repo, &req); err != nil {
		t.Fatal(err)
	}
	res, err := st.Save(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory.ID
}

func TestStartTwoSavesEndWritesOneEpisodicMemory(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	started, err := session.Start(ctx, st, session.StartOptions{Label: "fix rounding", Tool: "claude-code", Model: "opus"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if started.Closed != nil {
		t.Errorf("a first start closed %v", started.Closed)
	}
	sid := started.Session.ID
	a, b := saveIn(t, st, "Totals round half-even"), saveIn(t, st, "Cents are int64")
	for _, id := range []string{a, b} {
		m, err := st.Resolve(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Session != sid || m.Source == nil || m.Source.Tool != "claude-code" || m.Source.Session != sid {
			t.Errorf("%s carries session %q source %+v, want %s from claude-code", id, m.Session, m.Source, sid)
		}
	}
	sum, err := session.End(ctx, st, session.EndOptions{Summary: "Fixed rounding.", Outcome: "success"}, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Type != "episodic" || sum.Title != "Session: fix rounding" {
		t.Errorf("summary %s %q", sum.Type, sum.Title)
	}
	want := []string{a, b}
	slices.Sort(want)
	got, _ := sum.Data["saved"].([]any)
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("saved = %v, want %v", got, want)
	}
	for k, v := range map[string]string{"session_id": sid, "tool": "claude-code", "model": "opus", "branch": "main",
		"started": "2026-03-01T09:00:00Z", "ended": "2026-03-01T10:00:00Z", "outcome": "success"} {
		if sum.Data[k] != v {
			t.Errorf("data.%s = %v, want %v", k, sum.Data[k], v)
		}
	}
	if cur, _ := session.Current(st.Repo); cur != nil {
		t.Errorf("a session is still open after end: %+v", cur)
	}
	episodic, _ := st.List(ctx, contextfs.ListOptions{Types: []string{"episodic"}})
	if len(episodic) != 1 {
		t.Errorf("%d episodic memories, want 1", len(episodic))
	}
	list, err := session.List(ctx, st, 0)
	if err != nil || len(list) != 1 || list[0].ID != sid || !slices.Equal(list[0].Saved, want) {
		t.Errorf("List = %+v, %v", list, err)
	}
	shown, err := session.Show(ctx, st, sid[:5])
	if err != nil || shown.Memory != sum.ID {
		t.Errorf("Show(prefix) = %+v, %v", shown, err)
	}
}

func TestStartingAgainClosesTheOpenSessionAndSaysSo(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	first, err := session.Start(ctx, st, session.StartOptions{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	second, err := session.Start(ctx, st, session.StartOptions{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if second.Closed == nil || second.Closed.Data["session_id"] != first.Session.ID || second.Closed.Data["outcome"] != "unknown" {
		t.Fatalf("the open session was not reported closed: %+v", second.Closed)
	}
	if cur, _ := session.Current(st.Repo); cur == nil || cur.ID != second.Session.ID {
		t.Errorf("current = %+v, want %s", cur, second.Session.ID)
	}
}

func TestEndWithoutASessionOrWithABadOutcomeFails(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if _, err := session.End(ctx, st, session.EndOptions{}, time.Now()); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("End with none open = %v", err)
	}
	if _, err := session.Start(ctx, st, session.StartOptions{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := session.End(ctx, st, session.EndOptions{Outcome: "great"}, time.Now()); err == nil || !strings.Contains(err.Error(), "outcome must be one of") {
		t.Errorf("End(outcome great) = %v", err)
	}
	if cur, _ := session.Current(st.Repo); cur == nil {
		t.Error("a refused end closed the session")
	}
}

func TestLogStaysInTheGitDirAndIsCapped(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if err := session.Log(st.Repo, "hello"); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("Log with none open = %v", err)
	}
	if _, err := session.Start(ctx, st, session.StartOptions{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 100_000)
	for range session.MaxLog/100_000 + 5 {
		if err := session.Log(st.Repo, line); err != nil {
			t.Fatal(err)
		}
	}
	b, err := session.ReadLog(st.Repo, "")
	if err != nil || len(b) > session.MaxLog || len(b) < session.MaxLog-200_000 || !strings.HasPrefix(string(b), line) {
		t.Errorf("log of %d bytes (err %v), want at most %d and whole lines", len(b), err, session.MaxLog)
	}
	if !strings.HasPrefix(session.Dir(st.Repo), st.Repo.GitDir) {
		t.Errorf("session state in %s, outside the git dir", session.Dir(st.Repo))
	}
	out := testgit.Run(t, st.Repo.Root, "status", "--porcelain", "--untracked-files=all")
	if out != "" {
		t.Errorf("session files show in the work tree:\n%s", out)
	}
	if _, err := os.Stat(session.Dir(st.Repo)); err != nil {
		t.Error(err)
	}
}
