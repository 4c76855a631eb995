package workflow_test

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
	"github.com/contextfs/contextfs/internal/workflow"
)

// isolateUser points HOME, the XDG directories and git's identity at
// temp dirs, so that the user store a test writes is its own, and
// returns where that user store lives.
func isolateUser(t *testing.T) (userDir string) {
	t.Helper()
	testgit.Isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("CONTEXTFS_USER_DIR", "")
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return filepath.Join(home, "data", "contextfs", "user")
}

// TestAWorkflowOnAUserMemoryWritesAndCommitsInTheUserStore runs each
// workflow that changes a memory, found in either store (as the MCP
// server asks), on memories of the user store: what it writes goes there,
// is committed there at once, and the repository is left alone.
func TestAWorkflowOnAUserMemoryWritesAndCommitsInTheUserStore(t *testing.T) {
	tests := []struct {
		name string
		run  func(ctx context.Context, svc *workflow.Service, a, b string) ([]string, workflow.Scope, error)
	}{
		{"evolve", func(ctx context.Context, svc *workflow.Service, a, _ string) ([]string, workflow.Scope, error) {
			w, err := svc.Evolve(ctx, workflow.EvolveRequest{ID: a, Scope: workflow.All, Body: "I prefer tabs, width 8.", Reason: "correction"})
			if err != nil {
				return nil, "", err
			}
			return []string{w.Memories[0].Path}, w.Scope, nil
		}},
		{"merge", func(ctx context.Context, svc *workflow.Service, a, b string) ([]string, workflow.Scope, error) {
			w, err := svc.Merge(ctx, workflow.MergeRequest{IDs: []string{a, b}, Scope: workflow.All})
			if err != nil {
				return nil, "", err
			}
			return []string{w.Memories[0].Path}, w.Scope, nil
		}},
		{"split", func(ctx context.Context, svc *workflow.Service, a, _ string) ([]string, workflow.Scope, error) {
			w, err := svc.Split(ctx, workflow.SplitRequest{ID: a, Scope: workflow.All, Parts: []string{"I prefer tabs.", "Tabs are 4 wide."}})
			if err != nil {
				return nil, "", err
			}
			return []string{w.Memories[0].Path, w.Memories[1].Path}, w.Scope, nil
		}},
		{"link", func(ctx context.Context, svc *workflow.Service, a, b string) ([]string, workflow.Scope, error) {
			l, err := svc.Link(ctx, workflow.LinkRequest{From: a, To: b, Rel: "related"})
			if err != nil {
				return nil, "", err
			}
			return []string{l.Memory.Path}, l.Scope, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := isolateUser(t)
			ctx := context.Background()
			repo := testgit.Init(t)
			s, err := contextfs.Open(ctx, contextfs.Options{Dir: repo, Embedder: embed.NewBuiltin()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			svc := workflow.ForStore(s, nil, nil)
			t.Cleanup(func() { svc.Close() })
			var ids []string
			for _, body := range []string{"I prefer tabs, width 4.", "I like tabs over spaces."} {
				res, err := svc.Save(ctx, workflow.SaveRequest{Scope: workflow.User, Dedup: "allow",
					SaveRequest: contextfs.SaveRequest{Type: "user", Body: body}})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, res.Memory.ID)
			}

			paths, where, err := tt.run(ctx, svc, ids[0], ids[1])
			if err != nil {
				t.Fatal(err)
			}
			if where != workflow.User {
				t.Errorf("written in scope %q, want user", where)
			}
			for _, p := range paths {
				if _, err := os.Stat(filepath.Join(user, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s is not in the user store: %v", p, err)
				}
			}
			if st := testgit.Run(t, user, "status", "--porcelain"); st != "" {
				t.Errorf("the user store is left with uncommitted changes:\n%s", st)
			}
			if _, err := os.Stat(filepath.Join(repo, ".contextfs", "memories")); err == nil {
				if ents, _ := os.ReadDir(filepath.Join(repo, ".contextfs", "memories")); len(ents) > 0 {
					t.Errorf("the repository got %d memory files", len(ents))
				}
			}
		})
	}
}

// TestContextOutsideARepositoryWithNoUserStoreIsEmptyAndCreatesNothing
// asks for the context block where there is neither a repository nor a
// user store: the block is its header only, and no store is created.
func TestContextOutsideARepositoryWithNoUserStoreIsEmptyAndCreatesNothing(t *testing.T) {
	user := isolateUser(t)
	ctx := context.Background()
	svc, err := workflow.Open(ctx, contextfs.Options{Dir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if svc.Home() != nil {
		t.Fatalf("outside a repository the service serves %v, want none", svc.Home())
	}
	b, err := svc.Context(ctx, workflow.ContextRequest{Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Sections) != 0 || b.Budget != 500 {
		t.Errorf("block %+v, want no sections and the budget asked", b)
	}
	if _, err := os.Stat(user); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the user store was created at %s (%v)", user, err)
	}
	var ie *workflow.InputError
	if _, err := svc.Context(ctx, workflow.ContextRequest{Budget: -1}); !errors.As(err, &ie) || ie.Field != "budget" {
		t.Errorf("a negative budget: %v, want an *InputError of budget", err)
	}
}

// TestReviewRangesTheCallerMustMendAreRangeErrors reviews ranges that
// name no commit: each is a *workflow.RangeError (the CLI's exit 2),
// which says which revision.
func TestReviewRangesTheCallerMustMendAreRangeErrors(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.WriteFile(t, repo, "a.go", "package a\n")
	testgit.Run(t, repo, "add", ".")
	testgit.Run(t, repo, "commit", "-qm", "a")
	for _, rng := range []string{"nosuch..HEAD", "HEAD...nosuch", "-x", "nosuch"} {
		t.Run(rng, func(t *testing.T) {
			_, err := workflow.Review(context.Background(), workflow.ReviewRequest{Dir: repo, Range: rng})
			var re *workflow.RangeError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "unknown revision") {
				t.Errorf("review %s: %v, want a *RangeError naming the unknown revision", rng, err)
			}
		})
	}
	res, err := workflow.Review(context.Background(), workflow.ReviewRequest{Dir: repo, Range: "HEAD..HEAD"})
	if err != nil || res.Bare || res.Report.BaseCommit != res.Report.HeadCommit {
		t.Errorf("review HEAD..HEAD: %+v, %v; want the same commit on both sides", res, err)
	}
}

// TestGraphDrawsAroundAMemoryAndRefusesWhatItCannotDraw draws the
// memories one link from a memory, in each format, and refuses an
// unknown format and a depth below 1 as *InputErrors.
func TestGraphDrawsAroundAMemoryAndRefusesWhatItCannotDraw(t *testing.T) {
	svc, id := service(t)
	ctx := context.Background()
	res, err := svc.Save(ctx, workflow.SaveRequest{Dedup: "allow", SaveRequest: contextfs.SaveRequest{Type: "fact", Body: "The pool holds 20 connections.\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Link(ctx, workflow.LinkRequest{From: res.Memory.ID, To: id, Rel: "depends_on"}); err != nil {
		t.Fatal(err)
	}
	for _, format := range workflow.GraphFormats() {
		d, err := svc.Graph(ctx, workflow.GraphRequest{ID: id, Depth: 1, Format: format})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if text := string(d.Text); !strings.Contains(text, id) || !strings.Contains(text, res.Memory.ID) || !strings.Contains(text, "depends_on") {
			t.Errorf("%s drawing lacks the memory, its neighbour or their link:\n%s", format, text)
		}
	}
	for _, req := range []workflow.GraphRequest{{Depth: 1, Format: "svg"}, {Depth: 0, Format: "dot"}} {
		var ie *workflow.InputError
		if _, err := svc.Graph(ctx, req); !errors.As(err, &ie) {
			t.Errorf("graph %+v: %v, want an *InputError", req, err)
		}
	}
}

// TestSearchRunsPrepareFirstAndNamesAnUnregisteredRepository searches the
// repository: Prepare runs before the search (the CLI refreshes its code
// index there) and its error is returned alone; a --repos name not
// registered is an *InputError of repos, and Prepare does not run.
func TestSearchRunsPrepareFirstAndNamesAnUnregisteredRepository(t *testing.T) {
	isolateUser(t)
	svc, id := service(t)
	ctx := context.Background()
	q := contextfs.Query{Text: "pool connections", Mode: contextfs.ModeKeyword}
	ran := 0
	res, err := svc.Search(ctx, workflow.SearchRequest{Query: q, Scope: workflow.Repo, Prepare: func() error { ran++; return nil }})
	if err != nil || ran != 1 || len(res) != 1 || res[0].ID != id {
		t.Errorf("search: %d results, %v, prepare ran %d times; want %s found after one prepare", len(res), err, ran, id)
	}
	boom := errors.New("index broken")
	if _, err := svc.Search(ctx, workflow.SearchRequest{Query: q, Prepare: func() error { return boom }}); !errors.Is(err, boom) {
		t.Errorf("a failing prepare: %v, want its error", err)
	}
	var ie *workflow.InputError
	ran = 0
	_, err = svc.Search(ctx, workflow.SearchRequest{Query: q, Repos: []string{"nosuch"}, Prepare: func() error { ran++; return nil }})
	if !errors.As(err, &ie) || ie.Field != "repos" || ran != 0 {
		t.Errorf("an unregistered repository: %v (prepare ran %d times), want an *InputError of repos and no prepare", err, ran)
	}
}
