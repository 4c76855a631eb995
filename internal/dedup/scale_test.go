package dedup

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
)

// TestCheckRetrievalAtScale plants the labelled memories among a large
// corpus and measures what the check's candidates find there, where the
// 8 nearest are 8 of thousands of the type, not of a few dozen: each
// paraphrase's original among them (the semantic candidates, and a hybrid
// search of the text, as the check used before), how many the check then
// reports similar, and may_supersede on this project's decisions. It
// needs a corpus it may write to, so it runs only when
// CONTEXTFS_DEDUP_SCALE_DIR names one (docs/HYGIENE.md, "Duplicates at
// save", has the commands); run with -v for the figures.
func TestCheckRetrievalAtScale(t *testing.T) {
	dir := os.Getenv("CONTEXTFS_DEDUP_SCALE_DIR")
	if dir == "" {
		t.Skip("CONTEXTFS_DEDUP_SCALE_DIR not set: no corpus to plant the labelled memories in")
	}
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := func(rs []contextfs.Result, id string) bool {
		return slices.ContainsFunc(rs, func(r contextfs.Result) bool { return r.ID == id })
	}
	var semHit, hybHit, simHit, n int
	for _, p := range memoryPairs {
		if !p.dup {
			continue
		}
		a := strings.SplitN(p.a, "\n", 2)
		b := strings.SplitN(p.b, "\n", 2)
		res, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: a[0], Body: a[1]})
		if err != nil {
			t.Fatal(err)
		}
		id := res.Memory.ID
		text := Text(b[0], b[1])
		sem, _ := s.Search(ctx, contextfs.Query{Text: text, Types: []string{"decision"}, Mode: contextfs.ModeSemantic, Limit: candidates, Literal: true})
		hyb, _ := s.SearchIndexed(ctx, contextfs.Query{Text: text, Types: []string{"decision"}, Mode: contextfs.ModeHybrid, Limit: candidates, Literal: true})
		rep, err := Check(ctx, s, Candidate{Type: "decision", Title: b[0], Body: b[1]}, DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if in(sem, id) {
			semHit++
		}
		if in(hyb, id) {
			hybHit++
		}
		if slices.ContainsFunc(rep.Similar, func(m Match) bool { return m.ID == id }) {
			simHit++
		}
	}
	t.Logf("paraphrases: %d; original in semantic top 8: %d, hybrid top 8: %d; reported similar: %d", n, semHit, hybHit, simHit)
	if semHit < hybHit {
		t.Errorf("the semantic candidates found %d originals, a hybrid search %d", semHit, hybHit)
	}

	raw, err := os.ReadFile("testdata/project-decisions.json")
	if err != nil {
		t.Fatal(err)
	}
	var ds []struct {
		ID, Title, Decision, Body string
		Supersedes                []string
	}
	if err := json.Unmarshal(raw, &ds); err != nil {
		t.Fatal(err)
	}
	saved := map[string]string{}
	for _, d := range ds {
		res, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: d.Title, Body: d.Body, Data: map[string]any{"decision": d.Decision}})
		if err != nil {
			t.Fatal(err)
		}
		saved[d.ID] = res.Memory.ID
	}
	pairs := map[string][]string{}
	for _, d := range ds {
		for _, old := range d.Supersedes {
			pairs[d.ID] = append(pairs[d.ID], old)
			pairs[old] = append(pairs[old], d.ID)
		}
	}
	var tp, fp, fn, hybRet, newRet int
	for _, d := range ds {
		c := Candidate{Type: "decision", Title: d.Title, Body: d.Body, Data: map[string]any{"decision": d.Decision}}
		rep, err := Check(ctx, s, c, DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, id := range pairs[d.ID] {
			want[saved[id]] = true
		}
		for _, m := range rep.MaySupersede {
			if m.ID == saved[d.ID] {
				continue
			}
			if want[m.ID] {
				tp++
			} else {
				fp++
				t.Logf("false: %q -> %q", d.Title, m.Title)
			}
		}
		for id := range want {
			if !slices.ContainsFunc(rep.MaySupersede, func(m Match) bool { return m.ID == id }) {
				fn++
			}
			hyb, _ := s.SearchIndexed(ctx, contextfs.Query{Text: Text(d.Title, d.Body), Types: []string{"decision"}, Mode: contextfs.ModeHybrid, Limit: candidates, Literal: true})
			if in(hyb, id) {
				hybRet++
			}
			nw, _, _ := nearest(ctx, s, c, "decision", Text(d.Title, d.Body))
			if in(nw, id) {
				newRet++
			}
		}
	}
	t.Logf("project decisions among the corpus: may_supersede %d true, %d false, %d missed; counterpart among the candidates: %d/4 (a hybrid search of the text: %d/4)", tp, fp, fn, newRet, hybRet)
	if newRet < hybRet || fn > 0 {
		t.Errorf("counterparts found %d (hybrid %d), missed %d", newRet, hybRet, fn)
	}
}
