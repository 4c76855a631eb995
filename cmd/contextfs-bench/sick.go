package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/contextfs/contextfs/internal/git"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/sick"
	"github.com/contextfs/contextfs/memory"
)

// benchSICK: every distinct SICK sentence is a memory; for each pair with
// relatedness >= 4 and A != B, query with B and look for A (ignoring the
// hit that is B itself). Reports MRR@10 per mode and the Spearman
// correlation of the built-in embedder's cosine with the human scores.
func benchSICK(ctx context.Context) error {
	path, err := sick.Locate()
	if err != nil {
		return err
	}
	pairs, err := sick.Load(path)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "contextfs-sick-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if out, err := (git.Cmd{}).Combined(context.Background(), "init", "-q", dir); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	ids := map[string]string{}
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(s string) error {
		if _, ok := ids[s]; ok {
			return nil
		}
		m := &memory.Memory{ID: fmt.Sprintf("s%06d", len(ids)), Type: "fact", Title: s, Created: ts, Updated: ts, Body: s + "\n"}
		ids[s] = m.ID
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			return err
		}
		return gitstore.WriteFileAtomic(filepath.Join(dir, ".contextfs", "sick", m.ID+".md"), raw, 0o644)
	}
	for _, p := range pairs {
		if err := add(p.A); err != nil {
			return err
		}
		if err := add(p.B); err != nil {
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
	type run struct {
		name string
		q    contextfs.Query
	}
	w := func(x float64) *float64 { return &x }
	runs := []run{
		{"keyword (BM25)", contextfs.Query{Mode: "keyword"}},
		{"semantic (built-in embedder)", contextfs.Query{Mode: "semantic"}},
	}
	for _, x := range []float64{0.3, 0.5, 0.6, 0.7, 0.8} {
		runs = append(runs, run{fmt.Sprintf("hybrid, w = %.1f", x), contextfs.Query{Mode: "hybrid", SemanticWeight: w(x)}})
	}
	var queries []sick.Pair
	for _, p := range pairs {
		if p.Score >= 4 && p.A != p.B {
			queries = append(queries, p)
		}
	}
	var dq []dumpQuery
	for _, p := range queries {
		dq = append(dq, dumpQuery{Query: p.B, Target: ids[p.A], Skip: ids[p.B]})
	}
	if err := dumpCandidates(ctx, s, "sick", nil, dq); err != nil {
		return err
	}
	fmt.Println("## Retrieval quality on SICK")
	fmt.Println()
	fmt.Printf("%d distinct sentences indexed as memories; %d queries (pairs with relatedness ≥ 4 and A ≠ B): query with B, look for A in the top 10, ignoring B itself.\n\n", len(ids), len(queries))
	fmt.Println("| ranking | MRR@10 | recall@10 | p50 latency |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, r := range runs {
		var rr float64
		var found int
		var lat []time.Duration
		for _, p := range queries {
			q := r.q
			q.Text, q.Limit = p.B, 11
			t := time.Now()
			res, err := s.SearchIndexed(ctx, q)
			if err != nil {
				return err
			}
			lat = append(lat, time.Since(t))
			rank := 0
			for _, x := range res {
				if x.ID == ids[p.B] {
					continue
				}
				rank++
				if x.ID == ids[p.A] {
					rr += 1 / float64(rank)
					found++
					break
				}
				if rank == 10 {
					break
				}
			}
		}
		fmt.Printf("| %s | %.3f | %.3f | %s |\n", r.name, rr/float64(len(queries)), float64(found)/float64(len(queries)), ms(pct(lat, 0.5)))
	}
	emb := qualityEmbedder()
	var xs, ys []float64
	for _, p := range pairs {
		vs, err := emb.Embed(ctx, []string{p.A, p.B})
		if err != nil {
			return err
		}
		xs = append(xs, cosine(vs[0], vs[1]))
		ys = append(ys, p.Score)
	}
	fmt.Printf("\nSpearman correlation of the built-in embedder's cosine with human relatedness over all %d pairs: **%.3f**\n\n", len(pairs), sick.Spearman(xs, ys))
	return nil
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}
