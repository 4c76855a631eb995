package contextfs_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/worldset"
)

// saveWorld saves the memories of the world-knowledge set (50 one-sentence
// memories of a made-up team) and returns the title of each by ID.
func saveWorld(t *testing.T, s *contextfs.Store) (*worldset.Set, map[string]string) {
	t.Helper()
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, m := range set.Memories {
		if _, err := s.Save(context.Background(), contextfs.SaveRequest{Type: m.Type, Title: m.Text, Body: m.Text}); err != nil {
			t.Fatalf("save %s: %v", m.ID, err)
		}
		titles[m.ID] = m.Text
	}
	return set, titles
}

// TestWorldKnowledgeFindsTheDecision: the seeds' promise. A question that
// shares no content word with the decision answering it but "use"
// ("database" against "PostgreSQL") ranks it first among 49 other
// memories of the team, above "Feature flags are managed in
// LaunchDarkly", which shares "feature" with it literally: the decision
// covers more of the question (embed.Coverage, docs/EMBEDDER.md).
func TestWorldKnowledgeFindsTheDecision(t *testing.T) {
	s := open(t, testgit.Init(t))
	_, titles := saveWorld(t, s)
	want := titles["postgres"]
	got := topTitles(t, s, contextfs.Query{Text: "What database should I use for this new feature?"})
	if len(got) == 0 || got[0] != want {
		t.Fatalf("default search: %q, want %q first", got, want)
	}
}

// TestNegatedQuestionFindsItsSubject: a question in the negative ranks the
// memory it is about above the memories that merely say "not", "don't" or
// "never" about something else.
func TestNegatedQuestionFindsItsSubject(t *testing.T) {
	s := open(t, testgit.Init(t))
	set, titles := saveWorld(t, s)
	negative := []string{titles["no-generated"], titles["no-ie"], titles["no-pii"], titles["no-friday"], titles["staging-db"]}
	for _, q := range set.Negated {
		for _, mode := range []string{contextfs.ModeSemantic, contextfs.ModeHybrid} {
			got := topTitles(t, s, contextfs.Query{Text: q.Q, Mode: mode, Limit: 50})
			at := slices.Index(got, titles[q.Target])
			for _, n := range negative {
				if i := slices.Index(got, n); i >= 0 && (at < 0 || i < at) {
					t.Errorf("%s %q: %q (rank %d) above the memory it is about, %q (rank %d)", mode, q.Q, n, i+1, titles[q.Target], at+1)
				}
			}
		}
	}
}

// TestLongMemoryFoundByAParaphraseOfItsEnd: a memory far longer than the
// embedder's window is found in semantic mode by a question that restates,
// in other words, a sentence near its end.
func TestLongMemoryFoundByAParaphraseOfItsEnd(t *testing.T) {
	s := open(t, testgit.Init(t))
	saveWorld(t, s)
	filler := strings.Repeat("The scheduler assigns goroutines to threads and balances the run queues. ", 40)
	for _, m := range []struct{ title, end string }{
		{"Runtime notes A", "Finally: the nightly export writes the invoices of every customer to a CSV file on the shared drive."},
		{"Runtime notes B", "Finally: the linker writes the symbol table of the binary file."},
	} {
		if _, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Title: m.title, Body: filler + "\n\n" + m.end}); err != nil {
			t.Fatal(err)
		}
	}
	got := topTitles(t, s, contextfs.Query{Text: "where do the billing spreadsheets get dumped each night?", Mode: contextfs.ModeSemantic})
	if i := slices.Index(got, "Runtime notes A"); i < 0 || slices.Index(got, "Runtime notes B") >= 0 && slices.Index(got, "Runtime notes B") < i {
		t.Fatalf("semantic results %q: want Runtime notes A, above Runtime notes B", got)
	}
}
