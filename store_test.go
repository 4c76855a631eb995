package contextfs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
	"github.com/contextfs/contextfs/memory"
)

func open(t *testing.T, dir string) *contextfs.Store {
	t.Helper()
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type seed struct {
	typ, title, body string
	tags             []string
	data             map[string]any
}

var seeds = []seed{
	{"decision", "Pool Postgres connections with pgxpool", "We pool database connections with pgxpool: twenty connections per instance, one pool per process.", []string{"db"},
		map[string]any{"decision": "pgxpool, 20 per instance", "status": "accepted", "rationale": "native pooling"}},
	{"fact", "Staging runs on Kubernetes 1.29", "The staging cluster runs Kubernetes 1.29 on three nodes in eu-west-1.", []string{"infra"},
		map[string]any{"category": "infrastructure", "confidence": 0.9}},
	{"error", "EADDRINUSE in parallel integration tests", "Integration tests failed with address already in use when run in parallel. Fix: listen on port 0 and read the chosen port back.", []string{"tests"},
		map[string]any{"error_type": "EADDRINUSE", "message": "bind: address already in use", "resolution": "listen on port 0"}},
	{"procedural", "Release checklist", "Run make bench, update the README figures, tag the release and push the tag.", []string{"release"}, nil},
	{"user", "Prefer table-driven tests", "The team prefers table-driven Go tests with names that state the behaviour.", nil,
		map[string]any{"preference_key": "test-style", "preference_value": "table-driven", "scope": "team"}},
}

func saveSeeds(t *testing.T, s *contextfs.Store) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, sd := range seeds {
		res, err := s.Save(context.Background(), contextfs.SaveRequest{Type: sd.typ, Title: sd.title, Body: sd.body, Tags: sd.tags, Data: sd.data})
		if err != nil {
			t.Fatalf("save %s: %v", sd.title, err)
		}
		ids[sd.title] = res.Memory.ID
	}
	return ids
}

func topTitles(t *testing.T, s *contextfs.Store, q contextfs.Query) []string {
	t.Helper()
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res {
		out = append(out, r.Title)
	}
	return out
}

func TestSearchFindsMemoriesByKeywordAndParaphrase(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	tests := []struct {
		name, query, mode, want string
	}{
		{"keyword query finds the decision", "pgxpool", "keyword", "Pool Postgres connections with pgxpool"},
		{"paraphrase finds the decision", "how do we pool db connections", "hybrid", "Pool Postgres connections with pgxpool"},
		{"paraphrase finds the error fix", "tests break because the port is already taken", "hybrid", "EADDRINUSE in parallel integration tests"},
		{"semantic mode finds the fact", "which kubernetes version is staging on", "semantic", "Staging runs on Kubernetes 1.29"},
		{"data fields are searchable", "native pooling", "keyword", "Pool Postgres connections with pgxpool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := topTitles(t, s, contextfs.Query{Text: tt.query, Mode: tt.mode, Limit: 3})
			if len(got) == 0 || got[0] != tt.want {
				t.Fatalf("top results for %q = %v, want %q first", tt.query, got, tt.want)
			}
		})
	}
	t.Run("filters by type and tag", func(t *testing.T) {
		got := topTitles(t, s, contextfs.Query{Text: "tests", Types: []string{"error"}})
		if len(got) != 1 || got[0] != "EADDRINUSE in parallel integration tests" {
			t.Fatalf("type filter: %v", got)
		}
		got = topTitles(t, s, contextfs.Query{Text: "release tests connections", Tags: []string{"release"}})
		if len(got) != 1 || got[0] != "Release checklist" {
			t.Fatalf("tag filter: %v", got)
		}
		if _, err := s.Search(context.Background(), contextfs.Query{Text: "x", Types: []string{"decison"}}); err == nil || !strings.Contains(err.Error(), "decision") {
			t.Fatalf("misspelt type should suggest decision, got %v", err)
		}
	})
}

