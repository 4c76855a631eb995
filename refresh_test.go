package contextfs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// hookMemory returns a valid memory file with the given id, type-specific
// frontmatter lines and body.
func hookMemory(id, extra, body string) string {
	return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\n" + extra +
		"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\n" + body
}

func writeRepoFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitInRepo runs git the way a hook does: from the top of the work tree,
// with the test's isolated configuration.
func gitInRepo(t *testing.T, dir string, args ...string) {
	t.Helper()
	testgit.Run(t, dir, args...)
}

// isolateGit makes the git processes the API starts see only the test's
// repositories: no user or system config, and none of the variables git
// sets when go test itself runs from a hook.
func isolateGit(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func TestHookRefreshSyncsMemoriesButNeverStartsAFirstCodeIndex(t *testing.T) {
	isolateGit(t)
	dir := testgit.Init(t)
	writeRepoFile(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	writeRepoFile(t, dir, ".contextfs/a.md", hookMemory("aaaa1111", "", "A\n"))
	gitInRepo(t, dir, "add", "-A")
	gitInRepo(t, dir, "commit", "-q", "--no-verify", "-m", "base")
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	r, err := s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 1 || r.Changed != 1 || r.Code {
		t.Errorf("first Refresh = %+v, want 1 memory, 1 changed, no code index", r)
	}
	if s.Cache().Meta(ctx, "code:last") != "" {
		t.Error("Refresh built a first code index")
	}

	// Once an index exists, Refresh keeps it current.
	if _, err := s.Index(ctx, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	writeRepoFile(t, dir, ".contextfs/b.md", hookMemory("bbbb2222", "", "B\n"))
	r, err = s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 2 || r.Changed != 1 || !r.Code {
		t.Errorf("second Refresh = %+v, want 2 memories, 1 changed, code index updated", r)
	}
}
