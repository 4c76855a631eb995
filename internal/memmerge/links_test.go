package memmerge

import (
	"strings"
	"testing"
)

func TestMergeUnionsLinksByIDAndRelation(t *testing.T) {
	withLinks := func(items string) string {
		return edit(base, "created: ", "links:\n"+items+"created: ")
	}
	tests := []struct {
		name, base, ours, theirs string
		want                     string // the links block of the result
	}{
		{"both sides add a link to different memories",
			withLinks("  - aaaa1111\n"),
			withLinks("  - aaaa1111\n  - {id: bbbb2222, rel: depends_on}\n"),
			withLinks("  - aaaa1111\n  - cccc3333\n"),
			"links:\n  - aaaa1111\n  - {id: bbbb2222, rel: depends_on}\n  - cccc3333\n"},
		{"the same target with two relations is two links",
			withLinks("  - aaaa1111\n"),
			withLinks("  - aaaa1111\n  - {id: bbbb2222, rel: implements}\n"),
			withLinks("  - aaaa1111\n  - bbbb2222\n"),
			"links:\n  - aaaa1111\n  - {id: bbbb2222, rel: implements}\n  - bbbb2222\n"},
		{"a link one side removed stays removed",
			withLinks("  - aaaa1111\n  - dddd4444\n"),
			withLinks("  - aaaa1111\n"),
			withLinks("  - aaaa1111\n  - dddd4444\n  - {id: eeee5555, rel: part_of}\n"),
			"links:\n  - aaaa1111\n  - {id: eeee5555, rel: part_of}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Merge([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if err != nil || len(res.Conflicts) > 0 {
				t.Fatalf("Merge: %v, conflicts %q", err, res.Conflicts)
			}
			if !strings.Contains(string(res.Content), tt.want+"created: ") {
				t.Errorf("got\n%s\nwant links\n%s", res.Content, tt.want)
			}
		})
	}
}