func TestCacheIsDisposable(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	queries := []string{"how do we pool db connections", "port already in use", "kubernetes", "release"}
	results := func(s *contextfs.Store) [][]contextfs.Result {
		var out [][]contextfs.Result
		for _, q := range queries {
			r, err := s.Search(context.Background(), contextfs.Query{Text: q})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	before := results(s)
	s.Close()

	t.Run("deleting the cache gives identical results", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, ".git", "contextfs")); err != nil {
			t.Fatal(err)
		}
		if got := results(open(t, dir)); !reflect.DeepEqual(strip(got), strip(before)) {
			t.Fatalf("results differ after deleting the cache:\n%v\n%v", got, before)
		}
	})
	t.Run("a clone gives identical results", func(t *testing.T) {
		testgit.Run(t, dir, "add", "-A")
		testgit.Run(t, dir, "commit", "-qm", "memories")
		clone := filepath.Join(t.TempDir(), "clone")
		testgit.Run(t, dir, "clone", "-q", dir, clone)
		if got := results(open(t, clone)); !reflect.DeepEqual(strip(got), strip(before)) {
			t.Fatalf("results differ in a clone:\n%v\n%v", got, before)
		}
	})
	t.Run("a corrupt cache is rebuilt with a notice", func(t *testing.T) {
		db := filepath.Join(dir, ".git", "contextfs", cache.DBFile)
		os.Remove(db + "-wal")
		os.Remove(db + "-shm")
		if err := os.WriteFile(db, []byte(strings.Repeat("garbage ", 1000)), 0o644); err != nil {
			t.Fatal(err)
		}
		var notes strings.Builder
		s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin(), Notices: &notes})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := results(s); !reflect.DeepEqual(strip(got), strip(before)) {
			t.Fatalf("results differ after corruption")
		}
		if !strings.Contains(notes.String(), "cache rebuilt") {
			t.Fatalf("no notice: %q", notes.String())
		}
	})
}

// strip drops fields that legitimately differ between caches (row order is
// all that matters, plus IDs and scores).
func strip(rs [][]contextfs.Result) [][]string {
	var out [][]string
	for _, r := range rs {
		var ids []string
		for _, x := range r {
			ids = append(ids, fmt.Sprintf("%s %.4f", x.ID, x.Score))
		}
		out = append(out, ids)
	}
	return out
}

