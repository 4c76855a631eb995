package review

import (
	"slices"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/graph"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/memory"
)

// maxDiagramNodes keeps the diagram readable in a pull request; a larger
// change is listed in the sections above and drawn by `graph`.
const maxDiagramNodes = 60

// diagram draws, in Mermaid, the memories head adds, changes or
// supersedes and the memories they link to or are linked from, each
// marked with what happened to it. It is "" when no such memory has
// links, or when there are too many to draw. Each title is passed through
// mask before the diagram shortens it.
func diagram(head []gitstore.RefFile, changes []Change, mask func(string) string) string {
	var ms []*memory.Memory
	for _, f := range head {
		if m, _, err := gitstore.Decode(f.Path, f.Content); err == nil {
			m.Title = mask(m.Title)
			ms = append(ms, m)
		}
	}
	g := links.New(ms)
	marks := map[string]string{}
	var ids []string
	linked := false
	for _, c := range changes {
		if c.Kind == Deleted || c.ID == "" || g.Memory(c.ID) == nil {
			continue
		}
		marks[c.ID] = c.Kind
		if !slices.Contains(ids, c.ID) {
			ids = append(ids, c.ID)
		}
		for _, n := range g.Walk(c.ID, 1, "") {
			linked = true
			if !slices.Contains(ids, n.ID) {
				ids = append(ids, n.ID)
			}
		}
	}
	if !linked || len(ids) > maxDiagramNodes {
		return ""
	}
	return graph.Mermaid(graph.Of(g, ids, marks))
}
