package dedup_test

import (
	"context"
	"testing"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/worldset"
)

// TestParaphrasesAreDuplicatesAtSave: among the 50 memories of the
// world-knowledge set, a save that restates one in other words ("Postgres
// with a connection pool" for "PostgreSQL with connection pooling", "We
// deploy using Flux, GitOps style" for "Deploy with Flux: GitOps") is
// reported as repeating it, and a save that is only on a neighbouring
// subject is not.
func TestParaphrasesAreDuplicatesAtSave(t *testing.T) {
	ctx := context.Background()
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := open(t)
	ids := map[string]string{}
	for _, m := range set.Memories {
		res, err := s.Save(ctx, contextfs.SaveRequest{Type: m.Type, Body: m.Text})
		if err != nil {
			t.Fatal(err)
		}
		ids[m.Text] = res.Memory.ID
	}
	tests := []struct {
		name, saved, repeated, typ string
		dup                        bool
	}{
		{"Postgres for PostgreSQL, a pool for pooling", "We use PostgreSQL with connection pooling, max 20 connections per instance.",
			"We use Postgres with a connection pool, 20 connections max per instance.", "decision", true},
		{"the Flux deployment in other words", "Deploy with Flux: GitOps from the main branch.",
			"We deploy using Flux, GitOps style, from main.", "decision", true},
		{"a release note from main is not the Flux deployment", "Deploy with Flux: GitOps from the main branch.",
			"Release notes are written from the main branch before each tag.", "decision", false},
		{"structlog for Python is not slog for Go", "Go services log with slog in JSON format to stdout.",
			"Python services log with structlog to a file.", "procedural", false},
		{"a gateway timeout is not its rate limit", "Rate limiting: 100 requests per minute per API key, enforced at the gateway.",
			"Timeouts: 30 seconds per request at the gateway.", "decision", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := dedup.Check(ctx, s, dedup.Candidate{Type: tt.typ, Body: tt.repeated}, dedup.DefaultThresholds)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range rep.Similar {
				found = found || m.ID == ids[tt.saved]
			}
			if found != tt.dup {
				t.Errorf("reported as a duplicate of %q: %v, want %v (similar: %+v)", tt.saved, found, tt.dup, rep.Similar)
			}
		})
	}
}
