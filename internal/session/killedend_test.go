package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// TestEndAfterAKilledEndKeepsOneSummary builds the state a `session end`
// killed between saving the summary and closing the record leaves (the
// summary on disk, the session still open), then ends the session again
// each way one can be ended. The session must keep exactly one summary:
// before, the next start saved a second, "left open" one that hid the
// real summary from the context block.
func TestEndAfterAKilledEndKeepsOneSummary(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		again    func(st *contextfs.Store) (*memory.Memory, error)
		wantBody string
		open     bool // a new session is open afterwards
	}{
		{"the next session's start closes it without a second summary", func(st *contextfs.Store) (*memory.Memory, error) {
			res, err := session.Start(ctx, st, session.StartOptions{}, now.Add(2*time.Hour))
			if err != nil {
				return nil, err
			}
			return res.Closed, nil
		}, "Fixed rounding.", true},
		{"session end again with the same summary returns it", func(st *contextfs.Store) (*memory.Memory, error) {
			return session.End(ctx, st, session.EndOptions{Summary: "Fixed rounding."}, now.Add(2*time.Hour))
		}, "Fixed rounding.", false},
		{"session end again with other words updates it in place", func(st *contextfs.Store) (*memory.Memory, error) {
			return session.End(ctx, st, session.EndOptions{Summary: "Fixed rounding; cents next.", Outcome: "partial"}, now.Add(2*time.Hour))
		}, "Fixed rounding; cents next.", false},
		{"a hook's end without a summary only closes it", func(st *contextfs.Store) (*memory.Memory, error) {
			return session.End(ctx, st, session.EndOptions{Hook: true}, now.Add(2*time.Hour))
		}, "Fixed rounding.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := open(t)
			started, err := session.Start(ctx, st, session.StartOptions{Label: "rounding"}, now)
			if err != nil {
				t.Fatal(err)
			}
			saved := saveIn(t, st, "Totals round half-even")
			// What the killed end left behind: its record, as before it ran.
			record := filepath.Join(session.Dir(st.Repo), "current.json")
			raw, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			first, err := session.End(ctx, st, session.EndOptions{Summary: "Fixed rounding."}, now.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(record, raw, 0o644); err != nil {
				t.Fatal(err)
			}

			got, err := tt.again(st)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || got.ID != first.ID {
				t.Errorf("the second end returned %+v, want the first summary %s", got, first.ID)
			}
			episodic, err := st.List(ctx, contextfs.ListOptions{Types: []string{"episodic"}, All: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(episodic) != 1 || episodic[0].ID != first.ID {
				t.Fatalf("episodic memories %+v, want only the first summary %s", episodic, first.ID)
			}
			m, err := st.Resolve(ctx, first.ID)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(m.Body) != tt.wantBody || m.Data["session_id"] != started.Session.ID {
				t.Errorf("summary body %q session %v, want %q of %s", m.Body, m.Data["session_id"], tt.wantBody, started.Session.ID)
			}
			if s, _ := m.Data["saved"].([]any); len(s) != 1 || s[0] != saved {
				t.Errorf("saved = %v, want [%s]: the summary must not list itself", m.Data["saved"], saved)
			}
			cur, _ := session.Current(st.Repo)
			if (cur != nil) != tt.open || cur != nil && cur.ID == started.Session.ID {
				t.Errorf("open session afterwards: %+v, want a new one: %v", cur, tt.open)
			}
		})
	}
}
