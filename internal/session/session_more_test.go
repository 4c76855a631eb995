package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// record writes the open session's record by hand, as an older version or
// a person may have left it.
func record(t *testing.T, st *contextfs.Store, content string) {
	t.Helper()
	if err := os.MkdirAll(session.Dir(st.Repo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(session.Dir(st.Repo), "current.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStartRefusesALabelToolOrModelNoSummaryCouldCarry(t *testing.T) {
	tests := []struct {
		name string
		o    session.StartOptions
		want string // "" means accepted
	}{
		{"a bell in the label is refused", session.StartOptions{Label: "bell\a"}, "label must not contain control characters; found U+0007"},
		{"an escape sequence in the label is refused", session.StartOptions{Label: "ctrl \x1b[31m red"}, "found U+001B"},
		{"a C1 control in the tool is refused", session.StartOptions{Tool: "claude\u009b"}, "tool must not contain control characters"},
		{"a label over 200 characters is refused", session.StartOptions{Label: strings.Repeat("é", 201)}, "label is 201 characters long; at most 200"},
		{"a model over 200 characters is refused", session.StartOptions{Model: strings.Repeat("m", 201)}, "model is 201 characters long"},
		{"a label of 200 characters is accepted", session.StartOptions{Label: strings.Repeat("é", 200)}, ""},
		{"line breaks and tabs in a label become spaces", session.StartOptions{Label: "fix\n\trounding"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t)
			res, err := session.Start(context.Background(), st, tt.o, time.Now())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Start = %v, want it accepted", err)
				}
				if _, err := session.End(context.Background(), st, session.EndOptions{}, time.Now()); err != nil {
					t.Errorf("the accepted session %+v cannot be ended: %v", res.Session, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start = %v, want an error with %q", err, tt.want)
			}
			if cur, _ := session.Current(st.Repo); cur != nil {
				t.Errorf("a refused start opened %+v", cur)
			}
		})
	}
}

// TestASessionRecordedWithAControlCharacterCanBeEndedOrReplaced: a record
// left by a version that did not check labels must not wedge the session
// machinery: end and start both work, with the label cleaned.
func TestASessionRecordedWithAControlCharacterCanBeEndedOrReplaced(t *testing.T) {
	const wedged = `{"id": "wedged01", "label": "bell\u0007 \u001b[31mred", "tool": "cl\u0007aude", "started": "2026-03-01T09:00:00Z"}`
	ctx := context.Background()
	tests := []struct {
		name string
		do   func(*contextfs.Store) (*memory.Memory, error)
	}{
		{"end", func(st *contextfs.Store) (*memory.Memory, error) {
			return session.End(ctx, st, session.EndOptions{Summary: "done"}, time.Now())
		}},
		{"start", func(st *contextfs.Store) (*memory.Memory, error) {
			res, err := session.Start(ctx, st, session.StartOptions{Label: "ok"}, time.Now())
			if err != nil {
				return nil, err
			}
			return res.Closed, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t)
			record(t, st, wedged)
			m, err := tt.do(st)
			if err != nil {
				t.Fatalf("%s with a wedged record: %v", tt.name, err)
			}
			if m == nil || m.Title != "Session: bell [31mred" || m.Data["tool"] != "claude" || m.Data["session_id"] != "wedged01" {
				t.Errorf("summary %q tool %v session %v", m.Title, m.Data["tool"], m.Data["session_id"])
			}
		})
	}
}

func TestADamagedRecordSaysHowToRecover(t *testing.T) {
	tests := []struct {
		name, content, why string
	}{
		{"an ID that is no session ID", `{"id":"../../../x","tool":"t"}`, `"../../../x" is not a session ID`},
		{"no JSON", `{"id":`, "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t)
			record(t, st, tt.content)
			_, err := session.Current(st.Repo)
			if err == nil {
				t.Fatal("a damaged record was read")
			}
			msg := err.Error()
			p := filepath.Join(session.Dir(st.Repo), "current.json")
			for _, want := range []string{tt.why, p, "delete that file to start afresh"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, "<nil>") {
				t.Errorf("%q prints a Go nil", msg)
			}
		})
	}
}

