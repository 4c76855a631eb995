package links

import (
	"reflect"
	"testing"

	"github.com/contextfs/contextfs/memory"
)

func TestGraphWalksBothWaysAndFindsSuperseders(t *testing.T) {
	g := New([]*memory.Memory{
		{ID: "aaaa", Links: []memory.Link{{ID: "bbbb", Rel: "depends_on"}, {ID: "https://x.y", Rel: "related"}}},
		{ID: "bbbb", Links: []memory.Link{{ID: "cccc", Rel: "related"}}},
		{ID: "cccc"},
		{ID: "dddd", Supersedes: []string{"aaaa"}, Links: []memory.Link{{ID: "aaaa", Rel: "supersedes"}}},
		{ID: "eeee", Links: []memory.Link{{ID: "gone", Rel: "part_of"}}},
		{ID: "aaaa", Title: "a repeated ID is ignored"},
	})
	ids := func(ns []Neighbour) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	tests := []struct {
		name  string
		start string
		depth int
		rel   string
		want  []string
	}{
		{"depth 1 follows links out and in", "bbbb", 1, "", []string{"cccc", "aaaa"}},
		{"depth 2 goes one step further", "cccc", 2, "", []string{"bbbb", "aaaa"}},
		{"a supersedes written twice is one edge", "aaaa", 1, "supersedes", []string{"dddd"}},
		{"a relation filter keeps only its edges", "aaaa", 3, "depends_on", []string{"bbbb"}},
		{"URLs are not memories", "aaaa", 1, "related", nil},
		{"a missing target is reported", "eeee", 1, "", []string{"gone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(g.Walk(tt.start, tt.depth, tt.rel)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Walk = %v, want %v", got, tt.want)
			}
		})
	}
	if by := g.SupersededBy("aaaa"); !reflect.DeepEqual(by, []string{"dddd"}) {
		t.Errorf("SupersededBy = %v", by)
	}
	if g.Memory("aaaa").Title != "" {
		t.Error("the later memory with a repeated ID replaced the first")
	}
	if ns := g.Walk("eeee", 1, ""); !ns[0].Missing {
		t.Error("a link to a missing memory is not marked missing")
	}
}

func TestCheckRel(t *testing.T) {
	if err := CheckRel("depends_on"); err != nil {
		t.Error(err)
	}
	if err := CheckRel("likes"); err == nil {
		t.Error("an unknown relation passed")
	}
}
