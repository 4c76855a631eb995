package lineage_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/lineage"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
	"github.com/contextfs/contextfs/memory"
)

func open(t *testing.T) (*contextfs.Store, string) {
	t.Helper()
	dir := testgit.Init(t)
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestBadRequestsWriteNothing(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	fact, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "CI runs on GitHub Actions."})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Body: "We deploy with Argo CD."})
	if err != nil {
		t.Fatal(err)
	}
	blank := " \n\t"
	var request *lineage.RequestError
	tests := []struct {
		name string
		run  func() error
		want string
		// usage: the error is a *RequestError, which the CLI makes exit 2.
		usage bool
	}{
		{"evolve with an unknown reason", func() error {
			_, err := lineage.Evolve(ctx, s, fact.Memory.ID, lineage.Change{Body: "x", Reason: "whim"})
			if !errors.Is(err, lineage.ErrReason) {
				t.Errorf("err %v is not ErrReason", err)
			}
			return err
		}, "unknown reason", false},
		{"evolve of a missing memory", func() error {
			_, err := lineage.Evolve(ctx, s, "zzzz9999", lineage.Change{Body: "x"})
			return err
		}, "zzzz9999", false},
		{"evolve with no content", func() error {
			_, err := lineage.Evolve(ctx, s, fact.Memory.ID, lineage.Change{Reason: "decay"})
			return noContent(t, err)
		}, "needs content", false},
		{"evolve with blank content", func() error {
			_, err := lineage.Evolve(ctx, s, fact.Memory.ID, lineage.Change{Body: blank, Title: "A title"})
			return noContent(t, err)
		}, "needs content", false},
		{"merge of one memory", func() error { _, err := lineage.Merge(ctx, s, []string{fact.Memory.ID}, nil, nil); return err }, "at least two", true},
		{"merge of a memory with itself", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID, fact.Memory.ID}, nil, nil)
			return err
		}, "named twice", true},
		{"merge of a memory with its prefix", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID[:5], fact.Memory.ID}, nil, nil)
			return err
		}, "named twice", true},
		{"merge across types", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID, dec.Memory.ID}, nil, nil)
			return err
		}, "one type", false},
		{"merge with empty content", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID, dec.Memory.ID}, new(""), nil)
			return noContent(t, err)
		}, "needs content", false},
		{"merge with blank content", func() error {
			_, err := lineage.Merge(ctx, s, []string{fact.Memory.ID, dec.Memory.ID}, &blank, nil)
			return noContent(t, err)
		}, "needs content", false},
		{"split into one part", func() error { _, err := lineage.Split(ctx, s, fact.Memory.ID, []string{"only"}, nil); return err }, "at least two", true},
		{"split with an empty part", func() error { _, err := lineage.Split(ctx, s, fact.Memory.ID, []string{"a", " "}, nil); return err }, "part 2 is empty", true},
		{"split into the same part twice", func() error {
			_, err := lineage.Split(ctx, s, fact.Memory.ID, []string{"CI runs.", "On GitHub.", " CI runs.\n"}, nil)
			return err
		}, "parts 1 and 3 are the same", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if errors.As(err, &request) != tt.usage {
				t.Errorf("err %v (%T): a *RequestError is %v, want %v", err, err, !tt.usage, tt.usage)
			}
			if es, _ := s.Repo.List(); len(es) != 2 {
				t.Errorf("%d files after a refused request, want 2", len(es))
			}
		})
	}
}

// noContent checks that err is ErrNoContent, and returns it.
func noContent(t *testing.T, err error) error {
	t.Helper()
	if !errors.Is(err, lineage.ErrNoContent) {
		t.Errorf("err %v is not ErrNoContent", err)
	}
	return err
}