func TestResumeJoinsTheOpenSessionAndFillsOnlyWhatItLacks(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if cur, err := session.Resume(st.Repo, session.StartOptions{Label: "x"}); cur != nil || err != nil {
		t.Fatalf("Resume with none open = %+v, %v", cur, err)
	}
	hook, err := session.Start(ctx, st, session.StartOptions{Tool: "claude-code"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cur, err := session.Resume(st.Repo, session.StartOptions{Label: "mcp work", Tool: "claude-code/2.0.1", Model: "opus"})
	if err != nil {
		t.Fatal(err)
	}
	want := session.Session{ID: hook.Session.ID, Label: "mcp work", Tool: "claude-code", Model: "opus",
		Branch: hook.Session.Branch, Started: hook.Session.Started}
	if *cur != want {
		t.Errorf("resumed %+v, want %+v", *cur, want)
	}
	if again, _ := session.Current(st.Repo); again == nil || *again != want {
		t.Errorf("the record holds %+v, want %+v", again, want)
	}
	if _, err := session.Resume(st.Repo, session.StartOptions{Label: "bad\a"}); err == nil {
		t.Error("Resume took a label with a control character")
	}
}

func TestEndListsWhatTheSessionSavedInTheUserStore(t *testing.T) {
	ctx := context.Background()
	st, user := open(t), open(t)
	started, err := session.Start(ctx, st, session.StartOptions{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	repoID := saveIn(t, st, "Repo fact in the session")
	req := contextfs.SaveRequest{Type: "user", Title: "Never run the integration tests locally", Body: "Too slow."}
	if err := session.Stamp(st.Repo, &req); err != nil {
		t.Fatal(err)
	}
	res, err := user.Save(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.End(ctx, st, session.EndOptions{Summary: "done", User: func() *contextfs.Store { return user }}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []any{repoID, res.Memory.ID}
	slices.SortFunc(want, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	if got, _ := m.Data["saved"].([]any); !slices.Equal(got, want) {
		t.Errorf("session %s saved %v, want %v", started.Session.ID, got, want)
	}
}

// TestHookEndSavesASummaryOnlyOfASessionThatSaved: hooks installed for
// every repository must not start contextfs in one that never used it,
// nor save a summary of a session that saved nothing; but a session that
// saved, even only in the user store, keeps its record. The user store is
// opened only when its saves will be listed or may decide the summary:
// a hook ends every agent session, and most save nothing.
func TestHookEndSavesASummaryOnlyOfASessionThatSaved(t *testing.T) {
	tests := []struct {
		name      string
		contextfs bool   // the repository has a .contextfs folder
		hook      bool   // a hook ends the session (--if-open)
		summary   string // the summary given
		save      string // where the session saved a memory: "", "repo" or "user"
		older     bool   // the session was recorded by an older version
		saved     bool   // a summary is saved
		opened    bool   // the user store was opened
	}{
		{"a hook's end without a summary in a repository without .contextfs saves nothing", false, true, "", "", false, false, false},
		{"a hook's end with a summary saves it", false, true, "Did things.", "", false, true, true},
		{"a hook's end in a repository with .contextfs and nothing saved saves nothing", true, true, "", "", false, false, false},
		{"a hook's end in a repository with .contextfs saves a summary given", true, true, "Did things.", "", false, true, true},
		{"a hook's end in a repository with .contextfs saves the summary of a session that saved", true, true, "", "repo", false, true, true},
		{"a hook's end saves the summary of a session that saved only in the user store", false, true, "", "user", false, true, true},
		{"a hook's end with .contextfs saves the summary of a session that saved only in the user store", true, true, "", "user", false, true, true},
		{"a hook's end of an older session asks the user store, which holds nothing of it", true, true, "", "", true, false, true},
		{"an end that is not a hook's saves the summary", false, false, "", "", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, user := open(t), open(t)
			dir := filepath.Join(st.Repo.Root, ".contextfs")
			if tt.contextfs {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var sid string
			if tt.older {
				sid = "older001"
				record(t, st, `{"id": "older001", "tool": "claude-code", "started": "2026-03-01T09:00:00Z"}`)
			} else {
				sess, err := session.Start(ctx, st, session.StartOptions{Tool: "claude-code"}, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				sid = sess.Session.ID
			}
			var want []any
			if tt.save != "" {
				req := contextfs.SaveRequest{Type: "fact", Body: "The build caches modules."}
				if err := session.Stamp(st.Repo, &req); err != nil {
					t.Fatal(err)
				}
				in := map[string]*contextfs.Store{"repo": st, "user": user}[tt.save]
				res, err := in.Save(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, res.Memory.ID)
			}
			opened := 0
			o := session.EndOptions{Summary: tt.summary, Outcome: "unknown", Hook: tt.hook,
				User: func() *contextfs.Store { opened++; return user }}
			m, err := session.End(ctx, st, o, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if (m != nil) != tt.saved {
				t.Fatalf("summary %v, want saved=%v", m, tt.saved)
			}
			if m != nil {
				if got, _ := m.Data["saved"].([]any); !slices.Equal(got, want) || m.Data["session_id"] != sid {
					t.Errorf("the summary of session %v lists %v, want %s's %v", m.Data["session_id"], got, sid, want)
				}
			}
			if opened > 1 || (opened == 1) != tt.opened {
				t.Errorf("the user store was opened %d times, want opened=%v", opened, tt.opened)
			}
			_, statErr := os.Stat(dir)
			if exists := statErr == nil; exists != (tt.saved || tt.contextfs) {
				t.Errorf(".contextfs exists=%v, want %v", exists, tt.saved || tt.contextfs)
			}
			if cur, _ := session.Current(st.Repo); cur != nil {
				t.Errorf("the session is still open: %+v", cur)
			}
			if left, _ := os.ReadDir(session.Dir(st.Repo)); len(left) != 0 {
				t.Errorf("the closed session left %v behind", left)
			}
		})
	}
}

// TestStartOpensTheUserStoreOnlyToCloseASessionLeftOpen: the SessionStart
// hook starts a session on every agent start; only one left open is
// ended, and only then are the user store's saves listed.
func TestStartOpensTheUserStoreOnlyToCloseASessionLeftOpen(t *testing.T) {
	ctx := context.Background()
	st, user := open(t), open(t)
	opened := 0
	o := session.StartOptions{Tool: "claude-code", User: func() *contextfs.Store { opened++; return user }}
	if _, err := session.Start(ctx, st, o, time.Now()); err != nil {
		t.Fatal(err)
	}
	if opened != 0 {
		t.Errorf("a start with no session open opened the user store %d times", opened)
	}
	res, err := session.Start(ctx, st, o, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res.Closed == nil || opened != 1 {
		t.Errorf("a start closing a session left open: closed %v, the user store opened %d times; want a summary and once", res.Closed, opened)
	}
}

// TestListAndShowOrderByWhenTheSessionEnded: the summaries are written in
// one order (created, updated) and the sessions ended in the other, as
// when summaries come in through a merge; then tagging the summary of the
// session that ended first moves its updated, not its place.
func TestListAndShowOrderByWhenTheSessionEnded(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	sids, mids := make([]string, 3), make([]string, 3)
	for i := 2; i >= 0; i-- {
		res, err := session.Start(ctx, st, session.StartOptions{Label: "s"}, at.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		m, err := session.End(ctx, st, session.EndOptions{}, at.Add(time.Duration(i)*time.Hour+time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		sids[i], mids[i] = res.Session.ID, m.ID
	}
	if _, err := st.Update(ctx, mids[0], func(m *memory.Memory) error { m.Tags = append(m.Tags, "reviewed"); return nil }); err != nil {
		t.Fatal(err)
	}
	list, err := session.List(ctx, st, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		got = append(got, s.ID)
	}
	if want := []string{sids[2], sids[1], sids[0]}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want the latest ended first %v", got, want)
	}
	if top, err := session.List(ctx, st, 1); err != nil || len(top) != 1 || top[0].ID != sids[2] {
		t.Errorf("List(limit 1) = %+v, %v; want %s", top, err, sids[2])
	}
	for _, id := range []string{sids[1], mids[1], mids[1][:6]} {
		if s, err := session.Show(ctx, st, id); err != nil || s.ID != sids[1] {
			t.Errorf("Show(%s) = %+v, %v; want session %s", id, s, err, sids[1])
		}
	}
}

// TestListWithALimitIsTheStartOfTheWholeList: List with a limit reads the
// summaries newest-written first only until the rest cannot have ended
// later, a page of the listing at a time; it must give what the whole
// list starts with, however the ends and the writes interleave: summaries
// of long-ended sessions written late (merged from a branch), old ones
// tagged last, ends within the second of the write.
func TestListWithALimitIsTheStartOfTheWholeList(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	st, err := contextfs.Open(ctx, contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin(),
		Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	type ended struct {
		sid, mid string
		at       time.Time
	}
	var all []ended
	for w := range 40 {
		at = at.Add(10 * time.Minute) // when the summary is written
		end := at.Add(-time.Duration(w%3) * time.Minute)
		if w%4 == 3 {
			end = at.Add(-72 * time.Hour) // a session that ended long before
		}
		res, err := session.Start(ctx, st, session.StartOptions{Label: fmt.Sprint("s", w)}, end.Add(-30*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		m, err := session.End(ctx, st, session.EndOptions{Summary: "Work."}, end)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ended{res.Session.ID, m.ID, end.Truncate(time.Second)})
	}
	for _, w := range []int{3, 7, 0} { // tagged last: updated moves, not the end
		at = at.Add(time.Minute)
		if _, err := st.Update(ctx, all[w].mid, func(m *memory.Memory) error { m.Tags = append(m.Tags, "reviewed"); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(all, func(a, b ended) int { return b.at.Compare(a.at) })
	var want []string
	for _, e := range all {
		want = append(want, e.sid)
	}
	ids := func(list []session.Summary) []string {
		var out []string
		for _, s := range list {
			out = append(out, s.ID)
		}
		return out
	}
	whole, err := session.List(ctx, st, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(whole); !slices.Equal(got, want) {
		t.Fatalf("List = %v, want the latest ended first %v", got, want)
	}
	for _, n := range []int{1, 2, 3, 5, 8, 13, 39, 40, 41} {
		list, err := session.List(ctx, st, n)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(list); !slices.Equal(got, want[:min(n, len(want))]) {
			t.Errorf("List(%d) = %v, want %v", n, got, want[:min(n, len(want))])
		}
		eps, err := session.LatestEpisodes(ctx, st, n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ep := range eps {
			got = append(got, ep.Memory.Data["session_id"].(string))
			if raw, err := os.ReadFile(filepath.Join(st.Repo.Root, ep.Path)); err != nil || string(raw) != string(ep.Raw) {
				t.Errorf("LatestEpisodes(%d): %s comes with content other than its file's (%v)", n, ep.Path, err)
			}
		}
		if !slices.Equal(got, want[:min(n, len(want))]) {
			t.Errorf("LatestEpisodes(%d) = %v, want %v", n, got, want[:min(n, len(want))])
		}
	}
}

func TestReadLogOfASessionWithoutALogSaysSo(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if _, err := session.ReadLog(st.Repo, "nope"); err == nil || !strings.Contains(err.Error(), `no log for session "nope"`) {
		t.Errorf("ReadLog(nope) = %v", err)
	}
	if _, err := session.Start(ctx, st, session.StartOptions{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if b, err := session.ReadLog(st.Repo, ""); err != nil || len(b) != 0 {
		t.Errorf("the open session's empty log = %q, %v", b, err)
	}
}

func TestStampKeepsAModelGivenWithoutATool(t *testing.T) {
	tests := []struct {
		name        string
		session     session.StartOptions
		given, want memory.Source
	}{
		{"a model alone joins the session's tool", session.StartOptions{Tool: "claude-code"}, memory.Source{Model: "gpt5"}, memory.Source{Tool: "claude-code", Model: "gpt5"}},
		{"a model alone replaces the session's model", session.StartOptions{Tool: "claude-code", Model: "opus"}, memory.Source{Model: "gpt5"}, memory.Source{Tool: "claude-code", Model: "gpt5"}},
		{"nothing given takes the session's tool and model", session.StartOptions{Tool: "claude-code", Model: "opus"}, memory.Source{}, memory.Source{Tool: "claude-code", Model: "opus"}},
		{"a tool given drops the session's model", session.StartOptions{Tool: "claude-code", Model: "opus"}, memory.Source{Tool: "cursor"}, memory.Source{Tool: "cursor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t)
			res, err := session.Start(context.Background(), st, tt.session, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			req := contextfs.SaveRequest{Source: &tt.given}
			if err := session.Stamp(st.Repo, &req); err != nil {
				t.Fatal(err)
			}
			tt.want.Session = res.Session.ID
			if *req.Source != tt.want {
				t.Errorf("source %+v, want %+v", *req.Source, tt.want)
			}
		})
	}
}
