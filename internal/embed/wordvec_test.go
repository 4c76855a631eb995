package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
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

// TestSoftwareSICKSpearman: the default embedder's cosine against human
// relatedness on SICK's 4,500 pairs. The hashing half leads between texts
// (docMix), which keeps the figure at the hashing embedder's level; the
// floor sits a little below the measured figure.
func TestSoftwareSICKSpearman(t *testing.T) {
	pairs := sickPairs(t)
	var even, odd []sick.Pair
	for _, p := range pairs {
		if p.ID%2 == 0 {
			even = append(even, p)
		} else {
			odd = append(odd, p)
		}
	}
	e := NewBuiltin()
	for _, tt := range []struct {
		name  string
		pairs []sick.Pair
	}{{"even pair IDs", even}, {"odd pair IDs", odd}, {"all pairs", pairs}} {
		rho := sickSpearman(t, e, tt.pairs)
		t.Logf("SICK Spearman, %s, n=%d: %.4f", tt.name, len(tt.pairs), rho)
		if !(rho >= 0.70) {
			t.Errorf("SICK Spearman on %s = %.4f, want >= 0.70", tt.name, rho)
		}
	}
}

// TestSoftwareVectorsAreDeterministic: the same text gets the same vector,
// bit for bit, from a fresh embedder, alone or in a batch, as a text or as
// a query, whatever was embedded before.
func TestSoftwareVectorsAreDeterministic(t *testing.T) {
	ctx := context.Background()
	texts := []string{
		"We use PostgreSQL with connection pooling, max 20 connections per instance.",
		strings.Repeat("The scheduler balances the run queues; parseHTTPHeader reads user_id. ", 60),
		"Why don't we use React Native?",
		"",
	}
	a := embedAll(t, NewBuiltin(), texts...)
	warm := NewBuiltin()
	embedAll(t, warm, "something else entirely, with other words")
	for i, text := range texts {
		b := embedAll(t, warm, text)[0]
		if !slices.Equal(a[i], b) {
			t.Errorf("text %d: a different vector alone than in a batch, or after other texts", i)
		}
		q1, err := EmbedQuery(ctx, NewBuiltin(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		q2, err := EmbedQuery(ctx, warm, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(q1[0], q2[0]) {
			t.Errorf("text %d: two query vectors differ", i)
		}
	}
}

// TestSoftwareKnowsSoftware: the word vectors put a question about a kind
// of thing nearer a memory naming one of that kind than memories about
// other things, with no word in common.
func TestSoftwareKnowsSoftware(t *testing.T) {
	ctx := context.Background()
	e := NewBuiltin()
	tests := []struct{ query, want, other string }{
		{"Which broker carries order events?", "Checkout publishes to Kafka; the purchases topic is partitioned by customer ID.", "Grafana dashboards live in the ops repository under dashboards/."},
		{"Where are passwords and private keys stored?", "Secrets come from HashiCorp Vault, injected as environment variables at startup.", "Celery with Redis as broker runs the report generation tasks."},
	}
	for _, tt := range tests {
		q, err := EmbedQuery(ctx, e, []string{tt.query})
		if err != nil {
			t.Fatal(err)
		}
		vs := embedAll(t, e, tt.want, tt.other)
		if w, o := dot(q[0], vs[0]), dot(q[0], vs[1]); w <= o {
			t.Errorf("%q: cosine %.3f with %q, %.3f with %q", tt.query, w, tt.want, o, tt.other)
		}
	}
}

// BenchmarkSoftwareEmbed reports the default embedder's throughput on the
// texts of BenchmarkBuiltinEmbed (the hashing embedder's), on one
// goroutine.
func BenchmarkSoftwareEmbed(b *testing.B) {
	e := NewBuiltin()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, benchTexts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(benchTexts))/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkSoftwareEmbedQuery is the embedding of one search query.
func BenchmarkSoftwareEmbedQuery(b *testing.B) {
	e := NewBuiltin()
	ctx := context.Background()
	q := []string{"What database should I use for this new feature?"}
	for b.Loop() {
		if _, err := EmbedQuery(ctx, e, q); err != nil {
			b.Fatal(err)
		}
	}
}
