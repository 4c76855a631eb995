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
