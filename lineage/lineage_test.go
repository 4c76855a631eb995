package lineage_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/lineage"
)

func open(t *testing.T) (*contextfs.Store, string) {
	t.Helper()
	dir := testgit.Init(t)
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestBadRequestsWriteNothing(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	fact, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "CI runs on GitHub Actions."})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Body: "We deploy with Argo CD."})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"evolve with an unknown reason", func() error {
			_, err := lineage.Evolve(ctx, s, fact.Memory.ID, lineage.Change{Body: "x", Reason: "whim"})
			if !errors.Is(err, lineage.ErrReason) {
				t.Errorf("err %v is not ErrReason", err)
			}
			return err
		}, "unknown reason"},
		{"evolve of a missing memory", func() error {
			_, err := lineage.Evolve(ctx, s, "zzzz9999", lineage.Change{Body: "x"})
			return err
		}, "zzzz9999"},
		{"merge of one memory", func() error { _, err := lineage.Merge(ctx, s, []string{fact.Memory.ID}, ""); return err }, "at least two"},
		{"merge of a memory with itself", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID, fact.Memory.ID}, "")
			return err
		}, "named twice"},
		{"merge across types", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID, dec.Memory.ID}, "")
			return err
		}, "one type"},
		{"split into one part", func() error { _, err := lineage.Split(ctx, s, fact.Memory.ID, []string{"only"}); return err }, "at least two"},
		{"split with an empty part", func() error { _, err := lineage.Split(ctx, s, fact.Memory.ID, []string{"a", " "}); return err }, "part 2 is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if es, _ := s.Repo.List(); len(es) != 2 {
				t.Errorf("%d files after a refused request, want 2", len(es))
			}
		})
	}
}

func TestEvolveKeepsWhatItDoesNotChange(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	old, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Pool size", Tags: []string{"db"},
		Links: []string{"https://example.com/pgx"}, Data: map[string]any{"decision": "20", "status": "accepted"}, Body: "Twenty."})
	if err != nil {
		t.Fatal(err)
	}
	res, err := lineage.Evolve(ctx, s, old.Memory.ID, lineage.Change{Reason: "decay"})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	if m.Title != "Pool size" || m.Body != "Twenty.\n" || m.Tags[0] != "db" || m.Links[0].ID != "https://example.com/pgx" ||
		m.Data["decision"] != "20" || m.Reason != "decay" || m.Supersedes[0] != old.Memory.ID {
		t.Errorf("evolved = %+v", m)
	}
	vs, err := lineage.Lineage(ctx, s, old.Memory.ID)
	if err != nil || len(vs) != 2 || vs[1].ID != m.ID || len(vs[0].Commits) != 0 {
		t.Errorf("lineage = %+v, %v (nothing committed: no commits)", vs, err)
	}
}
