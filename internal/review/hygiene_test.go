package review

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
)

func TestCompareFlagsAddedNearDuplicatesAndDrawsLinks(t *testing.T) {
	pool := mem("pool000001", "decision", "Pool Postgres connections with pgxpool", "", "We pool Postgres connections with pgxpool, 20 per instance.\n")
	para := mem("para000001", "decision", "Use pgxpool for Postgres", "links:\n  - {id: argo000001, rel: depends_on}\n", "Postgres connections are pooled with pgxpool: 20 per instance.\n")
	argo := mem("argo000001", "decision", "Deploy with Argo CD", "", "Production deploys go through Argo CD, never by hand.\n")
	base := []gitstore.RefFile{file(dir+"pool.md", pool), file(dir+"argo.md", argo)}
	head := []gitstore.RefFile{file(dir+"pool.md", pool), file(dir+"argo.md", argo), file(dir+"para.md", para)}
	r := Compare(base, head, nil)
	if len(r.Changes) != 1 || r.Changes[0].ID != "para000001" {
		t.Fatalf("changes = %+v", r.Changes)
	}
	nd := r.Changes[0].NearDuplicates
	if len(nd) != 1 || nd[0].ID != "pool000001" || nd[0].Similarity < 0.85 {
		t.Errorf("near duplicates = %+v, want pool000001 only (argo000001 is another subject)", nd)
	}
	md := r.Markdown()
	for _, want := range []string{"**near-duplicate** of **Pool Postgres connections with pgxpool** `pool000001`",
		"```mermaid\nflowchart LR\n", "m_para000001 -->|depends_on| m_argo000001", "[added]"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(r.Diagram, "pool000001") {
		t.Errorf("the diagram draws an unlinked, unchanged memory:\n%s", r.Diagram)
	}
}

func TestAMemoryThatSupersedesAnotherIsNoNearDuplicateOfIt(t *testing.T) {
	pool := mem("pool000001", "decision", "Pool Postgres connections with pgxpool", "", "We pool Postgres connections with pgxpool, 20 per instance.\n")
	tests := []struct {
		name, front string
	}{
		{"supersedes: in the frontmatter (evolve)", "supersedes:\n  - pool000001\n"},
		{"a link with rel supersedes", "links:\n  - {id: pool000001, rel: supersedes}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := mem("pool000002", "decision", "Pool Postgres connections with pgxpool", tt.front, "We pool Postgres connections with pgxpool, 40 per instance.\n")
			base := []gitstore.RefFile{file(dir+"pool.md", pool)}
			head := []gitstore.RefFile{file(dir+"pool.md", pool), file(dir+"pool2.md", next)}
			r := Compare(base, head, nil)
			for _, c := range r.Changes {
				if len(c.NearDuplicates) > 0 {
					t.Errorf("%s flagged as a near-duplicate of %+v, which it supersedes", c.ID, c.NearDuplicates)
				}
			}
		})
	}
	t.Run("the same text without supersedes is flagged", func(t *testing.T) {
		next := mem("pool000002", "decision", "Pool Postgres connections with pgxpool", "", "We pool Postgres connections with pgxpool, 40 per instance.\n")
		r := Compare([]gitstore.RefFile{file(dir+"pool.md", pool)}, []gitstore.RefFile{file(dir+"pool.md", pool), file(dir+"pool2.md", next)}, nil)
		if len(r.Changes) != 1 || len(r.Changes[0].NearDuplicates) != 1 {
			t.Errorf("changes = %+v; want pool000002 flagged", r.Changes)
		}
	})
}