// A memory that a newer version supersedes is not changed again: that
// would fork its chain into several current versions, and a merge with
// what replaced it would bring its stale body back. The error names the
// current versions to change instead.
func TestSupersededMemoriesAreNotChangedAgain(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	save := func(body string) string {
		t.Helper()
		res, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	evolve := func(id, body string) string {
		t.Helper()
		res, err := lineage.Evolve(ctx, s, id, lineage.Change{Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	v1 := save("Cache TTL is 60 seconds.")
	v2 := evolve(v1, "Cache TTL is 120 seconds.")
	v3 := evolve(v2, "Cache TTL is 300 seconds.")
	other := save("Sessions expire after a day.")
	tests := []struct {
		name  string
		run   func() error
		heads []string
		want  string
	}{
		{"evolve of the first version", func() error {
			_, err := lineage.Evolve(ctx, s, v1, lineage.Change{Body: "Cache TTL is 600 seconds."})
			return err
		}, []string{v3}, v1 + " is superseded by " + v2 + ", whose current version is " + v3 + "; evolve " + v3 + " instead"},
		{"evolve of the middle version, by prefix", func() error {
			_, err := lineage.Evolve(ctx, s, v2[:6], lineage.Change{Body: "Cache TTL is 600 seconds."})
			return err
		}, []string{v3}, v2 + " is superseded by " + v3 + "; evolve " + v3 + " instead"},
		{"merge with a superseded memory", func() error {
			_, err := lineage.Merge(ctx, s, []string{other, v2}, nil, nil)
			return err
		}, []string{v3}, "; merge " + v3 + " instead"},
		{"merge of a memory with what replaced it", func() error {
			_, err := lineage.Merge(ctx, s, []string{v3, v2}, nil, nil)
			return err
		}, []string{v3}, "this merge includes " + v3 + ", so leave " + v2 + " out"},
		{"split of a superseded memory", func() error {
			_, err := lineage.Split(ctx, s, v1, []string{"Cache TTL is set.", "It is in seconds."}, nil)
			return err
		}, []string{v3}, "; split " + v3 + " instead"},
	}
	before, _ := s.Repo.List()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			var se *contextfs.SupersededError
			if !errors.As(err, &se) || !slices.Equal(se.Heads, tt.heads) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a *SupersededError with heads %v saying %q", err, tt.heads, tt.want)
			}
			if after, _ := s.Repo.List(); len(after) != len(before) {
				t.Errorf("%d files after a refused request, want %d", len(after), len(before))
			}
		})
	}
	// The current version is still open to every change.
	if _, err := lineage.Merge(ctx, s, []string{v3, other}, nil, nil); err != nil {
		t.Fatalf("merge of current memories: %v", err)
	}
}

// A title the old version derived from its body is derived again from the
// new body, or the new version's title would contradict it; a title
// written by hand, or given for the new version, is kept.
func TestEvolveDerivesTheTitleItDerivedBefore(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	tests := []struct {
		name              string
		oldTitle, oldBody string
		change            lineage.Change
		want              string
	}{
		{"a derived title is derived again", "", "Cache TTL is 60 seconds.",
			lineage.Change{Body: "Cache TTL is 120 seconds."}, "Cache TTL is 120 seconds."},
		{"a derived heading is derived again", "", "# Cache TTL: 60 s\n\nSet in config.yaml.",
			lineage.Change{Body: "# Cache TTL: 120 s\n\nSet in config.yaml."}, "Cache TTL: 120 s"},
		{"a hand-written title is kept", "Cache TTL", "Cache TTL is 60 seconds.",
			lineage.Change{Body: "Cache TTL is 120 seconds."}, "Cache TTL"},
		{"a given title wins over a derived one", "", "Cache TTL is 60 seconds.",
			lineage.Change{Body: "Cache TTL is 120 seconds.", Title: "TTL of the cache"}, "TTL of the cache"},
		{"a given title wins over a hand-written one", "Cache TTL", "Cache TTL is 60 seconds.",
			lineage.Change{Body: "Cache TTL is 120 seconds.", Title: " TTL of the cache "}, "TTL of the cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Title: tt.oldTitle, Body: tt.oldBody})
			if err != nil {
				t.Fatal(err)
			}
			res, err := lineage.Evolve(ctx, s, old.Memory.ID, tt.change)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Read(res.Memory.Path)
			if err != nil || got.Title != tt.want {
				t.Errorf("new title %q (%v), want %q", got.Title, err, tt.want)
			}
		})
	}
}

func TestEvolveKeepsWhatItDoesNotChange(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	old, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Pool size", Tags: []string{"db"},
		Links: []string{"https://example.com/pgx"}, Data: map[string]any{"decision": "20", "status": "accepted"}, Body: "Twenty."})
	if err != nil {
		t.Fatal(err)
	}
	res, err := lineage.Evolve(ctx, s, old.Memory.ID, lineage.Change{Body: "Forty.", Reason: "decay"})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	if m.Title != "Pool size" || m.Body != "Forty.\n" || m.Tags[0] != "db" || m.Links[0].ID != "https://example.com/pgx" ||
		m.Data["decision"] != "20" || m.Reason != "decay" || m.Supersedes[0] != old.Memory.ID {
		t.Errorf("evolved = %+v", m)
	}
	vs, err := lineage.Lineage(ctx, s, old.Memory.ID)
	if err != nil || len(vs) != 2 || vs[1].ID != m.ID || len(vs[0].Commits) != 0 {
		t.Errorf("lineage = %+v, %v (nothing committed: no commits)", vs, err)
	}
}

