package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/sick"
	"github.com/contextfs/contextfs/internal/worldset"
)

// TestWordvecSum: the table's name in the model (wordvecSum) is its hash,
// so a new table recomputes cached vectors.
func TestWordvecSum(t *testing.T) {
	sum := sha256.Sum256(wordvecData)
	if got := hex.EncodeToString(sum[:]); got != wordvecSum {
		t.Fatalf("wordvec.bin has SHA-256 %s, wordvec_sum.go says %s: run make model (or its pack step)", got, wordvecSum)
	}
}

func sickPairs(t testing.TB) []sick.Pair {
	path, err := sick.Locate()
	if err != nil {
		t.Fatalf("%v\n(the SICK set ships in a module this repository requires; run `go mod download` first)", err)
	}
	pairs, err := sick.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

func sickSpearman(t testing.TB, e Embedder, pairs []sick.Pair) float64 {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.A, p.B)
	}
	vs := embedAll(t, e, texts...)
	var sims, scores []float64
	for i, p := range pairs {
		sims, scores = append(sims, cosine(vs[2*i], vs[2*i+1])), append(scores, p.Score)
	}
	return sick.Spearman(sims, scores)
}

// worldScores ranks the world set's memories by cosine alone and returns
// MRR@10 of the world, paraphrase and negated queries, and how many
// negated queries put a negation-only memory above their target.
func worldScores(t testing.TB, e Embedder) (world, para, neg float64, negBad int) {
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	idx := map[string]int{}
	for i, m := range set.Memories {
		texts = append(texts, m.Text+"\n"+m.Text)
		idx[m.ID] = i
	}
	mv := embedAll(t, e, texts...)
	mrr := func(qs []worldset.Query, checkNeg bool) float64 {
		var sum float64
		for _, q := range qs {
			qvs, err := EmbedQuery(context.Background(), e, []string{q.Q})
			if err != nil {
				t.Fatal(err)
			}
			qv := qvs[0]
			target := cosine(qv, mv[idx[q.Target]])
			rank := 1
			for i := range mv {
				c := cosine(qv, mv[i])
				if i != idx[q.Target] && c > target {
					rank++
					if checkNeg && strings.HasPrefix(set.Memories[i].ID, "no-") || checkNeg && set.Memories[i].ID == "staging-db" {
						negBad++
					}
				}
			}
			if rank <= 10 {
				sum += 1 / float64(rank)
			}
		}
		return sum / float64(len(qs))
	}
	return mrr(set.World, false), mrr(set.Paraphrase, false), mrr(set.Negated, true), negBad
}

// TestSoftwareTune prints SICK and the world set's cosine-only MRR for
// variants of the default embedder (CONTEXTFS_SWEEP=1).
func TestSoftwareTune(t *testing.T) {
	if os.Getenv("CONTEXTFS_SWEEP") == "" {
		t.Skip("set CONTEXTFS_SWEEP=1")
	}
	pairs := sickPairs(t)
	for _, dm := range []float32{0.1, 0.15, 0.2, 0.25} {
		for _, qm := range []float32{0.5, 0.8, 0.9, 0.95} {
			e := newSoftware(docParams, queryParams, dm, qm)
			w, pa, ng, bad := worldScores(t, e)
			t.Logf("doc mix %.2f query mix %.2f: SICK %.4f world %.3f para %.3f neg %.3f (negation-only above target: %d)", dm, qm, sickSpearman(t, e, pairs), w, pa, ng, bad)
		}
	}
}
