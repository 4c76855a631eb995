package dedup_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
)

// projectDecision is one of this project's own decision memories
// (.contextfs/memories), as testdata/project-decisions.json keeps them.
type projectDecision struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Decision   string   `json:"decision"`
	Body       string   `json:"body"`
	Supersedes []string `json:"supersedes"`
}

// TestMaySupersedeOnProjectDecisions measures the contradiction heuristic
// on real decisions: the 76 that this project recorded while it was built,
// written by several sessions over days, not for the heuristic. Two of
// them replaced an earlier one: their supersedes entries are the labels,
// and every other pair is on different subjects. Each decision is checked
// against all the others saved as current, the earlier versions included,
// so a labelled pair is checked both ways: the check cannot tell which of
// two disagreeing decisions is the newer, and either way round they
// disagree. A false may_supersede here
// is advice an agent would pass on to a person for nothing; the labelled
// set in TestMaySupersedeOnLabelledSet cannot show it, since its unrelated
// decisions share no words. Run with -v for the figures in docs/HYGIENE.md.
func TestMaySupersedeOnProjectDecisions(t *testing.T) {
	raw, err := os.ReadFile("testdata/project-decisions.json")
	if err != nil {
		t.Fatal(err)
	}
	var decisions []projectDecision
	if err := json.Unmarshal(raw, &decisions); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := open(t)
	saved := map[string]string{} // fixture ID -> stored ID
	for _, d := range decisions {
		res, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: d.Title, Body: d.Body, Data: map[string]any{"decision": d.Decision}})
		if err != nil {
			t.Fatalf("saving %q: %v", d.Title, err)
		}
		saved[d.ID] = res.Memory.ID
	}
	pairs := map[string][]string{} // fixture ID -> the IDs it disagrees with
	for _, d := range decisions {
		for _, old := range d.Supersedes {
			pairs[d.ID] = append(pairs[d.ID], old)
			pairs[old] = append(pairs[old], d.ID)
		}
	}
	if len(pairs) != 4 {
		t.Fatalf("%d decisions in labelled pairs; want the 4 of two supersessions", len(pairs))
	}
	var tp, fp, fn int
	for _, d := range decisions {
		rep, err := dedup.Check(ctx, s, dedup.Candidate{Type: "decision", Title: d.Title, Body: d.Body, Data: map[string]any{"decision": d.Decision}}, dedup.DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, id := range pairs[d.ID] {
			want[saved[id]] = true
		}
		found := map[string]bool{}
		for _, m := range rep.MaySupersede {
			if m.ID == saved[d.ID] {
				continue // itself
			}
			if want[m.ID] {
				found[m.ID] = true
				tp++
				continue
			}
			fp++
			t.Logf("false may_supersede: %q -> %q", d.Title, m.Title)
		}
		// The other of a pair reported as a near-duplicate is found too:
		// the save stops and names it either way.
		for _, m := range rep.Similar {
			if want[m.ID] && !found[m.ID] {
				found[m.ID] = true
				tp++
			}
		}
		for id := range want {
			if !found[id] {
				fn++
				t.Logf("missed: %q should supersede %s", d.Title, id)
			}
		}
	}
	t.Logf("may_supersede on %d project decisions: %d true, %d false, %d missed", len(decisions), tp, fp, fn)
	if fp > 0 {
		t.Errorf("%d false may_supersede among this project's decisions; want none", fp)
	}
}
