package autoindex_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

var sources = map[string]string{
	"upload/retry.go": `package upload

import (
	"context"
	"time"
)

// RetryUpload sends a file again after a failure, waiting twice as long
// before each new attempt (exponential backoff), up to max attempts.
func RetryUpload(ctx context.Context, send func() error, max int) error {
	wait := 100 * time.Millisecond
	var err error
	for i := 0; i < max; i++ {
		if err = send(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
	return err
}
`,
	"config/config.go": `package config

import (
	"encoding/json"
	"os"
)

// Config is the server's configuration file.
type Config struct {
	Addr     string
	Database string
}

// ParseConfig reads the JSON configuration file at path.
func ParseConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	return &c, json.Unmarshal(b, &c)
}
`,
	"server/server.py": `"""HTTP server helpers."""

class RateLimiter:
    """Token bucket that throttles incoming requests per client."""

    def __init__(self, rate):
        self.rate = rate
        self.tokens = {}

    def allow(self, client):
        """Return True if the client may make another request now."""
        return self.tokens.get(client, self.rate) > 0


def start_server(port):
    """Start listening for HTTP connections on port."""
    print("listening on", port)
`,
	"web/cart.ts": `export interface Item { sku: string; price: number }

/** Sum the prices of every item in the shopping cart. */
export function cartTotal(items: Item[]): number {
  return items.reduce((sum, i) => sum + i.price, 0);
}
`,
	"README.md": "# Demo\n\nA demo service.\n\n## Uploads\n\nUploads are retried with backoff.\n",
}

func setup(t *testing.T) (string, *contextfs.Store) {
	t.Helper()
	dir := testgit.Init(t)
	for p, c := range sources {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "Add upload retries and config parsing")
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return dir, s
}

func index(t *testing.T, s *contextfs.Store) *contextfs.IndexResult {
	t.Helper()
	r, err := s.Index(context.Background(), contextfs.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSearchFindsCode(t *testing.T) {
	_, s := setup(t)
	index(t, s)
	tests := []struct {
		name, query, mode, wantSymbol string
		within                        int
	}{
		{"a function's name finds its chunk first", "ParseConfig", "hybrid", "ParseConfig", 1},
		{"a method's name finds the small class that holds it", "allow", "keyword", "RateLimiter", 1},
		{"a description finds the function in the top results", "where do we retry failed uploads", "hybrid", "RetryUpload", 3},
		{"a description finds a TypeScript function", "total price of the shopping cart", "hybrid", "cartTotal", 3},
		{"a description finds a Python class", "throttle requests per client", "semantic", "RateLimiter", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Search(context.Background(), contextfs.Query{Text: tt.query, Types: []string{"code"}, Mode: tt.mode, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if i >= tt.within {
					break
				}
				if r.Symbol == tt.wantSymbol {
					if r.Kind != "code" || r.StartLine == 0 || !strings.Contains(r.ID, r.Path+":") {
						t.Errorf("result lacks a location: %+v", r)
					}
					return
				}
			}
			var got []string
			for _, r := range res {
				got = append(got, r.Symbol)
			}
			t.Fatalf("%q: got %v, want %s within the top %d", tt.query, got, tt.wantSymbol, tt.within)
		})
	}
	t.Run("commits are searchable with their SHA", func(t *testing.T) {
		res, err := s.Search(context.Background(), contextfs.Query{Text: "upload retries", Types: []string{"commit"}})
		if err != nil || len(res) == 0 || res[0].Kind != "commit" || len(res[0].ID) != 40 {
			t.Fatalf("%+v %v", res, err)
		}
		// Any unique prefix git would take (4 characters or more).
		for _, n := range []int{40, 8, 4} {
			x, ok, err := s.RecallIndexed(context.Background(), res[0].ID[:n])
			if err != nil || !ok || !strings.Contains(x.Text, "upload/retry.go") {
				t.Fatalf("recall commit by %d characters of its SHA: %+v %v %v", n, x, ok, err)
			}
		}
	})
	t.Run("recall of a code result prints the chunk", func(t *testing.T) {
		res, _ := s.Search(context.Background(), contextfs.Query{Text: "ParseConfig", Types: []string{"code"}, Limit: 1})
		x, ok, err := s.RecallIndexed(context.Background(), res[0].ID)
		if err != nil || !ok || !strings.Contains(x.Text, "func ParseConfig") || x.Path != "config/config.go" {
			t.Fatalf("recall code: %+v %v %v", x, ok, err)
		}
	})
	t.Run("nothing is written under .contextfs", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(s.Repo.Root, ".contextfs")); !os.IsNotExist(err) {
			t.Fatalf(".contextfs exists after indexing: %v", err)
		}
	})
}

