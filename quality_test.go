package contextfs_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestFusionIsCalibrated: keyword scores of memories, code and commits
// share one scale, so the best commit of a query that barely matches any
// commit does not score like the best memory; a hybrid result far below
// the best one does not pad the list; every result says its part scores.
func TestFusionIsCalibrated(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "Tweak connections")
	if _, err := s.Index(context.Background(), contextfs.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(context.Background(), contextfs.Query{Text: "pool postgres database connections with pgxpool", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Title != "Pool Postgres connections with pgxpool" {
		t.Fatalf("first result %+v", res)
	}
	best := res[0].Score
	for _, r := range res {
		if r.Kind == "commit" && r.Keyword >= 0.5 {
			t.Errorf("a commit matching one word scores %.3f on the keyword side, as high as the best memory", r.Keyword)
		}
		if r.Score < 0.1*best {
			t.Errorf("%s %q at %.3f pads the list (best %.3f)", r.Kind, r.Title, r.Score, best)
		}
		if r.Score > 0 && r.Keyword == 0 && r.Semantic == 0 {
			t.Errorf("%s %q: no part scores", r.Kind, r.Title)
		}
	}
}

// TestLongMemoryFoundByItsEnd: a memory longer than the embedder's window
// is embedded whole, so a sentence from its end finds it by meaning.
func TestLongMemoryFoundByItsEnd(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	filler := strings.Repeat("The scheduler assigns goroutines to threads and balances the run queues. ", 40)
	for _, m := range []struct{ title, end string }{
		{"Runtime notes A", "Finally, the garbage collector compacts the heap of the penguin colony."},
		{"Runtime notes B", "Finally, the linker writes the symbol table of the binary file."},
	} {
		if _, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Title: m.title, Body: filler + "\n\n" + m.end}); err != nil {
			t.Fatal(err)
		}
	}
	got := topTitles(t, s, contextfs.Query{Text: "the garbage collector compacts the heap of the penguin colony", Mode: "semantic"})
	if len(got) == 0 || got[0] != "Runtime notes A" {
		t.Fatalf("semantic results %q, want Runtime notes A first", got)
	}
}

// TestQuerySyntax: by keyword a query returns exactly what its syntax
// allows; in every mode nothing that the syntax rules out is returned.
func TestQuerySyntax(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	const (
		pool    = "Pool Postgres connections with pgxpool"
		staging = "Staging runs on Kubernetes 1.29"
		eaddr   = "EADDRINUSE in parallel integration tests"
		release = "Release checklist"
		tdd     = "Prefer table-driven tests"
	)
	tests := []struct {
		name, query string
		want        []string // by keyword: exactly these
		never       []string // in any mode
	}{
		{"a quoted phrase is required", `"integration tests"`, []string{eaddr}, []string{tdd}},
		{"a minus excludes", "tests -parallel", []string{tdd}, []string{eaddr}},
		{"a prefix matches the words it begins", "pgx*", []string{pool}, nil},
		{"OR gives alternatives of which one is required", "kubernetes OR postgres", []string{pool, staging}, []string{eaddr, release, tdd}},
	}
	for _, tt := range tests {
		for _, mode := range []string{"keyword", "semantic", "hybrid"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				got := topTitles(t, s, contextfs.Query{Text: tt.query, Mode: mode})
				for _, n := range tt.never {
					if slices.Contains(got, n) {
						t.Errorf("%q returned %q", tt.query, n)
					}
				}
				if mode != "keyword" {
					return
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tt.want))
				if !slices.Equal(got, want) {
					t.Errorf("%q: got %q, want %q", tt.query, got, want)
				}
			})
		}
	}
}

// TestCodeFileEvidence: searching code alone, a file several of whose
// chunks match outranks a file with one equally good chunk (file
// evidence, docs/DESIGN.md), and says so in file_score; a search of every
// kind keeps the plain fusion.
func TestCodeFileEvidence(t *testing.T) {
	dir := testgit.Init(t)
	const fn = "// RetryWithBackoff retries the request with exponential backoff.\nfunc RetryWithBackoff() {}\n"
	// a.go sorts first, so a tie goes to it: only file evidence puts b.go first.
	testgit.WriteFile(t, dir, "a.go", "package x\n\n"+fn)
	testgit.WriteFile(t, dir, "b.go", "package x\n\n"+fn+
		"\n// backoffDelay is the exponential backoff delay before a retry.\nfunc backoffDelay() {}\n"+
		"\n// retryLimit caps how often a request is retried with backoff.\nfunc retryLimit() {}\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "code")
	s := open(t, dir)
	if _, err := s.Index(context.Background(), contextfs.IndexOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	const q = "retry the request with exponential backoff"
	res, err := s.SearchIndexed(context.Background(), contextfs.Query{Text: q, Types: []string{"code"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Path != "b.go" || res[0].FileScore <= 0 {
		t.Fatalf("code search: first result %+v, want b.go with a file score", res)
	}
	all, err := s.SearchIndexed(context.Background(), contextfs.Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.FileScore != 0 {
			t.Errorf("a search of every kind adds file evidence to %s: %+v", r.ID, r)
		}
	}
}
