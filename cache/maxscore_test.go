package cache

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// zipfCorpus writes n memories whose titles, tags and bodies draw words
// of vocab skewed toward its head (so that some words are in most
// documents and some in few), of lengths from one word to a few hundred:
// parts of every size, with ties where documents are alike.
func zipfCorpus(f *fixture, r *rand.Rand, vocab []string, n int) {
	pick := func() string { return vocab[int(float64(len(vocab))*math.Pow(r.Float64(), 3))] }
	words := func(m int) string {
		var w []string
		for range m {
			w = append(w, pick())
		}
		return strings.Join(w, " ")
	}
	for i := range n {
		body := words(1 + r.IntN(12))
		if r.IntN(8) == 0 {
			body += " " + words(50+r.IntN(300))
		}
		if r.IntN(10) == 0 { // identical documents tie
			f.write(fmt.Sprintf("z%05d.md", i), "fact\nsame words\nanother\nsame words as another")
			continue
		}
		f.write(fmt.Sprintf("z%05d.md", i), strings.Join([]string{
			[]string{"fact", "decision", "error"}[r.IntN(3)], words(r.IntN(4)), words(r.IntN(3)), body}, "\n"))
	}
}

// analyzeTitled reads a memory of zipfCorpus: its type, title, tags
// (space-separated) and body, one to a line.
func analyzeTitled(path string, raw []byte) Analysis {
	p := strings.SplitN(string(raw), "\n", 4)
	for len(p) < 4 {
		p = append(p, "")
	}
	return Analysis{Docs: []Doc{{MID: strings.TrimSuffix(path, ".md"), Type: p[0], Title: p[1], Tags: strings.Fields(p[2]), Body: p[3]}}}
}

// TestMaxScoreRanksAsEveryPostingScored: the early-stopping ranking of
// the kept term lists gives, for random queries and windows, exactly what
// cfs_topk's exhaustive ranking gives: the same documents with the same
// scores to the bit, in the same order (ties by row), and the same
// (idf, best part, matches) per word; and a search whose filter widens
// the window gets the best of the passing documents of that ranking.
func TestMaxScoreRanksAsEveryPostingScored(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(37, 3))
	vocab := strings.Fields(`service pool cache retry upload token shard lock queue alpha beta gamma
		delta epsilon zeta theta kappa lambda sigma omega broker topic offset proxy route header
		deploy docker image cluster node metric alert trace span ledger refund invoice payment
		vector ranking recall mutex channel worker cron batch stream same words another`)
	zipfCorpus(f, r, vocab, 3000)
	ctx := context.Background()
	if _, err := f.c.SyncFiles(ctx, KindMemory, f.root, f.entries(), analyzeTitled); err != nil {
		t.Fatal(err)
	}
	ds, err := f.c.docs(ctx, KindMemory)
	if err != nil {
		t.Fatal(err)
	}
	windows := []int{1, 2, 3, 5, 10, 30, 64, 200, 1000, 5000}
	for i := range 400 {
		var q []string
		for range 1 + r.IntN(6) {
			w := vocab[r.IntN(len(vocab))]
			if r.IntN(15) == 0 {
				w = "nowhere" // a word no document has
			}
			q = append(q, w)
		}
		words := ds.rankedWords(strings.Join(q, " "))
		window := windows[r.IntN(len(windows))]
		want, wantBests, err := f.c.topk(ctx, ds, joinWords(words), window, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gotBests, err := f.c.topkWords(ctx, ds, words, window)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d %q, window %d:\nkept lists %v\ncfs_topk   %v", i, words, window, got, want)
		}
		if !slices.Equal(gotBests, wantBests) {
			t.Fatalf("query %d %q: (idf, best part, matches) from the lists %v, cfs_topk %v", i, words, gotBests, wantBests)
		}
	}
	// A filter other than by type widens the window over the ranking
	// (KeywordTerms): a few memories of each type pass.
	all, _, err := f.c.topk(ctx, ds, joinWords(ds.rankedWords("service pool omega")), len(ds.rows), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int64, len(all))
	for i, h := range all {
		rows[i] = h.Row
	}
	meta, err := f.c.Rows(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	var mids []string
	pass := map[int64]bool{}
	for i, h := range all {
		if i%97 == 5 || i == len(all)-1 { // the last one too: the widest window
			mids = append(mids, meta[h.Row].MID)
			pass[h.Row] = true
		}
	}
	for _, k := range []int{1, 3, 10, len(mids)} {
		var want []Hit
		for _, h := range all {
			if pass[h.Row] && len(want) < k {
				want = append(want, h)
			}
		}
		got, err := f.c.Keyword(ctx, KindMemory, "service pool omega", Filter{MIDs: mids, All: true}, k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("k %d, filtered by memory ID: %v\nwant %v", k, got, want)
		}
	}
}