func TestIncrementalIndexing(t *testing.T) {
	dir, s := setup(t)
	first := index(t, s)
	if first.Parsed != len(sources) {
		t.Fatalf("first index parsed %d files, want %d", first.Parsed, len(sources))
	}
	t.Run("nothing changed parses nothing", func(t *testing.T) {
		if r := index(t, s); r.Parsed != 0 || r.Changed != 0 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("editing one file re-indexes that file only", func(t *testing.T) {
		p := filepath.Join(dir, "config", "config.go")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, append(b, []byte("\n// DefaultAddr is where the server listens.\nconst DefaultAddr = \":8080\"\n")...), 0o644)
		testgit.Run(t, dir, "commit", "-qam", "Add default address")
		st, err := s.IndexStatus(context.Background())
		if err != nil || len(st.Stale) != 1 || st.Stale[0] != "config/config.go" {
			t.Fatalf("index status before: %+v %v", st, err)
		}
		ix := s.Indexer(nil)
		cs, err := ix.IndexCode(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if cs.Analyzed != 1 || ix.Parses() != 1 {
			t.Fatalf("re-index analysed %d files with %d parses, want 1 and 1", cs.Analyzed, ix.Parses())
		}
		res, _ := s.Search(context.Background(), contextfs.Query{Text: "DefaultAddr", Types: []string{"code"}, Mode: "keyword"})
		if len(res) == 0 || !strings.Contains(res[0].Snippet+res[0].Symbol, "DefaultAddr") {
			t.Fatalf("new code not found: %+v", res)
		}
	})
	// The path is part of what a chunk is found by, so a renamed file is
	// parsed again, alone.
	t.Run("a rename re-indexes the renamed file only", func(t *testing.T) {
		testgit.Run(t, dir, "mv", "upload/retry.go", "upload/backoff.go")
		testgit.Run(t, dir, "commit", "-qm", "rename")
		ix := s.Indexer(nil)
		cs, err := ix.IndexCode(context.Background(), nil)
		if err != nil || ix.Parses() != 1 || cs.Stale != 1 || cs.Removed != 1 {
			t.Fatalf("rename: %+v parses=%d %v", cs, ix.Parses(), err)
		}
		res, _ := s.Search(context.Background(), contextfs.Query{Text: "RetryUpload", Types: []string{"code"}, Mode: "keyword"})
		if len(res) == 0 || res[0].Path != "upload/backoff.go" {
			t.Fatalf("renamed file: %+v", res)
		}
	})
	t.Run("switching back to an indexed branch parses nothing", func(t *testing.T) {
		testgit.Run(t, dir, "checkout", "-qb", "feature")
		os.WriteFile(filepath.Join(dir, "web", "cart.ts"), []byte("export function cartTotal(): number { return 0 }\n"), 0o644)
		testgit.Run(t, dir, "commit", "-qam", "stub cart")
		index(t, s)
		testgit.Run(t, dir, "checkout", "-q", "main")
		ix := s.Indexer(nil)
		if _, err := ix.IndexCode(context.Background(), nil); err != nil || ix.Parses() != 0 {
			t.Fatalf("switch back: parses=%d %v", ix.Parses(), err)
		}
	})
}

func TestFilesSkipsWhatItShould(t *testing.T) {
	dir, _ := setup(t)
	os.WriteFile(filepath.Join(dir, "go.sum"), []byte("example.com v1 h1:x\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "testdata"), 0o755)
	os.WriteFile(filepath.Join(dir, "testdata", "big.go"), []byte("package x\n"), 0o644)
	os.Symlink("config/config.go", filepath.Join(dir, "link.go"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("untracked notes about uploads\n"), 0o644)
	testgit.Run(t, dir, "add", "go.sum", "testdata", "link.go")
	testgit.Run(t, dir, "commit", "-qm", "more")
	os.MkdirAll(filepath.Join(dir, ".contextfs"), 0o755)
	cfg := "index:\n  exclude: [\"testdata/**\"]\n  include: [\"*.txt\"]\n"
	if err := os.WriteFile(filepath.Join(dir, ".contextfs", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// index.include of untracked files counts only in a trusted clone.
	testgit.Run(t, dir, "config", "contextfs.trustRepoConfig", "true")
	s2, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	r, err := s2.Index(context.Background(), contextfs.IndexOptions{Summary: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s2.IndexStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The run's count is what index status lists: the files left out
	// before reading (links) and after (lock files, binaries).
	if r.Skipped != len(st.Skipped) || r.Skipped < 2 {
		t.Errorf("index says %d skipped, index status lists %d: %+v", r.Skipped, len(st.Skipped), st.Skipped)
	}
	reasons := map[string]string{}
	for _, sk := range st.Skipped {
		reasons[sk.Path] = sk.Reason
	}
	if reasons["link.go"] != "symbolic link" || !strings.Contains(reasons["go.sum"], "lock") {
		t.Errorf("skip reasons: %v", reasons)
	}
	res, _ := s2.Search(context.Background(), contextfs.Query{Text: "untracked notes", Types: []string{"doc"}, Mode: "keyword"})
	if len(res) == 0 || res[0].Path != "notes.txt" {
		t.Errorf("include glob: %+v", res)
	}
	res, _ = s2.Search(context.Background(), contextfs.Query{Text: "package x", Types: []string{"code"}, Mode: "keyword"})
	for _, r := range res {
		if strings.HasPrefix(r.Path, "testdata/") {
			t.Errorf("excluded file indexed: %s", r.Path)
		}
	}
}

func TestChangingLanguagesRebuildsTheCodeIndex(t *testing.T) {
	dir, s := setup(t)
	index(t, s)
	cfg := "index:\n  languages: [python]\n"
	if err := os.MkdirAll(filepath.Join(dir, ".contextfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".contextfs", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	index(t, s2)
	st, err := s2.IndexStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Languages) != 1 || st.Languages["python"].Files != 1 {
		t.Fatalf("after restricting to python: %+v", st.Languages)
	}
	os.Remove(filepath.Join(dir, ".contextfs", "config.yaml"))
	s3, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	index(t, s3)
	if st, _ := s3.IndexStatus(context.Background()); st.Languages["go"].Files != 2 {
		t.Fatalf("after allowing every language again: %+v", st.Languages)
	}
}

// Commits already stored are named, not logged again, when the branch
// moves or switches back; the searchable commits and what recall shows of
// them must be what a fresh index of the same HEAD has.
func TestCommitsAfterBranchSwitchesAreAFreshIndexs(t *testing.T) {
	dir, s := setup(t)
	ctx := context.Background()
	edit := func(file, line, msg string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line + "\n")
		f.Close()
		testgit.Run(t, dir, "commit", "-qam", msg)
	}
	edit("README.md", "Uploads resume after a crash.", "Document resumable uploads")
	index(t, s)
	testgit.Run(t, dir, "checkout", "-qb", "feature")
	edit("config/config.go", "// Timeout bounds each request.", "Add a request timeout setting")
	index(t, s)
	testgit.Run(t, dir, "checkout", "-q", "-")
	edit("web/cart.ts", "// Totals are in cents.", "Keep cart totals in cents")
	index(t, s)

	commits := func(s *contextfs.Store) map[string]string {
		t.Helper()
		res, err := s.Search(ctx, contextfs.Query{Text: "uploads config timeout cart totals retries document", Types: []string{"commit"}, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range res {
			x, ok, err := s.RecallIndexed(ctx, r.ID)
			if err != nil || !ok {
				t.Fatalf("recall %s: %v %v", r.ID, ok, err)
			}
			out[r.ID] = x.Text
		}
		return out
	}
	got := commits(s)
	// The same HEAD indexed from nothing.
	if err := os.RemoveAll(filepath.Join(dir, ".git", "contextfs")); err != nil {
		t.Fatal(err)
	}
	s2, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	index(t, s2)
	want := commits(s2)
	if len(want) != 3 {
		t.Fatalf("a fresh index finds %d commits, want 3: %v", len(want), want)
	}
	for sha, text := range want {
		if got[sha] != text {
			t.Errorf("commit %s after switches:\n%q\nfresh:\n%q", sha[:8], got[sha], text)
		}
	}
	for sha := range got {
		if _, ok := want[sha]; !ok {
			t.Errorf("commit %s of another branch is still searchable", sha[:8])
		}
	}
}

// Memory IDs are hex in part: a short prefix that starts both a memory's
// ID and a commit's SHA is ambiguous, a memory's whole ID is the memory,
// and a prefix only a commit has is the commit.
func TestRecallOfAHexPrefixSharedByAMemoryAndACommit(t *testing.T) {
	dir, s := setup(t)
	index(t, s)
	ctx := context.Background()
	sha := testgit.Run(t, dir, "rev-parse", "HEAD")
	id := sha[:4] + "zzzzzz"
	mem := "---\nid: " + id + "\ntype: fact\ntitle: Hex prefix\ncreated: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nShares a prefix.\n"
	if err := os.MkdirAll(filepath.Join(dir, ".contextfs", "memories"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".contextfs", "memories", "hex.md"), []byte(mem), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var amb *contextfs.AmbiguousError
	if _, ok, err := s.RecallIndexed(ctx, sha[:4]); ok || !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Errorf("recall %s: ok=%v err=%v; want it ambiguous between the commit and %s", sha[:4], ok, err, id)
	}
	if _, ok, err := s.RecallIndexed(ctx, sha[:8]); !ok || err != nil {
		t.Errorf("recall %s: ok=%v err=%v; want the commit", sha[:8], ok, err)
	}
	if _, ok, err := s.RecallIndexed(ctx, id); ok || err != nil {
		t.Errorf("recall %s: ok=%v err=%v; want no commit, so that the memory is recalled", id, ok, err)
	}
}
