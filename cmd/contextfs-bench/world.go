package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/worldset"
	"github.com/contextfs/contextfs/memory"
)

// qualityEmbedder is the embedder the quality sets run with: the
// default, or the hashing embedder it replaced (-quality-embedder hash).
var qualityEmbedder = func() embed.Embedder { return embed.NewBuiltin() }

// worldIDPrefix makes the world set's names memory IDs.
const worldIDPrefix = "world-"

// qualityANNFrom is -quality-ann: the quality stores' semantic searches
// use the column scan from this many documents on (0: the default).
var qualityANNFrom int

// benchWorld prints the rows of the world-knowledge set (internal/worldset):
// 50 memories of a team, each a one-sentence memory; queries are questions
// that share no content word with their answer, paraphrases, and negated
// questions; the baseline is FTS5 BM25 over the memories' texts.
func benchWorld(ctx context.Context) error {
	set, err := worldset.Load()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "contextfs-world-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := git.Run(ctx, "", "init", "-q", dir); err != nil {
		return err
	}
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	bodies := map[string]string{}
	for _, wm := range set.Memories {
		// The set's IDs are names ("utc"), some shorter than a memory ID
		// may be (memory.ValidID): stored under a prefix, read back without.
		m := &memory.Memory{ID: worldIDPrefix + wm.ID, Type: wm.Type, Title: wm.Text, Created: ts, Updated: ts, Body: wm.Text + "\n"}
		bodies[wm.ID] = wm.Text
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			return err
		}
		if err := gitstore.WriteFileAtomic(filepath.Join(dir, ".contextfs", wm.Type+"s", m.ID+".md"), raw, 0o644); err != nil {
			return err
		}
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: qualityEmbedder(), VectorIndexFrom: qualityANNFrom})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Sync(ctx); err != nil {
		return err
	}
	base, err := newBaseline(bodies)
	if err != nil {
		return err
	}
	defer base.Close()
	fmt.Println("## World knowledge, paraphrases and negation (internal/worldset)")
	fmt.Println()
	fmt.Printf("%d one-sentence memories of a made-up team; default search over memories. World: questions that share no content word with the memory that answers them. Paraphrase: a memory restated. Negated: a question in the negative, among memories that merely contain a negation. Embedder %s.\n\n", len(set.Memories), s.Embedder().Model())
	fmt.Println("| set | queries | baseline FTS5 MRR@10 / R@5 | keyword MRR@10 / R@5 | semantic MRR@10 / R@5 | hybrid MRR@10 / R@5 | hybrid ÷ baseline (MRR) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, sub := range []struct {
		name string
		qs   []worldset.Query
	}{{"world knowledge", set.World}, {"paraphrase", set.Paraphrase}, {"negated", set.Negated},
		{"held-out world knowledge", set.HeldOutWorld}, {"held-out paraphrase", set.HeldOutParaphrase}} {
		var bs scores
		by := map[string]scores{}
		for _, q := range sub.qs {
			got, err := base.search(q.Q)
			if err != nil {
				return err
			}
			bs.add(rankOf(got, q.Target))
			for _, mode := range qualityModes {
				m, w := modeQuery(mode)
				res, err := s.SearchIndexed(ctx, contextfs.Query{Text: q.Q, Mode: m, SemanticWeight: w, Limit: 10})
				if err != nil {
					return err
				}
				var ids []string
				for _, r := range res {
					ids = append(ids, strings.TrimPrefix(r.ID, worldIDPrefix))
				}
				sc := by[mode]
				sc.add(rankOf(ids, q.Target))
				by[mode] = sc
			}
		}
		fmt.Println(qualityRow(sub.name, len(sub.qs), bs, by))
	}
	fmt.Println()
	return nil
}