func TestBadFilesAreReportedNeverRewritten(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	bad := map[string]string{
		".contextfs/memories/broken-yaml.md":  "---\nid: brokenyaml1\ntype: fact\ntitle: x\nd: : e\n---\nbody\n",
		".contextfs/memories/wrong-type.md":   "---\nid: wrongtype1\ntype: decison\ntitle: Wrong type\ncreated: 2024-01-01T00:00:00Z\nupdated: 2024-01-01T00:00:00Z\n---\nbody\n",
		".contextfs/memories/bad-schema.md":   "---\nid: badschema1\ntype: decision\ntitle: Bad schema\ncreated: 2024-01-01T00:00:00Z\nupdated: 2024-01-01T00:00:00Z\ndata:\n  status: done\n---\nbody about pgxpool\n",
		".contextfs/memories/conflicted.md":   "---\nid: conflict01\ntype: fact\n<<<<<<< HEAD\ntitle: a\n=======\ntitle: b\n>>>>>>> other\n---\n",
		".contextfs/memories/duplicate-id.md": "",
	}
	first, _ := s.List(context.Background(), contextfs.ListOptions{})
	dupSrc, _ := os.ReadFile(filepath.Join(dir, first[0].Path))
	bad[".contextfs/memories/duplicate-id.md"] = string(dupSrc)
	for p, c := range bad {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probs, n, err := s.Validate(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(seeds)+len(bad) {
		t.Errorf("checked %d files", n)
	}
	want := map[string]struct {
		rule string
		line int
	}{
		".contextfs/memories/broken-yaml.md":  {"syntax", 5},
		".contextfs/memories/wrong-type.md":   {"type", 3},
		".contextfs/memories/bad-schema.md":   {"schema", 8},
		".contextfs/memories/conflicted.md":   {"conflict", 4},
		".contextfs/memories/duplicate-id.md": {"duplicate-id", 2},
	}
	got := map[string]contextfs.Problem{}
	for _, p := range probs {
		if _, seen := got[p.Path]; !seen {
			got[p.Path] = p
		}
	}
	for path, w := range want {
		p, ok := got[path]
		if path == ".contextfs/memories/duplicate-id.md" && !ok {
			// Either file of the pair may carry the report.
			p, ok = got[first[0].Path]
		}
		if !ok {
			t.Errorf("%s: no problem reported; got %v", path, probs)
			continue
		}
		if p.Rule != w.rule || p.Line != w.line {
			t.Errorf("%s: got %s (rule %s line %d), want rule %s line %d", path, p, p.Rule, p.Line, w.rule, w.line)
		}
	}
	// Everything else still works, and nothing was rewritten.
	if got := topTitles(t, s, contextfs.Query{Text: "pgxpool", Mode: "keyword"}); len(got) == 0 || got[0] != "Pool Postgres connections with pgxpool" {
		t.Fatalf("search with bad files present: %v", got)
	}
	if _, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Body: "still saving"}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(context.Background())
	if err != nil || len(st.Invalid) < 3 {
		t.Fatalf("status: %+v %v", st, err)
	}
	t.Run("recall of a memory whose file is broken names the file and line", func(t *testing.T) {
		_, err := s.Resolve(context.Background(), "brokenya")
		if err == nil || !strings.Contains(err.Error(), ".contextfs/memories/broken-yaml.md:5") || errors.Is(err, contextfs.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
	})
	for p, c := range bad {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		if string(b) != c {
			t.Errorf("%s was rewritten", p)
		}
	}
}

func TestSaveUpdateDeleteAndPrefixes(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	ids := saveSeeds(t, s)
	ctx := context.Background()
	id := ids["Release checklist"]

	m, err := s.Resolve(ctx, id[:5])
	if err != nil || m.ID != id {
		t.Fatalf("prefix resolve: %v %v", m, err)
	}
	if m.Author != "Ada Lovelace <ada@example.com>" {
		t.Errorf("author from git config = %q", m.Author)
	}
	if _, err := s.Resolve(ctx, "zzzzzzzzzz"); !errors.Is(err, contextfs.ErrNotFound) {
		t.Errorf("missing ID: %v", err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, m.Path))
	up, err := s.Update(ctx, id[:6], func(m *memory.Memory) error { m.Tags = append(m.Tags, "ci"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, up.Path))
	if up.Path != m.Path {
		t.Fatalf("update moved the file: %s -> %s", m.Path, up.Path)
	}
	if d := diffLines(string(before), string(after)); d != 2 {
		t.Errorf("update changed %d lines, want 2 (a tag and updated):\n%s\n%s", d, before, after)
	}
	if _, err := s.Update(ctx, id, func(m *memory.Memory) error { m.Data = map[string]any{"steps": "not a list"}; return nil }); err == nil {
		t.Fatal("invalid update accepted")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, up.Path)); string(b) != string(after) {
		t.Fatal("an invalid update wrote the file")
	}
	if _, err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := topTitles(t, s, contextfs.Query{Text: "release checklist", Mode: "keyword"}); len(got) > 0 && got[0] == "Release checklist" {
		t.Fatalf("deleted memory still found: %v", got)
	}
	t.Run("a superseded memory is hidden unless all", func(t *testing.T) {
		old := ids["Pool Postgres connections with pgxpool"]
		if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "decision", Title: "Pool with pgbouncer", Body: "We moved pooling to pgbouncer.", Supersedes: []string{old[:6]}}); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"keyword", "semantic", "hybrid"} {
			for _, r := range topTitles(t, s, contextfs.Query{Text: "pgxpool pool", Mode: mode}) {
				if r == "Pool Postgres connections with pgxpool" {
					t.Errorf("%s: superseded memory shown", mode)
				}
			}
			if got := topTitles(t, s, contextfs.Query{Text: "pgxpool", Mode: mode, All: true}); len(got) == 0 {
				t.Errorf("%s: --all hides it", mode)
			}
		}
	})
}

func diffLines(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	n := 0
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			n++
			if len(al) != len(bl) { // an inserted line shifts the rest
				return n + 1
			}
		}
	}
	return n
}

func TestConcurrentSavesLoseNothing(t *testing.T) {
	dir := testgit.Init(t)
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := 0; i < each; i++ {
				// Same title on purpose: names differ only by ID.
				if _, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Title: "Same title", Body: fmt.Sprintf("writer %d note %d", w, i)}); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := open(t, dir)
	es, err := s.List(context.Background(), contextfs.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != writers*each {
		t.Fatalf("%d memories, want %d", len(es), writers*each)
	}
}

