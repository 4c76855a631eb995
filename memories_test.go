package contextfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
	"github.com/contextfs/contextfs/memory"
)

// An update that makes a memory supersede one of the memories that already
// supersede it (directly or through others, by supersedes: entries or
// links of rel supersedes, mixed) is refused with a *SupersedesCycleError
// naming the cycle, and writes nothing: every memory in the cycle would be
// hidden. A chain, and a link back of another relation, are no cycle.
func TestUpdateRefusesASupersedesCycle(t *testing.T) {
	ctx := context.Background()
	addLink := func(to string) func(*memory.Memory) error {
		return func(m *memory.Memory) error {
			m.Links = append(m.Links, memory.Link{ID: to, Rel: "supersedes"})
			return nil
		}
	}
	tests := []struct {
		name string
		// setup saves b and c over a, and returns the edit of edited and
		// the chain of the cycle refused (by names a, b, c; nil: allowed).
		setup  func(t *testing.T, s *contextfs.Store, a string) (edited string, edit func(*memory.Memory) error, chain []string, ids map[string]string)
		wantOK bool
	}{
		{"a link back to what supersedes it by a link", func(t *testing.T, s *contextfs.Store, a string) (string, func(*memory.Memory) error, []string, map[string]string) {
			b := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version two.", Links: []string{"supersedes:" + a}})
			return a, addLink(b), []string{"a", "b", "a"}, map[string]string{"b": b}
		}, false},
		{"a link back to what supersedes it by an entry", func(t *testing.T, s *contextfs.Store, a string) (string, func(*memory.Memory) error, []string, map[string]string) {
			b := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version two.", Supersedes: []string{a}})
			return a, addLink(b), []string{"a", "b", "a"}, map[string]string{"b": b}
		}, false},
		{"an entry back to what supersedes it by a link", func(t *testing.T, s *contextfs.Store, a string) (string, func(*memory.Memory) error, []string, map[string]string) {
			b := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version two.", Links: []string{"supersedes:" + a}})
			return a, func(m *memory.Memory) error { m.Supersedes = append(m.Supersedes, b); return nil }, []string{"a", "b", "a"}, map[string]string{"b": b}
		}, false},
		{"a link closing a cycle of three, through an entry and a link", func(t *testing.T, s *contextfs.Store, a string) (string, func(*memory.Memory) error, []string, map[string]string) {
			b := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version two.", Supersedes: []string{a}})
			c := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version three.", Links: []string{"supersedes:" + b}})
			return a, addLink(c), []string{"a", "c", "b", "a"}, map[string]string{"b": b, "c": c}
		}, false},
		{"a chain is no cycle", func(t *testing.T, s *contextfs.Store, a string) (string, func(*memory.Memory) error, []string, map[string]string) {
			b := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version two.", Links: []string{"supersedes:" + a}})
			c := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version three."})
			return c, addLink(b), nil, map[string]string{"b": b, "c": c}
		}, true},
		{"a link back of another relation is no cycle", func(t *testing.T, s *contextfs.Store, a string) (string, func(*memory.Memory) error, []string, map[string]string) {
			b := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version two.", Links: []string{"supersedes:" + a}})
			return a, func(m *memory.Memory) error {
				m.Links = append(m.Links, memory.Link{ID: b, Rel: "depends_on"})
				return nil
			}, nil, map[string]string{"b": b}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testgit.Isolate(t)
			dir := testgit.Init(t)
			s := open(t, dir)
			a := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Version one."})
			edited, edit, names, ids := tt.setup(t, s, a)
			ids["a"] = a
			m, err := s.Resolve(ctx, edited)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(filepath.Join(dir, m.Path))
			_, err = s.Update(ctx, edited, edit)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Update: %v", err)
				}
				return
			}
			var want []string
			for _, n := range names {
				want = append(want, ids[n])
			}
			var ce *contextfs.SupersedesCycleError
			if !errors.As(err, &ce) || !slices.Equal(ce.Chain, want) {
				t.Fatalf("Update: err %v, want a *SupersedesCycleError with chain %v", err, want)
			}
			// It says how to reverse the order: unlink the edge into the
			// memory edited.
			if hint := "git contextfs unlink " + want[len(want)-2] + " " + edited + " --rel supersedes"; !strings.Contains(err.Error(), hint) {
				t.Errorf("error %q does not say %q", err, hint)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, m.Path)); string(after) != string(before) {
				t.Errorf("a refused update wrote the file:\n%s", after)
			}
		})
	}
}

// A title Save derived from the body says what the body said: an edit of
// the body gives it again from the new body, whoever edits (update,
// update_memory, a save turned into an update). A title written by hand,
// or one the edit sets, is left as it is.
func TestUpdateDerivesAgainATitleTheOldBodyGave(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		title     string // saved with the memory; "" derives it
		edit      func(m *memory.Memory)
		wantTitle string
	}{
		{"a derived title follows the new body", "",
			func(m *memory.Memory) { m.Body = "Backups run hourly.\n" }, "Backups run hourly."},
		{"a title written by hand stays", "Backup schedule",
			func(m *memory.Memory) { m.Body = "Backups run hourly.\n" }, "Backup schedule"},
		{"a title the edit sets is kept", "",
			func(m *memory.Memory) { m.Body = "Backups run hourly.\n"; m.Title = "Backups" }, "Backups"},
		{"an edit that leaves the body keeps the title", "",
			func(m *memory.Memory) { m.Tags = append(m.Tags, "ops") }, "Backups run nightly."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, testgit.Init(t))
			res, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: tt.title, Body: "Backups run nightly."})
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.Update(ctx, res.Memory.ID, func(m *memory.Memory) error { tt.edit(m); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if m.Title != tt.wantTitle {
				t.Errorf("title %q, want %q", m.Title, tt.wantTitle)
			}
			if m.Path != res.Memory.Path {
				t.Errorf("moved from %s to %s: an update keeps the file", res.Memory.Path, m.Path)
			}
		})
	}
}
