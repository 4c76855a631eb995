package contextfs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// An edit that, once cleaned as Update cleans it, leaves the memory as it
// was writes no byte and keeps updated:, and Edit says so; one that
// changes a field rewrites the file and moves updated:.
func TestEditThatChangesNothingWritesNothing(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		edit    func(*memory.Memory)
		changed bool
	}{
		{"no edit at all", func(*memory.Memory) {}, false},
		{"a tag the memory has", func(m *memory.Memory) { m.Tags = append(m.Tags, "db") }, false},
		{"the same tag twice, comma-joined", func(m *memory.Memory) { m.Tags = append(m.Tags, "db, db") }, false},
		{"data merged with its own value", func(m *memory.Memory) { m.Data["status"] = "accepted" }, false},
		{"a new tag", func(m *memory.Memory) { m.Tags = append(m.Tags, "pool") }, true},
		{"a new data value", func(m *memory.Memory) { m.Data["status"] = "deprecated" }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			// A clock a day on at each reading: a rewrite would move updated:.
			clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin(),
				Now: func() time.Time { clock = clock.Add(24 * time.Hour); return clock }})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Tags: []string{"db"},
				Data: map[string]any{"decision": "pgx pool", "status": "accepted"}, Body: "We pool connections."})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, res.Memory.Path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, changed, err := s.Edit(ctx, res.Memory.ID, func(m *memory.Memory) error { tt.edit(m); return nil })
			if err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.changed || (string(after) != string(before)) != tt.changed {
				t.Errorf("changed %v, file rewritten %v; want %v\nbefore:\n%s\nafter:\n%s", changed, string(after) != string(before), tt.changed, before, after)
			}
			if moved := !m.Updated.Equal(res.Memory.Updated); moved != tt.changed {
				t.Errorf("updated: %v -> %v; want moved %v", res.Memory.Updated, m.Updated, tt.changed)
			}
		})
	}
}