// A link of rel supersedes is a step of the chain as a supersedes: entry
// is: the lineage through any version, the oldest, one superseded by a
// link or the newest, holds the whole chain, in the order the versions
// replace one another (not the order of their times), each with what it
// supersedes and what supersedes it, both ways counted.
func TestLineageFollowsLinksOfRelSupersedes(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	// Each memory is created earlier than the one before: the order of
	// the chain must come from what replaces what.
	clock := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin(), Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	save := func(req contextfs.SaveRequest) string {
		t.Helper()
		clock = clock.Add(-time.Hour)
		res, err := s.Save(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	a := save(contextfs.SaveRequest{Type: "fact", Body: "Backups run nightly."})
	b := save(contextfs.SaveRequest{Type: "fact", Body: "Backups run hourly.", Links: []string{"supersedes:" + a}})
	c := save(contextfs.SaveRequest{Type: "fact", Body: "Backups run every ten minutes.", Supersedes: []string{b}})
	type version struct {
		id         string
		supersedes []string
		by         []string
	}
	want := []version{{a, nil, []string{b}}, {b, []string{a}, []string{c}}, {c, []string{b}, nil}}
	tests := []struct{ name, start string }{
		{"from the oldest version", a},
		{"from the version that supersedes by a link", b},
		{"from the newest version", c},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := lineage.Lineage(ctx, s, tt.start)
			if err != nil {
				t.Fatal(err)
			}
			var got []version
			for _, v := range vs {
				got = append(got, version{v.ID, v.Supersedes, v.SupersededBy})
				if v.Current != (len(v.SupersededBy) == 0) {
					t.Errorf("%s: current %v, superseded by %v", v.ID, v.Current, v.SupersededBy)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("lineage = %+v\nwant %+v", got, want)
			}
		})
	}
}

// A new version replaces the old one only: the old version's own links of
// rel supersedes stay with it, or the chain a → b → c would also read a → c
// and the lineage would lose its order.
func TestNewVersionsDoNotTakeTheOldVersionsSupersedesLinks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		write func(s *contextfs.Store, b, other string) (string, error)
	}{
		{"evolve", func(s *contextfs.Store, b, _ string) (string, error) {
			res, err := lineage.Evolve(ctx, s, b, lineage.Change{Body: "Backups run every ten minutes.", Reason: "observation"})
			if err != nil {
				return "", err
			}
			return res.Memory.ID, nil
		}},
		{"merge", func(s *contextfs.Store, b, other string) (string, error) {
			res, err := lineage.Merge(ctx, s, []string{b, other}, nil, nil)
			if err != nil {
				return "", err
			}
			return res.Memory.ID, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := open(t)
			save := func(req contextfs.SaveRequest) string { t.Helper(); return teststore.SaveID(t, s, req) }
			a := save(contextfs.SaveRequest{Type: "fact", Body: "Backups run nightly."})
			b := save(contextfs.SaveRequest{Type: "fact", Body: "Backups run hourly.", Links: []string{"supersedes:" + a, "https://example.com/backups"}})
			other := save(contextfs.SaveRequest{Type: "fact", Body: "Backups are kept for thirty days."})
			c, err := tt.write(s, b, other)
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.Resolve(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if ids := m.SupersededIDs(); slices.Contains(ids, a) {
				t.Errorf("the new version %s supersedes %v: %s came with the old version's link", c, ids, a)
			}
			if !slices.ContainsFunc(m.Links, func(l memory.Link) bool { return l.ID == "https://example.com/backups" }) {
				t.Errorf("the new version's links %+v lost the old version's other link", m.Links)
			}
			vs, err := lineage.Lineage(ctx, s, a)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for _, v := range vs {
				got = append(got, v.Supersedes)
			}
			if len(vs) < 3 || !slices.Equal(vs[len(vs)-1].Supersedes, m.SupersededIDs()) || slices.Contains(vs[len(vs)-1].Supersedes, a) {
				t.Errorf("lineage from %s: supersedes per version %v", a, got)
			}
		})
	}
}
