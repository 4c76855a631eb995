package workflow_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/workflow"
)

// service opens a repository holding one decision, tagged db and infra,
// and returns the service over it and the decision's ID.
func service(t *testing.T) (*workflow.Service, string) {
	t.Helper()
	testgit.Isolate(t)
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Tags: []string{"db", "infra"},
		Data: map[string]any{"decision": "pgx pool", "status": "accepted"}, Body: "We pool connections.\n"})
	if err != nil {
		t.Fatal(err)
	}
	return workflow.New(scope.FromStore(s, scope.Options{})), res.Memory.ID
}

func ptr[T any](v T) *T { return &v }

func TestUpdatePatchChangesWhatItNames(t *testing.T) {
	tests := []struct {
		name    string
		patch   workflow.UpdatePatch
		changed bool
		tags    []string
		data    map[string]any
	}{
		{"an empty patch changes nothing", workflow.UpdatePatch{}, false, []string{"db", "infra"}, nil},
		{"the same body without its final newline changes nothing", workflow.UpdatePatch{Body: ptr("We pool connections.")}, false, []string{"db", "infra"}, nil},
		{"tags set, then added, then removed whatever their case", workflow.UpdatePatch{Tags: &[]string{"a", "B"}, AddTags: []string{"c"}, RemoveTags: []string{"b"}}, true, []string{"a", "c"}, nil},
		{"data merged, a nil value deleting", workflow.UpdatePatch{Data: map[string]any{"status": nil, "rationale": "fewer connections"}}, true, nil,
			map[string]any{"decision": "pgx pool", "rationale": "fewer connections"}},
		{"data replaced", workflow.UpdatePatch{Data: map[string]any{"decision": "no pool"}, ReplaceData: true}, true, nil, map[string]any{"decision": "no pool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, id := service(t)
			res, err := svc.Update(context.Background(), scope.All, id, tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed != tt.changed {
				t.Errorf("changed %v, want %v", res.Changed, tt.changed)
			}
			if tt.tags != nil && !slices.Equal(res.Memory.Tags, tt.tags) {
				t.Errorf("tags %v, want %v", res.Memory.Tags, tt.tags)
			}
			if tt.data != nil && !reflect.DeepEqual(res.Memory.Data, tt.data) {
				t.Errorf("data %v, want %v", res.Memory.Data, tt.data)
			}
		})
	}
}

func TestBadInputIsAnInputError(t *testing.T) {
	svc, id := service(t)
	ctx := context.Background()
	var ie *workflow.InputError
	if _, err := svc.Update(ctx, scope.All, id, workflow.UpdatePatch{Links: &[]string{"nosuchrel:" + id}}); !errors.As(err, &ie) || ie.Field != "links" {
		t.Errorf("a link of an unknown relation: %v, want an *InputError of links", err)
	}
	_, err := svc.Save(ctx, workflow.SaveRequest{Dedup: "sometimes", SaveRequest: contextfs.SaveRequest{Type: "fact", Body: "x"}})
	if !errors.As(err, &ie) || ie.Field != "dedup" {
		t.Errorf("an unknown dedup policy: %v, want an *InputError of dedup", err)
	}
}
