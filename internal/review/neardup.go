package review

import (
	"context"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/memory"
)

// NearDuplicate is an existing memory that an added one repeats.
type NearDuplicate struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	Path       string  `json:"path"`
	Similarity float64 `json:"similarity"`
}

// flagNearDuplicates sets NearDuplicates on every added memory that is at
// least as similar to another memory of its type in head as the save-time
// threshold (dedup.DefaultThresholds, measured for the built-in embedder,
// which is used here so that a review needs no configuration or network).
func flagNearDuplicates(head []gitstore.RefFile, changes []Change) {
	added := map[string]bool{}
	types := map[string]bool{}
	for _, c := range changes {
		if c.Kind == Added && c.ID != "" {
			added[c.ID], types[c.Type] = true, true
		}
	}
	if len(added) == 0 {
		return
	}
	var ms []*memory.Memory
	var texts []string
	// A memory that something in head supersedes is not current: an
	// added memory replacing it (an evolve, a merge) is no duplicate of it.
	superseded := map[string]bool{}
	for _, f := range head {
		m, _, err := gitstore.Decode(f.Path, f.Content)
		if err != nil {
			continue
		}
		for _, id := range m.SupersededIDs() {
			superseded[strings.ToLower(id)] = true
		}
		if types[m.Type] {
			ms = append(ms, m)
			texts = append(texts, dedup.Text(m.Title, m.Body))
		}
	}
	vecs, err := embed.NewBuiltin().Embed(context.Background(), texts)
	if err != nil || len(vecs) != len(ms) {
		return // the built-in embedder does not fail; if it did, flags are only advice
	}
	for i := range changes {
		c := &changes[i]
		if c.Kind != Added || !added[c.ID] {
			continue
		}
		at := slices.IndexFunc(ms, func(m *memory.Memory) bool { return m.ID == c.ID })
		if at < 0 {
			continue
		}
		th := dedup.DefaultThresholds.For(c.Type)
		for j, m := range ms {
			if j == at || m.Type != c.Type || superseded[strings.ToLower(m.ID)] {
				continue
			}
			if sim := dedup.Cosine(vecs[at], vecs[j]); sim >= th {
				c.NearDuplicates = append(c.NearDuplicates, NearDuplicate{ID: m.ID, Title: m.Title, Path: m.Path,
					Similarity: float64(int(sim*1000+0.5)) / 1000})
			}
		}
		slices.SortStableFunc(c.NearDuplicates, func(a, b NearDuplicate) int {
			switch {
			case a.Similarity > b.Similarity:
				return -1
			case a.Similarity < b.Similarity:
				return 1
			}
			return 0
		})
	}
}
