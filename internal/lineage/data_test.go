package lineage_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/lineage"
)

// TestNewVersionsKeepPathsAndTakeData: evolve, merge and split keep the
// paths: of what they replace (evolve and merge dropped them) and merge
// data given with them into the data they carry.
func TestNewVersionsKeepPathsAndTakeData(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	save := func(body string, paths []string, data map[string]any) string {
		t.Helper()
		res, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Body: body, Paths: paths, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	pool := map[string]any{"decision": "pgxpool, 20 per instance", "status": "accepted"}
	t.Run("evolve", func(t *testing.T) {
		id := save("We pool 20 connections per instance with pgxpool.", []string{"db/**"}, pool)
		res, err := lineage.Evolve(ctx, s, id, lineage.Change{Body: "We pool 40 connections per instance with pgxpool.",
			Data: map[string]any{"decision": "pgxpool, 40 per instance"}})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Memory
		if !reflect.DeepEqual(m.Paths, []string{"db/**"}) {
			t.Errorf("paths %v, want [db/**]", m.Paths)
		}
		if m.Data["decision"] != "pgxpool, 40 per instance" || m.Data["status"] != "accepted" {
			t.Errorf("data %v: the patch is not merged into the old data", m.Data)
		}
	})
	t.Run("evolve refuses data its new text contradicts", func(t *testing.T) {
		id := save("Pools hold 20 connections per instance.", nil, pool)
		_, err := lineage.Evolve(ctx, s, id, lineage.Change{Body: "Pools hold 40 connections per instance."})
		var se *lineage.StaleDataError
		if !errors.As(err, &se) || !slices.Equal(se.Keys, []string{"decision"}) || !strings.Contains(err.Error(), "--data") {
			t.Fatalf("err %v, want a StaleDataError naming decision and --data", err)
		}
		if cur, err := s.Superseded(ctx, id); err != nil || cur != nil {
			t.Errorf("the refused evolve wrote a new version (%v, %v)", cur, err)
		}
		res, err := lineage.Evolve(ctx, s, id, lineage.Change{Body: "Pools hold 40 connections per instance.", KeepData: true})
		if err != nil {
			t.Fatalf("with KeepData: %v", err)
		}
		if res.Memory.Data["decision"] != pool["decision"] {
			t.Errorf("KeepData: data %v", res.Memory.Data)
		}
	})
	t.Run("merge", func(t *testing.T) {
		a := save("We cache sessions in Redis.", []string{"session/**"}, map[string]any{"decision": "Redis for sessions", "status": "accepted"})
		b := save("Session keys expire after a day.", []string{"auth/**", "session/**"}, nil)
		res, err := lineage.Merge(ctx, s, []string{a, b}, nil, map[string]any{"status": "accepted", "rationale": "one place"})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Memory
		if !reflect.DeepEqual(m.Paths, []string{"session/**", "auth/**"}) {
			t.Errorf("paths %v, want both memories' paths once", m.Paths)
		}
		if m.Data["rationale"] != "one place" || m.Data["decision"] != "Redis for sessions" {
			t.Errorf("data %v", m.Data)
		}
	})
	t.Run("split", func(t *testing.T) {
		id := save("We deploy with Argo CD. Rollbacks are manual.", []string{"deploy/**"}, map[string]any{"decision": "Argo CD", "status": "accepted"})
		ms, err := lineage.Split(ctx, s, id, []string{"We deploy with Argo CD.", "Rollbacks are manual."}, map[string]any{"status": "accepted", "owner": "platform"})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if !reflect.DeepEqual(m.Paths, []string{"deploy/**"}) || m.Data["owner"] != "platform" || m.Data["decision"] != "Argo CD" {
				t.Errorf("part %s: paths %v, data %v", m.ID, m.Paths, m.Data)
			}
		}
	})
}
