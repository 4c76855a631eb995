package contextfs_test

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestSearchLiteralTakesOperatorsAsWords searches with text that holds
// the query syntax's operators: as a query they act (a -word excludes,
// a phrase is required), so the memory is found only when they leave
// nothing and the words are searched instead (relaxed); with Literal
// they are words that rank.
func TestSearchLiteralTakesOperatorsAsWords(t *testing.T) {
	ctx := context.Background()
	s := open(t, testgit.Init(t))
	res, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: "Lint with -fix",
		Body: `Run golangci-lint with -fix OR "go vet" on every package.`})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		text    string
		literal bool
		relaxed bool
	}{
		{"a -word excludes in a query", "golangci-lint -fix", false, true},
		{"a -word is a word when literal", "golangci-lint -fix", true, false},
		{"a phrase is required in a query", `golangci-lint "go build"`, false, true},
		{"a phrase is words when literal", `golangci-lint "go build"`, true, false},
		{"operators alone are words when literal", `-fix -lint OR "" *`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(ctx, contextfs.Query{Text: tt.text, Literal: tt.literal, Mode: contextfs.ModeKeyword})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].ID != res.Memory.ID {
				t.Fatalf("not found: %+v", hits)
			}
			if hits[0].Relaxed != tt.relaxed {
				t.Errorf("relaxed %v, want %v", hits[0].Relaxed, tt.relaxed)
			}
		})
	}
}
