package autoindex_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/autoindex"
	"github.com/contextfs/contextfs/internal/testgit"
)

// addFiles writes files into the repository at dir and commits them.
func addFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "more files")
}

const shaper = `package shape

// TrafficShaper delays packets so a link never exceeds its quota.
func TrafficShaper(quota int) int { return quota * 2 }
`

func TestFileType(t *testing.T) {
	tests := []struct{ path, want string }{
		{"upload/retry.go", autoindex.TypeCode},
		{"upload/retry_test.go", autoindex.TypeTest},
		{"tests/test_models.py", autoindex.TypeTest},
		{"src/ky.spec.ts", autoindex.TypeTest},
		{"README.md", autoindex.TypeDoc},
		{"docs/api.rst", autoindex.TypeDoc},
		{"HISTORY", autoindex.TypeDoc},
		{"tests/README.md", autoindex.TypeDoc},
	}
	for _, tt := range tests {
		if got := autoindex.FileType(tt.path); got != tt.want {
			t.Errorf("FileType(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestDocsAreTheirOwnKind(t *testing.T) {
	dir, s := setup(t)
	addFiles(t, dir, map[string]string{
		"docs/guide.rst": "Guide\n=====\n\nIntro.\n\nRetrying uploads\n----------------\n\nFailed uploads are retried with exponential backoff.\n",
		"CHANGELOG":      "v1.2: retry failed uploads with exponential backoff\n",
	})
	index(t, s)
	ctx := context.Background()
	tests := []struct {
		name     string
		types    []string
		wantDocs bool
	}{
		{"--type code returns source code only", []string{"code"}, false},
		{"--type doc returns documentation only", []string{"doc"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"keyword", "semantic", "hybrid"} {
				res, err := s.Search(ctx, contextfs.Query{Text: "retry failed uploads with exponential backoff", Types: tt.types, Mode: mode, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				if len(res) == 0 {
					t.Fatalf("%s: no results", mode)
				}
				for _, r := range res {
					if isDoc := r.Kind == autoindex.TypeDoc; isDoc != tt.wantDocs {
						t.Errorf("%s: %s (kind %s, type %s) returned", mode, r.ID, r.Kind, r.Type)
					}
				}
			}
		})
	}
	// A reStructuredText file is chunked at its headings.
	res, err := s.Search(ctx, contextfs.Query{Text: "exponential backoff", Types: []string{"doc"}, Mode: "keyword"})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range res {
		if r.Path == "docs/guide.rst" {
			found = true
			if r.Symbol != "Retrying uploads" {
				t.Errorf("rst hit is %q (lines %d-%d), want the section %q", r.Symbol, r.StartLine, r.EndLine, "Retrying uploads")
			}
		}
	}
	if !found {
		t.Errorf("docs/guide.rst not found: %+v", res)
	}
}

func TestTestsAreKnown(t *testing.T) {
	dir, s := setup(t)
	// The same code in a test file (whose path sorts first) and in a
	// source file: equal relevance, so the rule alone orders them.
	addFiles(t, dir, map[string]string{"shape/a_test.go": shaper, "shape/shaper.go": shaper})
	index(t, s)
	ctx := context.Background()
	search := func(tests string) []contextfs.Result {
		t.Helper()
		res, err := s.Search(ctx, contextfs.Query{Text: "TrafficShaper quota", Types: []string{"code"}, Mode: "keyword", Tests: tests})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Fatalf("tests=%q: no results", tests)
		}
		return res
	}
	t.Run("a test ranks below code of equal relevance and says it is a test", func(t *testing.T) {
		res := search("")
		if res[0].Path != "shape/shaper.go" || res[0].Test {
			t.Errorf("first hit %s (test %v), want shape/shaper.go", res[0].Path, res[0].Test)
		}
		var sawTest bool
		for _, r := range res {
			sawTest = sawTest || (r.Path == "shape/a_test.go" && r.Test)
		}
		if !sawTest {
			t.Errorf("shape/a_test.go missing or not marked test: %+v", res)
		}
	})
	t.Run("exclude leaves tests out", func(t *testing.T) {
		for _, r := range search(contextfs.TestsExclude) {
			if r.Test {
				t.Errorf("test %s returned", r.ID)
			}
		}
	})
	t.Run("only returns tests alone", func(t *testing.T) {
		for _, r := range search(contextfs.TestsOnly) {
			if !r.Test {
				t.Errorf("non-test %s returned", r.ID)
			}
		}
	})
	if _, err := s.Search(ctx, contextfs.Query{Text: "x", Tests: "some"}); err == nil {
		t.Error("tests=some accepted")
	}
}

func TestPathsAreSearchable(t *testing.T) {
	dir, s := setup(t)
	addFiles(t, dir, map[string]string{
		"doc/util.go":                  "package text\n\n// Trim removes blanks.\nfunc Trim(s string) string { return s }\n",
		"internal/packFileReader.go":   "package internal\n\n// Next reads one entry.\nfunc Next() {}\n",
		"internal/other/unrelated.txt": "nothing about it here\n",
	})
	index(t, s)
	tests := []struct{ name, query, want string }{
		{"folder and file name", "fix a typo in doc/util.go", "doc/util.go"},
		{"camel-case parts of a file name", "pack file reader", "internal/packFileReader.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Search(context.Background(), contextfs.Query{Text: tt.query, Types: []string{"code"}, Mode: "keyword"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 || res[0].Path != tt.want {
				t.Fatalf("first hit %+v, want %s", res, tt.want)
			}
		})
	}
}

func TestGroupByFile(t *testing.T) {
	dir, s := setup(t)
	addFiles(t, dir, map[string]string{"hooks/webhook.go": `package hooks

// VerifyWebhook checks the webhook signature header.
func VerifyWebhook(sig string) bool { return sig != "" }

// ParseWebhook decodes a webhook payload after VerifyWebhook.
func ParseWebhook(b []byte) string { return string(b) }

// RetryWebhook sends a webhook again.
func RetryWebhook() {}
`})
	index(t, s)
	res, err := s.Search(context.Background(), contextfs.Query{Text: "webhook", Types: []string{"code"}, Mode: "keyword", Group: contextfs.GroupFile})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range res {
		if seen[r.Path] {
			t.Errorf("%s listed twice", r.Path)
		}
		seen[r.Path] = true
		for _, c := range r.Chunks {
			if !strings.HasPrefix(c.ID, r.Path+":") || c.Score > r.Score {
				t.Errorf("chunk %s (%.3f) under %s (%.3f)", c.ID, c.Score, r.ID, r.Score)
			}
		}
	}
	if len(res) == 0 || res[0].Path != "hooks/webhook.go" || len(res[0].Chunks) != 3 {
		t.Fatalf("want hooks/webhook.go first with 3 more of its chunks: %+v", res)
	}
	if _, err := s.Search(context.Background(), contextfs.Query{Text: "x", Group: "folder"}); err == nil {
		t.Error("group=folder accepted")
	}
}
