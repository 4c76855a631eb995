package memory

import (
	"reflect"
	"testing"
)

func TestParseLinks(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		want  []Link
		err   bool
	}{
		{"bare ID means related", []string{"abcd1234"}, []Link{{"abcd1234", RelRelated}}, false},
		{"rel:ID is typed", []string{"depends_on:abcd1234"}, []Link{{"abcd1234", "depends_on"}}, false},
		{"a URL is kept whole", []string{"https://example.com/x"}, []Link{{"https://example.com/x", RelRelated}}, false},
		{"commas separate links", []string{"abcd, part_of:efgh"}, []Link{{"abcd", RelRelated}, {"efgh", "part_of"}}, false},
		{"repeats of the same pair are dropped", []string{"abcd", "related:abcd", "implements:abcd"},
			[]Link{{"abcd", RelRelated}, {"abcd", "implements"}}, false},
		{"a relation with no target is refused", []string{"depends_on:"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLinks(tt.items)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDanglingLinksNamesOnlyMissingMemories(t *testing.T) {
	m := &Memory{Links: []Link{{"present1", RelRelated}, {"https://example.com", RelRelated}, {"gone0001", "depends_on"}}}
	got := DanglingLinks(m, func(id string) bool { return id == "present1" })
	want := []Issue{{Field: "links[2]", Message: "links to gone0001, which is not a memory in this repository"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLinkStringRoundTripsThroughParseLink(t *testing.T) {
	for _, l := range []Link{{"abcd1234", RelRelated}, {"abcd1234", "supersedes"}, {"https://x.y/z", RelRelated}} {
		got, err := ParseLink(l.String())
		if err != nil || got != l {
			t.Errorf("ParseLink(%q) = %v, %v; want %v", l.String(), got, err, l)
		}
	}
}
