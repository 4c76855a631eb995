package contextfs_test

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
)

// TestQuestionsWithOperatorsNeverComeBackEmpty: a quoted phrase, OR or
// -word that matches nothing falls back to the question's words, and the
// results say so; a query whose operators match is answered as before.
func TestQuestionsWithOperatorsNeverComeBackEmpty(t *testing.T) {
	ctx := context.Background()
	s := open(t, testgit.Init(t))
	logged := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "error", Title: "NotFound errors are logged at warn level",
		Body: "A NotFound from the object store is logged at warn, then retried once."})
	teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Title: "Uploads go to the object store", Body: "Uploads are written to S3-compatible storage."})
	tests := []struct {
		name, query string
		relaxed     bool
		first       string
	}{
		{"a phrase that no longer exists falls back to the words", `why is "NotFound hit" still logged`, true, logged},
		{"a phrase that exists is required as before", `"logged at warn"`, false, logged},
		{"an OR of absent words falls back", `kafka OR rabbitmq notfound logged`, true, logged},
		{"an exclusion that leaves nothing falls back", `notfound -logged -object`, true, logged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Search(ctx, contextfs.Query{Text: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 {
				t.Fatalf("%q: no results", tt.query)
			}
			if res[0].ID != tt.first {
				t.Errorf("%q: first %s %q, want %s", tt.query, res[0].ID, res[0].Title, tt.first)
			}
			for _, r := range res {
				if r.Relaxed != tt.relaxed {
					t.Errorf("%q: %s relaxed = %v, want %v", tt.query, r.ID, r.Relaxed, tt.relaxed)
				}
			}
		})
	}
}

// TestContractionsDoNotRankByTheirFragments: split at the apostrophe,
// "can't" searched for "t", which matched t.Run with a keyword score of
// 1.0; spelled out, the question ranks by what it asks.
func TestContractionsDoNotRankByTheirFragments(t *testing.T) {
	ctx := context.Background()
	s := open(t, testgit.Init(t))
	trun := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "learned-pattern", Title: "Subtests use t.Run", Body: "Name each case: t.Run(tt.name, func(t *testing.T) {...})."})
	conn := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "error", Title: "The worker cannot connect to Redis after a failover",
		Body: "After a Redis failover the worker cannot connect until its DNS cache expires; restart it."})
	res, err := s.Search(ctx, contextfs.Query{Text: "why can't the worker connect", Mode: contextfs.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].ID != conn {
		t.Fatalf("results %v, want %s first", res, conn)
	}
	for _, r := range res {
		if r.ID == trun {
			t.Errorf("the t.Run memory matched a question with no word of it (keyword %.2f)", r.Keyword)
		}
	}
}
