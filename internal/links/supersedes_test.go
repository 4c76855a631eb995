package links_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
	"github.com/contextfs/contextfs/memory"
)

func openStore(t *testing.T) *contextfs.Store {
	t.Helper()
	testgit.Isolate(t)
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Add refuses a link of rel supersedes that would close a supersedes
// cycle, however the memories on the way say they supersede (entry or
// link), and writes nothing; the error names the cycle. Other links back,
// and a link along a chain, are added.
func TestAddRefusesASupersedingLinkThatClosesACycle(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// from and to name the memories linked: "a" the oldest, "b" what
		// supersedes it (by bBy), "c" what supersedes b by a link.
		bBy, from, to, rel string
		wantCycle          string // in the error, A, B and C standing for the IDs; "" when the link is added
	}{
		{"back to what supersedes it by a link", "link", "a", "b", "supersedes", "A → B → A"},
		{"back to what supersedes it by an entry", "entry", "a", "b", "supersedes", "A → B → A"},
		{"back through two newer versions", "entry", "a", "c", "supersedes", "A → C → B → A"},
		{"a middle version back to the newest", "link", "b", "c", "supersedes", "B → C → B"},
		{"the newest to the oldest, along the chain", "entry", "c", "a", "supersedes", ""},
		{"back by another relation", "link", "a", "c", "contradicts", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			ids := map[string]string{"a": teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Cache TTL is 60 seconds."})}
			req := contextfs.SaveRequest{Type: "fact", Body: "Cache TTL is 120 seconds."}
			if tt.bBy == "link" {
				req.Links = []string{"supersedes:" + ids["a"]}
			} else {
				req.Supersedes = []string{ids["a"]}
			}
			ids["b"] = teststore.SaveID(t, s, req)
			ids["c"] = teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Cache TTL is 300 seconds.", Links: []string{"supersedes:" + ids["b"]}})
			from, to := ids[tt.from], ids[tt.to]
			_, err := links.Add(ctx, s, from, to[:6], tt.rel)
			m, rerr := s.Resolve(ctx, from)
			if rerr != nil {
				t.Fatal(rerr)
			}
			added := slices.Contains(m.Links, memory.Link{ID: to, Rel: tt.rel})
			if tt.wantCycle == "" {
				if err != nil || !added {
					t.Fatalf("Add: err %v, link added %v; want it added", err, added)
				}
				return
			}
			want := strings.NewReplacer("A", ids["a"], "B", ids["b"], "C", ids["c"]).Replace(tt.wantCycle)
			var ce *contextfs.SupersedesCycleError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "supersedes cycle, "+want) {
				t.Fatalf("Add: err %v, want a *SupersedesCycleError naming %s", err, want)
			}
			if added {
				t.Errorf("the refused link was written: %v", m.Links)
			}
		})
	}
}

// Remove with rel supersedes removes the memory from the source's
// supersedes: entries as well as its links of rel supersedes, so that it is
// current again (unless another memory still supersedes it); without a
// rel, supersedes: entries stay, and removing nothing is an error.
func TestRemoveWithRelSupersedesRemovesEntriesToo(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// How b names a: supersedes: entries and links ("rel:ID" forms).
		entry    bool
		links    []string
		cToo     bool   // c supersedes a too
		rel      string // Remove's rel
		wantErr  string // in the error; "" for none
		wantSup  bool   // b still supersedes a (either way) afterwards
		wantLeft []memory.Link
	}{
		{"an entry, with rel supersedes", true, nil, false, "supersedes", "", false, nil},
		{"a link of rel supersedes", false, []string{"supersedes:"}, false, "supersedes", "", false, nil},
		{"an entry and a link at once", true, []string{"supersedes:"}, false, "supersedes", "", false, nil},
		{"an entry, while another memory still supersedes it", true, nil, true, "supersedes", "", false, nil},
		{"an entry without a rel stays, and is an error", true, nil, false, "", "has no link to", true, nil},
		{"an entry without a rel stays beside a link removed", true, []string{""}, false, "", "", true, []memory.Link{}},
		{"links of other relations stay", true, []string{"depends_on:"}, false, "supersedes", "", false, []memory.Link{{Rel: "depends_on"}}},
		{"neither an entry nor a link", false, []string{"depends_on:"}, false, "supersedes", "does not supersede", false, []memory.Link{{Rel: "depends_on"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			a := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Deploys go out on Tuesdays."})
			req := contextfs.SaveRequest{Type: "fact", Body: "Deploys go out on Thursdays."}
			if tt.entry {
				req.Supersedes = []string{a}
			}
			for _, l := range tt.links {
				req.Links = append(req.Links, l+a)
			}
			b := teststore.SaveID(t, s, req)
			var c string
			if tt.cToo {
				c = teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Deploys go out every day.", Supersedes: []string{a}})
			}
			_, err := links.Remove(ctx, s, b, a[:6], tt.rel)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Remove: err %v, want one saying %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Remove: %v", err)
			}
			m, err := s.Resolve(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(m.SupersededIDs(), a); got != tt.wantSup {
				t.Errorf("b supersedes a afterwards: %v, want %v (supersedes %v, links %v)", got, tt.wantSup, m.Supersedes, m.Links)
			}
			var want []memory.Link
			for _, l := range tt.wantLeft {
				want = append(want, memory.Link{ID: a, Rel: l.Rel})
			}
			if !slices.Equal(m.Links, want) {
				t.Errorf("links left %v, want %v", m.Links, want)
			}
			var wantBy []string
			if tt.wantSup {
				wantBy = append(wantBy, b)
			}
			if tt.cToo {
				wantBy = append(wantBy, c)
			}
			slices.Sort(wantBy)
			by, err := s.SupersededBy(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(by, wantBy) {
				t.Errorf("a is superseded by %v, want %v", by, wantBy)
			}
			listed, err := s.List(ctx, contextfs.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			shown := slices.ContainsFunc(listed, func(e contextfs.Entry) bool { return e.ID == a })
			if shown != (len(wantBy) == 0) {
				t.Errorf("list shows a: %v, want %v", shown, len(wantBy) == 0)
			}
		})
	}
}