func TestConcurrentUpdatesOfOneMemoryLoseNothing(t *testing.T) {
	dir := testgit.Init(t)
	r, err := open(t, dir).Save(context.Background(), contextfs.SaveRequest{Type: "fact", Body: "The API listens on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		// A store each, as separate processes would have: their own
		// SQLite connections and their own open lock file.
		s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		wg.Go(func() {
			for i := range each {
				tag := fmt.Sprintf("w%d-%d", w, i)
				if _, err := s.Update(context.Background(), r.Memory.ID, func(m *memory.Memory) error {
					m.Tags = append(m.Tags, tag)
					return nil
				}); err != nil {
					errs <- fmt.Errorf("%s: %w", tag, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	m, err := open(t, dir).Resolve(context.Background(), r.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tags) != writers*each {
		t.Fatalf("%d tags kept of %d added: %v", len(m.Tags), writers*each, m.Tags)
	}
}

func TestChangingTheEmbedderReembeds(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	saveSeeds(t, s)
	s.Close()
	other := &scaled{Embedder: embed.NewBuiltin()}
	s2, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: other})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	res, err := s2.Search(context.Background(), contextfs.Query{Text: "kubernetes staging", Mode: "semantic"})
	if err != nil || len(res) == 0 {
		t.Fatalf("%v %v", res, err)
	}
	if other.calls < 2 {
		t.Fatalf("the new model embedded %d batches; want the corpus re-embedded", other.calls)
	}
}

// scaled is another vector space: the built-in vectors reversed, under
// another model name.
type scaled struct {
	embed.Embedder
	calls int
}

var scaledCalls sync.Mutex

func (s *scaled) Model() string { return "test/reversed" }
func (s *scaled) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	scaledCalls.Lock()
	s.calls++
	scaledCalls.Unlock()
	vs, err := s.Embedder.Embed(ctx, texts)
	for _, v := range vs {
		for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
			v[i], v[j] = v[j], v[i]
		}
	}
	return vs, err
}

func TestASecretNeverReachesAFileName(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	key := "AKIA" + "Z7QWERTYUIOPASDF"
	res, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Body: "The deploy key is " + key + " for now."})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(res.Memory.Path), strings.ToLower(key)) {
		t.Fatalf("secret in the file name: %s", res.Memory.Path)
	}
	if !strings.HasPrefix(filepath.Base(res.Memory.Path), "fact-") || len(res.Warnings) == 0 {
		t.Fatalf("path %s, warnings %v", res.Memory.Path, res.Warnings)
	}
	// A file someone named after a secret is reported by its path.
	sc, _ := s.SecretScanner()
	named := ".contextfs/memories/key-" + key + ".md"
	fs := contextfs.ScanFile(sc, named, []byte("---\nid: abcd1234\n---\nclean\n"))
	if len(fs) != 1 || fs[0].Line != 0 || !strings.Contains(fs[0].Description, "file name") {
		t.Fatalf("path finding: %+v", fs)
	}
}

// TestATokenInATitleNeverReachesAFileName saves memories whose titles hold
// tokens the rules find only by their prefix, only by a name beside them,
// or not at all: none reaches the file name, which falls back to the type
// and the ID, while an ordinary title still names its file.
func TestATokenInATitleNeverReachesAFileName(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	// Built at run time, so that no scanner flags this file.
	tests := []struct{ name, title, token string }{
		{"vendor prefix in prose", "Deploy with dckr_" + "pat_Vq3xT9mK2pLw8RzN4bYcD7fGh2K", "dckr_pat_vq3xt9mk2plw8rzn4bycd7fgh2k"},
		{"found by the name beside it", "Set api_key=Q7wErT9yUiOp3AsDfGhJkL2z", "q7wert9yuiop3asdfghjkl2z"},
		{"missed by every rule", "Staging login uses 7fk2p9qx3m4n8b1vz5c6", "7fk2p9qx3m4n8b1vz5c6"},
		{"a hex secret", "Webhook signing secret 9f2c4e6a8b0d1f3e5a7c9b1d", "9f2c4e6a8b0d1f3e5a7c9b1d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Title: tt.title, Body: "See the title."})
			if err != nil {
				t.Fatal(err)
			}
			if p := strings.ToLower(res.Memory.Path); strings.Contains(p, tt.token) || strings.Contains(p, tt.token[:12]) {
				t.Errorf("token in the file name: %s", res.Memory.Path)
			}
			if base := filepath.Base(res.Memory.Path); !strings.HasPrefix(base, "fact-") {
				t.Errorf("file name %s, want fact-<id>.md", base)
			}
		})
	}
	res, err := s.Save(context.Background(), contextfs.SaveRequest{Type: "fact", Title: "Deploy notes for 2026 Q3", Body: "Nothing secret."})
	if err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(res.Memory.Path); !strings.HasPrefix(base, "deploy-notes-for-2026-q3-") {
		t.Errorf("an ordinary title gave the file name %s", base)
	}
}

