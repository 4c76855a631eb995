package memmerge

import (
	"strings"
	"testing"
)

func TestLabeledNamesTheBranchesInConflictMarkers(t *testing.T) {
	tests := []struct {
		name, ours, theirs string
		want               []string
		notWant            []string
	}{
		{"both names", "main", "feature/x", []string{"<<<<<<< main\n", ">>>>>>> feature/x\n"}, []string{"<<<<<<< ours", ">>>>>>> theirs"}},
		{"no names keep the words", "", "", []string{"<<<<<<< ours\n", ">>>>>>> theirs\n"}, nil},
		{"one name", "", "topic", []string{"<<<<<<< ours\n", ">>>>>>> topic\n"}, nil},
	}
	base := "---\nid: abcd1234\ntype: fact\ntitle: Base\n---\nbody\n"
	ours := strings.Replace(base, "Base", "Ours", 1)
	theirs := strings.Replace(base, "Base", "Theirs", 1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Merge([]byte(base), []byte(ours), []byte(theirs))
			if err != nil || len(res.Conflicts) == 0 {
				t.Fatalf("Merge: %v, conflicts %v: want a title conflict", err, res.Conflicts)
			}
			got := string(res.Labeled(tt.ours, tt.theirs).Content)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("merged file lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("merged file still has %q:\n%s", w, got)
				}
			}
		})
	}
}
