package links_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/internal/testgit"
)

// WalkIndexed must give what Walk over the files gives: the same
// neighbours, depths, edges and missing targets, in the same order, for
// every start, depth and relation, on a random graph with bare links,
// typed links, supersedes both ways, duplicates and dangling targets.
func TestWalkIndexedIsWalkOverTheFiles(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	r := rand.New(rand.NewPCG(7, 9))
	id := func(i int) string { return fmt.Sprintf("mem%05d", i) }
	rels := []string{"", "related", "depends_on", "part_of", "supersedes", "references"}
	const n = 60
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: %s\ntype: fact\ntitle: Memory %d\n", id(i), i)
		if k := r.IntN(4); k > 0 {
			b.WriteString("links:\n")
			for range k {
				target := id(r.IntN(n))
				if r.IntN(10) == 0 {
					target = fmt.Sprintf("gone%04d", r.IntN(100)) // dangling
				}
				if rel := rels[r.IntN(len(rels))]; rel == "" {
					fmt.Fprintf(&b, "  - %s\n", target)
				} else {
					fmt.Fprintf(&b, "  - {id: %s, rel: %s}\n", target, rel)
				}
			}
		}
		if r.IntN(5) == 0 {
			fmt.Fprintf(&b, "supersedes:\n  - %s\n", id(r.IntN(n)))
		}
		b.WriteString("created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nBody.\n")
		testgit.WriteFile(t, dir, fmt.Sprintf(".contextfs/memories/m-%s.md", id(i)), b.String())
	}
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := links.Load(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i := range n {
		for depth := 1; depth <= 3; depth++ {
			for _, rel := range []string{"", "depends_on", "supersedes", "related"} {
				want := g.Walk(id(i), depth, rel)
				got, err := links.WalkIndexed(ctx, s, id(i), depth, rel)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, depth %d, rel %q:\nindexed %+v\nfiles   %+v", id(i), depth, rel, got, want)
				}
				compared += len(want)
			}
		}
	}
	if compared < 500 {
		t.Fatalf("only %d neighbours compared: the graph is too sparse to test anything", compared)
	}
}
