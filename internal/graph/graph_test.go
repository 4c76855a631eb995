package graph

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/memory"
)

func fixture() *links.Graph {
	return links.New([]*memory.Memory{
		{ID: "aaaa1111", Type: "decision", Title: `Pool "DB" <conns> #1`, Links: []memory.Link{{ID: "bbbb2222", Rel: "depends_on"}, {ID: "gone0000", Rel: "related"}}},
		{ID: "bbbb2222", Type: "fact", Title: "Postgres 16", Supersedes: []string{"cccc3333"}},
		{ID: "cccc3333", Type: "fact", Title: "Postgres 15"},
		{ID: "end", Type: "fact", Title: "Unlinked"},
	})
}

func TestFormats(t *testing.T) {
	g := Around(fixture(), "aaaa1111", 2)
	tests := []struct {
		format string
		want   []string
	}{
		{"mermaid", []string{"flowchart LR\n", `m_aaaa1111["aaaa1111 · decision<br/>Pool #quot;DB#quot; #lt;conns#gt; #35;1"]`,
			"m_aaaa1111 -->|depends_on| m_bbbb2222", "m_bbbb2222 -.->|supersedes| m_cccc3333", "m_gone0000[\"gone0000<br/>(missing)\"]"}},
		{"dot", []string{"digraph memories {", `"aaaa1111" -> "bbbb2222" [label="depends_on"];`, `Pool \"DB\" <conns> #1`, `"gone0000" [label="gone0000", style=dashed];`}},
		{"json", []string{`"rel": "supersedes"`, `"missing": true`}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, g, tt.format); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("%s output lacks %q:\n%s", tt.format, w, b.String())
				}
			}
			if strings.Contains(b.String(), "Unlinked") {
				t.Errorf("a memory beyond the depth was drawn:\n%s", b.String())
			}
		})
	}
	if err := Write(&bytes.Buffer{}, g, "png"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func TestWholeGraphHasEveryMemory(t *testing.T) {
	var gr Graph
	var b bytes.Buffer
	Write(&b, Around(fixture(), "", 1), "json")
	if err := json.Unmarshal(b.Bytes(), &gr); err != nil {
		t.Fatal(err)
	}
	if len(gr.Nodes) != 4 || len(gr.Edges) != 2 {
		t.Errorf("nodes %d, edges %d; want 4 and 2 (edges to missing memories only around a start)", len(gr.Nodes), len(gr.Edges))
	}
}

func TestMermaidNodeIDsNeverCollide(t *testing.T) {
	tests := []struct{ a, b string }{
		{"dash-id", "dash_id"},
		{"a_2d_b", "a-b"},
		{"a__b", "a_b"},
		{"ab_", "ab-"},
		{"x_5f_y", "x__y"},
	}
	for _, tt := range tests {
		t.Run(tt.a+" and "+tt.b, func(t *testing.T) {
			if x, y := safeID(tt.a), safeID(tt.b); x == y {
				t.Errorf("safeID(%q) = safeID(%q) = %q", tt.a, tt.b, x)
			}
		})
	}
	// Every ID of a-z, 0-9, '-' and '_' up to four characters: no two alike.
	seen := map[string]string{}
	var walk func(prefix string)
	walk = func(prefix string) {
		if len(prefix) == 4 {
			return
		}
		for _, r := range "ab09-_" {
			id := prefix + string(r)
			s := safeID(id)
			if prev, ok := seen[s]; ok {
				t.Fatalf("safeID(%q) = safeID(%q) = %q", id, prev, s)
			}
			if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
				t.Fatalf("safeID(%q) = %q: not a Mermaid node ID", id, s)
			}
			seen[s] = id
			walk(id)
		}
	}
	walk("")
}
