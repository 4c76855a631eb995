package links_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

func TestAddLinksAMemoryOrAURL(t *testing.T) {
	testgit.Isolate(t)
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The API listens on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The API is documented in the wiki."})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, to, rel string
		want          memory.Link
		wantErr       error
	}{
		{"a memory by prefix", a.Memory.ID[:5], "depends_on", memory.Link{ID: a.Memory.ID, Rel: "depends_on"}, nil},
		{"a URL, as save --link keeps it", "https://wiki.example.com/api", "references", memory.Link{ID: "https://wiki.example.com/api", Rel: "references"}, nil},
		{"a mail address", "mailto:api-team@example.com", "", memory.Link{ID: "mailto:api-team@example.com", Rel: memory.RelRelated}, nil},
		{"no memory", "zzzzzzzzzz", "", memory.Link{}, contextfs.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := links.Add(ctx, s, b.Memory.ID, tt.to, tt.rel)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range m.Links {
				found = found || reflect.DeepEqual(l, tt.want)
			}
			if !found {
				t.Errorf("links = %v, want %v among them", m.Links, tt.want)
			}
		})
	}
	// And a URL comes off as it went on.
	m, err := links.Remove(ctx, s, b.Memory.ID, "https://wiki.example.com/api", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range m.Links {
		if l.ID == "https://wiki.example.com/api" {
			t.Errorf("unlink left %v", l)
		}
	}
}
