package contextfs_test

import (
	"context"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestSearchLiteralTakesOperatorsAsWords searches with text that holds
// the query syntax's operators: as a query they act (a -word excludes,
// a phrase is required), and with Literal they are words that rank.
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
		found   bool
	}{
		{"a -word excludes in a query", "golangci-lint -fix", false, false},
		{"a -word is a word when literal", "golangci-lint -fix", true, true},
		{"a phrase is required in a query", `golangci-lint "go build"`, false, false},
		{"a phrase is words when literal", `golangci-lint "go build"`, true, true},
		{"operators alone are words when literal", `-fix -lint OR "" *`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(ctx, contextfs.Query{Text: tt.text, Literal: tt.literal, Mode: contextfs.ModeKeyword})
			if err != nil {
				t.Fatal(err)
			}
			found := len(hits) > 0 && hits[0].ID == res.Memory.ID
			if found != tt.found {
				t.Errorf("found %v (%+v), want %v", found, hits, tt.found)
			}
		})
	}
}
