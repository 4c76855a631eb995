package workflow_test

import (
	"context"
	"slices"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/workflow"
)

// TestASaveThatChangesANearMemoryIsNeverSkipped: a save at or above the
// duplicate threshold that says something its near memory does not (tabs
// where it said spaces) is written, never skipped as
// a repeat; a plain swap is the new version (newest wins: only it is in
// the block), a sentence changed in two places is written and proposed
// (it may be another fact, staging beside production); a rephrase, or one that
// only adds a word, is still a repeat and skipped (docs/HYGIENE.md,
// "Repeat or change").
func TestASaveThatChangesANearMemoryIsNeverSkipped(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, old, new string
		action         workflow.Action
		supersedes     bool // the new memory supersedes the old (newest wins)
		proposed       bool // the old is proposed for superseding, both stay
	}{
		{"tabs to spaces is saved and the newer wins in the block",
			"Use tabs for indentation in YAML files", "Use spaces for indentation in YAML files", workflow.Saved, true, false},
		{"a changed number is saved and the newer wins in the block",
			"Keep 20 connections per instance in the pgx pool", "Keep 40 connections per instance in the pgx pool", workflow.Saved, true, false},
		{"two parts changed is saved and proposed, both stay",
			"Staging deploys from the main branch through Argo CD every night", "Production deploys from the main branch through Flux every night", workflow.Saved, false, true},
		{"an exact rephrase is still skipped",
			"Use tabs for indentation in YAML files", "Use tabs for the indentation of YAML files.", workflow.Skipped, false, false},
		{"an inflection is still skipped",
			"Wrap errors with context using fmt.Errorf", "Errors are wrapped with context using fmt.Errorf", workflow.Skipped, false, false},
		{"a word added on one side only is still skipped",
			"Use tabs for indentation in YAML files", "Always use tabs for indentation in YAML files", workflow.Skipped, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := service(t)
			save := func(text string) *workflow.SaveResult {
				t.Helper()
				res, err := svc.Save(ctx, workflow.SaveRequest{Scope: scope.Repo,
					SaveRequest: contextfs.SaveRequest{Type: "user", Body: text}})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			old := save(tt.old).Memory.ID
			res := save(tt.new)
			near := func(ms []dedup.Match) bool {
				return slices.ContainsFunc(ms, func(m dedup.Match) bool { return m.ID == old })
			}
			if !near(res.Similar) && !near(res.MaySupersede) && !near(res.Superseded) {
				t.Fatalf("the check did not find %s near the new text (similar %+v, may_supersede %+v)", old, res.Similar, res.MaySupersede)
			}
			if res.Action != tt.action {
				t.Fatalf("action %q, want %q (similar %+v, may_supersede %+v)", res.Action, tt.action, res.Similar, res.MaySupersede)
			}
			if got := near(res.Superseded); got != tt.supersedes {
				t.Errorf("supersedes %s: %v, want %v (superseded %+v)", old, got, tt.supersedes, res.Superseded)
			}
			if got := near(res.MaySupersede); got != tt.proposed {
				t.Errorf("proposes %s: %v, want %v (may_supersede %+v)", old, got, tt.proposed, res.MaySupersede)
			}
			b, err := svc.Context(ctx, workflow.ContextRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range b.Sections {
				for _, it := range s.Items {
					ids = append(ids, it.ID)
				}
			}
			wantOld := tt.action == workflow.Skipped || !tt.supersedes
			if slices.Contains(ids, old) != wantOld || !slices.Contains(ids, res.Memory.ID) {
				t.Errorf("block shows %v; want %s, and %s: %v", ids, res.Memory.ID, old, wantOld)
			}
		})
	}
}
