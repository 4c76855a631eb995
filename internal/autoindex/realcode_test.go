package autoindex_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"

	// go-git's source is the real code these tests index. No program of
	// ours links go-git any more (package gitindex reads git's index);
	// this import of its smallest package keeps the module in go.mod, so
	// that `go mod download` puts the source in the module cache.
	_ "github.com/go-git/go-git/v5/plumbing/filemode"
)

// goGitSource locates go-git's source in the module cache: it is one of
// this module's test dependencies, so `go mod download` puts it there.
func goGitSource(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-git/go-git/v5").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go-git source not found (run `go mod download`): %v", err)
	}
	return dir
}

func TestSearchRealCode(t *testing.T) {
	src := goGitSource(t)
	dir := testgit.Init(t)
	// A real code base of a few hundred files: go-git's root package and
	// its plumbing/object package.
	for _, sub := range []string{".", "plumbing/object"} {
		ents, err := os.ReadDir(filepath.Join(src, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, sub, e.Name())
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "import go-git")
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Index(context.Background(), contextfs.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, query, want string
		within            int
	}{
		{"a function's name finds its chunk first", "ResolveRevision", "Repository.ResolveRevision", 1},
		{"another function's name finds its chunk first", "PlainCloneContext", "PlainCloneContext", 1},
		{"a description finds the function in the top results", "resolve a revision to a commit hash", "Repository.ResolveRevision", 5},
		{"a description of a method finds it in the top results", "walk the commit history in order", "NewCommitPreorderIter", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Search(context.Background(), contextfs.Query{Text: tt.query, Types: []string{"code"}, Limit: tt.within})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				got = append(got, r.Symbol)
				if r.Symbol == tt.want {
					return
				}
			}
			t.Fatalf("%q: top %d = %v, want %q among them", tt.query, tt.within, got, tt.want)
		})
	}
}
