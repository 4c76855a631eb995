package contextfs_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// Save validates a memory before writing it, and a link is part of it: the
// links a save is given are checked as `link` checks its target (a unique
// prefix becomes the full ID, a missing or ambiguous one is refused) and as
// `validate` would judge the file, so save never writes a memory that
// validate rejects.
func TestSaveResolvesAndChecksLinks(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	// Two hand-written IDs that share a prefix, and one saved memory.
	for _, id := range []string{"abcd1111", "abcd2222"} {
		writeMemory(t, dir, id)
	}
	s := open(t, dir)
	res, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The API listens on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Memory.ID
	tests := []struct {
		name  string
		links []string
		want  []memory.Link // nil: refused
		check func(error) bool
		names string // what the error must name
	}{
		{"a unique prefix becomes the full ID", []string{"depends_on:" + a[:5]}, []memory.Link{{ID: a, Rel: "depends_on"}}, nil, ""},
		{"a bare prefix is a related link to the full ID", []string{a[:4]}, []memory.Link{{ID: a, Rel: memory.RelRelated}}, nil, ""},
		{"a prefix and the full ID are one link", []string{a[:5], a}, []memory.Link{{ID: a, Rel: memory.RelRelated}}, nil, ""},
		{"an exact hand-written ID", []string{"part_of:abcd1111"}, []memory.Link{{ID: "abcd1111", Rel: "part_of"}}, nil, ""},
		{"a URL is kept as it is", []string{"https://example.com/api", "references:https://go.dev/doc"},
			[]memory.Link{{ID: "https://example.com/api", Rel: memory.RelRelated}, {ID: "https://go.dev/doc", Rel: "references"}}, nil, ""},
		{"a missing target is refused", []string{"depends_on:zzzzzzzzzz"}, nil,
			func(err error) bool { return errors.Is(err, contextfs.ErrNotFound) }, "zzzzzzzzzz"},
		{"a missing bare target is refused", []string{a, "nowhere99"}, nil,
			func(err error) bool { return errors.Is(err, contextfs.ErrNotFound) }, "nowhere99"},
		{"an ambiguous prefix is refused", []string{"abcd"}, nil,
			func(err error) bool { var ae *contextfs.AmbiguousError; return errors.As(err, &ae) }, "abcd2222"},
		{"an unknown relation is refused", []string{"bogus:" + a}, nil,
			func(err error) bool { return errors.Is(err, memory.ErrRel) }, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := s.Repo.List()
			res, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Links: tt.links, Body: "A memory with links: " + tt.name})
			if tt.want == nil {
				if err == nil || !tt.check(err) || !strings.Contains(err.Error(), tt.names) {
					t.Fatalf("err = %v, want a refusal naming %s", err, tt.names)
				}
				if after, _ := s.Repo.List(); len(after) != len(before) {
					t.Errorf("%d files after a refused save, want %d", len(after), len(before))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Memory.Links, tt.want) {
				t.Errorf("links = %v, want %v", res.Memory.Links, tt.want)
			}
			got, err := s.Read(res.Memory.Path)
			if err != nil || !reflect.DeepEqual(got.Links, tt.want) {
				t.Errorf("the file's links = %v (%v), want %v", got.Links, err, tt.want)
			}
		})
	}
}

// writeMemory writes a minimal valid memory file with the given ID.
func writeMemory(t *testing.T, dir, id string) {
	t.Helper()
	write(t, dir, ".contextfs/memories/"+id+".md", "---\nid: "+id+"\ntype: fact\ntitle: T "+id+
		"\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\n---\nBody of "+id+".\n")
}

// An update checks the links it adds as a save does, and leaves the links
// the memory had alone: a dangling one (validate's to report) must not
// block an unrelated edit.
func TestUpdateChecksTheLinksItAdds(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	writeMemory(t, dir, "abcd1111")
	// A memory whose link already dangles, as a hand edit can leave it.
	write(t, dir, ".contextfs/memories/dang0001.md", "---\nid: dang0001\ntype: fact\ntitle: T dang0001\nlinks:\n  - gone0000\n"+
		"created: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\n---\nBody.\n")
	s := open(t, dir)
	tests := []struct {
		name  string
		edit  func(m *memory.Memory)
		want  []memory.Link // nil: refused
		names string
	}{
		{"an unrelated edit keeps a dangling link", func(m *memory.Memory) { m.Tags = append(m.Tags, "ops") },
			[]memory.Link{{ID: "gone0000", Rel: memory.RelRelated}}, ""},
		{"an added prefix becomes the full ID", func(m *memory.Memory) {
			m.Links = append(m.Links, memory.Link{ID: "abcd", Rel: "depends_on"})
		}, []memory.Link{{ID: "gone0000", Rel: memory.RelRelated}, {ID: "abcd1111", Rel: "depends_on"}}, ""},
		{"an added missing target is refused", func(m *memory.Memory) {
			m.Links = append(m.Links, memory.Link{ID: "zzzzzzzzzz", Rel: "depends_on"})
		}, nil, "zzzzzzzzzz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := s.Repo.ReadFile(".contextfs/memories/dang0001.md")
			m, err := s.Update(ctx, "dang0001", func(m *memory.Memory) error { tt.edit(m); return nil })
			if tt.want == nil {
				if err == nil || !errors.Is(err, contextfs.ErrNotFound) || !strings.Contains(err.Error(), tt.names) {
					t.Fatalf("err = %v, want a refusal naming %s", err, tt.names)
				}
				if now, _ := s.Repo.ReadFile(".contextfs/memories/dang0001.md"); string(now) != string(raw) {
					t.Error("a refused update wrote the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Links, tt.want) {
				t.Errorf("links = %v, want %v", m.Links, tt.want)
			}
		})
	}
}

func TestLinkedFromNamesWhatADeletionLeavesDangling(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	s := open(t, dir)
	target, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The API listens on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	id := target.Memory.ID
	var want []string
	for _, l := range []string{"depends_on:" + id, id} {
		r, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Links: []string{l}, Body: "Linked by " + l})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r.Memory.ID)
	}
	// A newer version superseding it is history, not a dangling link.
	if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Supersedes: []string{id}, Body: "The API listens on port 9090."}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	got, err := s.LinkedFrom(ctx, id)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("LinkedFrom = %v, %v; want %v", got, err, want)
	}
	if got, err := s.LinkedFrom(ctx, want[0]); err != nil || len(got) != 0 {
		t.Errorf("LinkedFrom an unlinked memory = %v, %v", got, err)
	}
}

// Two files holding one ID (a copy, a merge gone wrong): recall, update
// and delete must say so, not pick one and hide the other.
func TestAnIDHeldByTwoFilesIsReportedNotPicked(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	for _, name := range []string{"a", "b"} {
		write(t, dir, ".contextfs/memories/"+name+".md", "---\nid: dupe0001\ntype: fact\ntitle: T "+name+
			"\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\n---\nBody of "+name+".\n")
	}
	s := open(t, dir)
	for _, id := range []string{"dupe0001", "dupe"} {
		_, err := s.Resolve(ctx, id)
		if err == nil || !strings.Contains(err.Error(), "a.md") || !strings.Contains(err.Error(), "b.md") {
			t.Errorf("Resolve(%q) = %v; want an error naming both files", id, err)
		}
	}
	if _, err := s.Delete(ctx, "dupe0001"); err == nil {
		t.Error("delete picked one of two files holding the ID")
	}
}