func TestABlankIDNamesNoMemory(t *testing.T) {
	dir := testgit.Init(t)
	s := open(t, dir)
	ctx := context.Background()
	// One memory: a blank "prefix" would match it alone, and delete it.
	r, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The API listens on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", " ", "   ", "\t", " \n "} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			if m, err := s.Resolve(ctx, id); !errors.Is(err, contextfs.ErrNotFound) {
				t.Errorf("Resolve(%q) = %v, %v; want ErrNotFound", id, m, err)
			}
			if _, err := s.Delete(ctx, id); !errors.Is(err, contextfs.ErrNotFound) {
				t.Errorf("Delete(%q): %v; want ErrNotFound", id, err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, r.Memory.Path)); err != nil {
		t.Fatalf("the memory is gone: %v", err)
	}
	// Surrounding blanks still resolve the ID they hold.
	if m, err := s.Resolve(ctx, "  "+r.Memory.ID[:5]+" "); err != nil || m.ID != r.Memory.ID {
		t.Errorf("padded prefix: %v, %v", m, err)
	}
}

// A memory superseded only by a link of rel supersedes is hidden from list
// and search as one named in a supersedes: entry is (the cache's current
// set, not only recall's note), and shown with all; a link of another
// relation hides nothing. Each way is checked after the save that writes
// it and after a cache built again from the files.
func TestEitherWayOfSupersedingHidesFromListAndSearch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// newer saves the memory that names old, and returns its ID.
		newer  func(t *testing.T, s *contextfs.Store, old string) string
		hidden bool
	}{
		{"a supersedes: entry", func(t *testing.T, s *contextfs.Store, old string) string {
			return teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Sessions now live in process memory.", Supersedes: []string{old}})
		}, true},
		{"a link of rel supersedes at save", func(t *testing.T, s *contextfs.Store, old string) string {
			return teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Sessions now live in process memory.", Links: []string{"supersedes:" + old}})
		}, true},
		{"a link of rel supersedes added by an update", func(t *testing.T, s *contextfs.Store, old string) string {
			id := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Sessions now live in process memory."})
			if _, err := s.Update(ctx, id, func(m *memory.Memory) error {
				m.Links = append(m.Links, memory.Link{ID: old, Rel: "supersedes"})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return id
		}, true},
		{"a link of another relation hides nothing", func(t *testing.T, s *contextfs.Store, old string) string {
			return teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Sessions now live in process memory.", Links: []string{"depends_on:" + old}})
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			s := open(t, dir)
			old := teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Body: "Sessions are cached in Redis under the zebracache key."})
			newer := tt.newer(t, s, old)
			check := func(when string) {
				t.Helper()
				for _, all := range []bool{false, true} {
					want := []string{newer}
					if all || !tt.hidden {
						want = []string{newer, old}
					}
					es, err := s.List(ctx, contextfs.ListOptions{All: all})
					if err != nil {
						t.Fatal(err)
					}
					var listed []string
					for _, e := range es {
						listed = append(listed, e.ID)
					}
					slices.Sort(listed)
					slices.Sort(want)
					if !slices.Equal(listed, want) {
						t.Errorf("%s: list (all %v) = %v, want %v", when, all, listed, want)
					}
					res, err := s.Search(ctx, contextfs.Query{Text: "zebracache", Mode: "keyword", All: all})
					if err != nil {
						t.Fatal(err)
					}
					found := slices.ContainsFunc(res, func(r contextfs.Result) bool { return r.ID == old })
					if found != (all || !tt.hidden) {
						t.Errorf("%s: search (all %v) finds the old memory: %v, want %v", when, all, found, all || !tt.hidden)
					}
				}
			}
			check("after the save")
			if _, err := s.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			check("after a reindex")
		})
	}
}
