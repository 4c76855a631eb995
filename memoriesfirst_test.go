package contextfs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
)

// releaseRepo is a repository whose code, docs and commits talk about
// releases, with the team's release procedure as one memory among others.
func releaseRepo(t *testing.T) (*contextfs.Store, string) {
	t.Helper()
	ctx := context.Background()
	dir := testgit.Init(t)
	s := open(t, dir)
	var code strings.Builder
	code.WriteString("package release\n\n")
	for i := range 12 {
		fmt.Fprintf(&code, "// CutRelease%d cuts a release: it tags the release commit and writes the release notes.\nfunc CutRelease%d(version string) error { return tagRelease(version) }\n\n", i, i)
	}
	testgit.WriteFile(t, dir, "release/release.go", code.String())
	// Code about other things, so that "release" is a rare word of the
	// code index, as in a real repository, and ranks its chunks high.
	for i := range 40 {
		testgit.WriteFile(t, dir, fmt.Sprintf("router/route%d.go", i), fmt.Sprintf(
			"package router\n\n// Route%d matches a request path against pattern %d and calls the handler.\nfunc Route%d(path string) bool { return match(path, %d) }\n", i, i, i, i))
	}
	testgit.WriteFile(t, dir, "CHANGELOG.md", "# Changelog\n\n## v1.2.0\n\nRelease notes for the release of v1.2.0; cut a release from main.\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "release: cut a release with release notes")
	for i := range 5 {
		testgit.WriteFile(t, dir, fmt.Sprintf("notes/v1.%d.md", i), "Release notes.\n")
		testgit.Run(t, dir, "add", "-A")
		testgit.Run(t, dir, "commit", "-qm", fmt.Sprintf("Cut release v1.%d.0", i))
	}
	proc := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "procedural", Title: "How we ship a version",
		Body: "Run make bench, then tag the release commit vX.Y.Z on main and push the tag; CI publishes the archives."})
	teststore.SaveID(t, s, contextfs.SaveRequest{Type: "decision", Title: "We use PostgreSQL", Body: "PostgreSQL with pgxpool, 20 connections per instance."})
	teststore.SaveID(t, s, contextfs.SaveRequest{Type: "user", Title: "Prefer table-driven tests", Body: "Table-driven tests, please."})
	if _, err := s.Index(ctx, contextfs.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	return s, proc
}

func TestMemoriesRankBeforeCodeDocsAndCommits(t *testing.T) {
	s, proc := releaseRepo(t)
	res, err := s.Search(context.Background(), contextfs.Query{Text: "how do I cut a release", Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range res {
		kinds[r.Kind]++
	}
	if kinds["code"] == 0 || kinds["commit"]+kinds["doc"] == 0 {
		t.Fatalf("the test is void: code, docs and commits do not match (%v)", kinds)
	}
	if res[0].ID != proc {
		var got []string
		for _, r := range res {
			got = append(got, r.Kind+":"+r.ID)
		}
		t.Errorf("the release procedure %s is not first: %v", proc, got)
	}
}

func TestKindKeepsOnlyResultsOfThatKind(t *testing.T) {
	s, _ := releaseRepo(t)
	tests := []struct {
		name  string
		kinds []string
		types []string
		want  []string
	}{
		{"memory", []string{"memory"}, nil, []string{"memory"}},
		{"code", []string{"code"}, nil, []string{"code"}},
		{"doc", []string{"doc"}, nil, []string{"doc"}},
		{"commit", []string{"commit"}, nil, []string{"commit"}},
		{"two kinds", []string{"memory", "commit"}, nil, []string{"memory", "commit"}},
		{"a comma-separated list", []string{"code,doc"}, nil, []string{"code", "doc"}},
		{"a type narrows within a kind", []string{"memory"}, []string{"procedural"}, []string{"memory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Search(context.Background(), contextfs.Query{Text: "cut a release", Kinds: tt.kinds, Types: tt.types, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 {
				t.Fatal("no results")
			}
			for _, r := range res {
				ok := false
				for _, w := range tt.want {
					ok = ok || r.Kind == w
				}
				if !ok {
					t.Errorf("%s of kind %s, want %v", r.ID, r.Kind, tt.want)
				}
				if tt.types != nil && r.Type != tt.types[0] {
					t.Errorf("%s of type %s, want %s", r.ID, r.Type, tt.types[0])
				}
			}
		})
	}
	if _, err := s.Search(context.Background(), contextfs.Query{Text: "x", Kinds: []string{"memories"}}); err == nil || !strings.Contains(err.Error(), `unknown kind "memories"`) {
		t.Errorf("an unknown kind: %v", err)
	}
}
