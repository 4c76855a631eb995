package memory

import (
	"errors"
	"reflect"
	"strings"
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
		{"a URL with a path is kept whole", []string{"http://localhost:8080/pool"}, []Link{{"http://localhost:8080/pool", RelRelated}}, false},
		{"a typed URL keeps its relation", []string{"references:https://go.dev/doc"}, []Link{{"https://go.dev/doc", "references"}}, false},
		{"a mailto URL is kept whole", []string{"mailto:team@example.com"}, []Link{{"mailto:team@example.com", RelRelated}}, false},
		{"a URN is kept whole", []string{"urn:isbn:0451450523"}, []Link{{"urn:isbn:0451450523", RelRelated}}, false},
		{"a DOI is kept whole", []string{"doi:10.1000/182"}, []Link{{"doi:10.1000/182", RelRelated}}, false},
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

// A word before an ID-shaped target can only be meant as a relation, so an
// unknown one is a mistake to report (save used to store "bogus:ID" as an
// opaque link that nothing checks), while URLs stay links.
func TestParseLinkRefusesUnknownRelations(t *testing.T) {
	tests := []struct {
		name, link string
		want       string // in the error
	}{
		{"an unknown relation", "bogus:abcd1234", `"bogus"`},
		{"a misspelt relation", "depends-on:abcd1234", `"depends-on"`},
		{"an upper-case relation", "DEPENDS_ON:abcd1234", `"DEPENDS_ON"`},
		{"spaces around the colon", " likes : abcd1234 ", `"likes"`},
		{"a relation with a digit", "rel2:abcd1234", `"rel2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLink(tt.link)
			if !errors.Is(err, ErrRel) {
				t.Fatalf("ParseLink(%q) = %v, %v; want ErrRel", tt.link, l, err)
			}
			for _, want := range []string{tt.want, "depends_on"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
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
