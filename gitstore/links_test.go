package gitstore

import (
	"reflect"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/memory"
)

func TestTypedLinksDecodeAndEncodeCanonically(t *testing.T) {
	src := "---\nid: abcd1234\ntype: fact\nlinks:\n  - efgh5678\n  - {id: ijkl9012, rel: depends_on}\n  - id: mnop3456\n  - https://example.com/x\n---\nbody\n"
	m, doc, err := Decode("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []memory.Link{{ID: "efgh5678", Rel: "related"}, {ID: "ijkl9012", Rel: "depends_on"}, {ID: "mnop3456", Rel: "related"},
		{ID: "https://example.com/x", Rel: "related"}}
	if !reflect.DeepEqual(m.Links, want) {
		t.Fatalf("links = %v, want %v", m.Links, want)
	}
	t.Run("an unchanged memory keeps its bytes", func(t *testing.T) {
		out, err := Encode(m, doc, false)
		if err != nil || string(out) != src {
			t.Fatalf("got %v\n%s", err, out)
		}
	})
	t.Run("canonical form is a bare ID for related, a flow mapping otherwise", func(t *testing.T) {
		out, err := Encode(m, doc, true)
		if err != nil {
			t.Fatal(err)
		}
		wantLinks := "links:\n  - efgh5678\n  - {id: ijkl9012, rel: depends_on}\n  - mnop3456\n  - https://example.com/x\n"
		if !strings.Contains(string(out), wantLinks) {
			t.Fatalf("got\n%s\nwant it to hold\n%s", out, wantLinks)
		}
	})
}

func TestBadLinksAreDecodeErrors(t *testing.T) {
	for name, src := range map[string]string{
		"unknown key in a link":  "---\nid: abcd\nlinks:\n  - {id: efgh, kind: x}\n---\n",
		"nested value in a link": "---\nid: abcd\nlinks:\n  - {id: [efgh]}\n---\n",
		"links as a mapping":     "---\nid: abcd\nlinks:\n  a: b\n---\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Decode("f.md", []byte(src)); err == nil || !strings.Contains(err.Error(), "f.md:3: links") {
				t.Fatalf("got %v, want an error at f.md:3 naming links", err)
			}
		})
	}
}
