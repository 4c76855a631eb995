package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCLISaveReportsParaphrasesNotUnrelated(t *testing.T) {
	dir := hookedRepo(t)
	first := save(t, dir, "--type", "decision", "--title", "Pool Postgres connections with pgxpool",
		"We pool Postgres connections with pgxpool, 20 per instance.")

	r := cli(t, dir, "", "save", "--type", "decision", "--title", "Use pgxpool for Postgres", "--json",
		"Postgres connections are pooled with pgxpool: 20 per instance.")
	var got savedJSON
	decodeJSON(t, r.stdout, &got)
	if r.code != 0 || got.Action != "skipped" || got.ID != first || len(got.Similar) != 1 || got.Similar[0].ID != first ||
		!strings.Contains(r.stderr, "similar: "+first) {
		t.Fatalf("paraphrase: exit %d, %+v\nstderr %s", r.code, got, r.stderr)
	}
	if r := cli(t, dir, "", "save", "--type", "decision", "--dedup", "error", "--title", "Use pgxpool for Postgres",
		"Postgres connections are pooled with pgxpool: 20 per instance."); r.code != 1 || !strings.Contains(r.stderr, "repeats "+first) {
		t.Fatalf("--dedup error: exit %d, stderr %s", r.code, r.stderr)
	}
	r = cli(t, dir, "", "save", "--type", "decision", "--json", "--title", "Deploy with Argo CD", "Production deploys go through Argo CD, never by hand.")
	decodeJSON(t, r.stdout, &got)
	if r.code != 0 || got.Action != "saved" || len(got.Similar) != 0 || strings.Contains(r.stderr, "similar") {
		t.Fatalf("unrelated decision: exit %d, %+v\nstderr %s", r.code, got, r.stderr)
	}
	if r := cli(t, dir, "", "save", "--dedup", "sometimes", "x"); r.code != 2 {
		t.Errorf("an unknown --dedup: exit %d, want 2", r.code)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	if len(files) != 2 {
		t.Errorf("%d files, want 2 (the paraphrase is not written)", len(files))
	}
}

func TestCLIProgressSupersedesAndPrune(t *testing.T) {
	dir := hookedRepo(t)
	p1 := save(t, dir, "--type", "progress", "Sprint 1: the importer parses CSV files.")
	p2 := save(t, dir, "--type", "progress", "Sprint 2: the importer also reads Parquet and JSON lines.")
	var es []struct{ ID, Type string }
	decodeJSON(t, ok(t, dir, "list", "--type", "progress", "--json"), &es)
	if len(es) != 1 || es[0].ID != p2 {
		t.Fatalf("current progress = %+v, want only %s (superseding %s)", es, p2, p1)
	}

	// Aging that prune applies: an expired memory, and two current progress
	// memories written by hand (as a merge of two branches would leave).
	gone := save(t, dir, "Temporary: the staging database is read-only this week.")
	path := filepath.Join(dir, ".contextfs", "memories")
	files, _ := filepath.Glob(filepath.Join(path, "*"+gone+".md"))
	if len(files) != 1 {
		t.Fatalf("file of %s not found", gone)
	}
	raw, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], []byte(strings.Replace(string(raw), "\ncreated:", "\nexpires: 2020-01-01\ncreated:", 1)), 0o644)
	writeFile(t, dir, ".contextfs/memories/other-progress.md", "---\nid: progress99\ntype: progress\ntitle: Other branch progress\n"+
		"created: 2020-01-01T00:00:00Z\nupdated: 2020-01-01T00:00:00Z\n---\nOther branch.\n")
	for i := range 4 {
		save(t, dir, "--type", "session-summary", "--dedup", "allow", "Session "+strings.Repeat("x", i)+": worked on the "+[]string{"parser", "indexer", "docs", "release"}[i]+".")
	}
	before := snapshot(t, path)
	out := ok(t, dir, "prune", "--dry-run")
	for _, want := range []string{"would: remove " + gone, "would: " + p2 + ", the latest progress, supersedes progress99", "propose: 1 session summary beyond the cap of 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("prune --dry-run lacks %q:\n%s", want, out)
		}
	}
	if after := snapshot(t, path); after != before {
		t.Fatal("prune --dry-run changed files")
	}
	ok(t, dir, "prune")
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Error("prune left the expired memory")
	}
	decodeJSON(t, ok(t, dir, "list", "--type", "progress", "--json"), &es)
	if len(es) != 1 || es[0].ID != p2 {
		t.Fatalf("after prune, current progress = %+v, want only %s", es, p2)
	}
}

// snapshot is every file under dir with its content, to compare.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		b.WriteString(f + "\n" + string(raw))
	}
	return b.String()
}

// TestCLISaveChecksTextWithSearchOperatorsAsWords saves, twice, a memory
// whose body holds what the search syntax reads as operators (a "phrase",
// a -word, OR, a prefix*): the second save is the duplicate it is, not a
// second file, and neither fails.
func TestCLISaveChecksTextWithSearchOperatorsAsWords(t *testing.T) {
	dir := hookedRepo(t)
	body := `Run golangci-lint with -fix OR "go vet" on foo* packages before every commit.`
	first := save(t, dir, "--type", "decision", "--title", "Lint with -fix", body)
	r := cli(t, dir, "", "save", "--type", "decision", "--title", "Lint with -fix", "--json", body)
	var got savedJSON
	decodeJSON(t, r.stdout, &got)
	if r.code != 0 || got.Action != "skipped" || got.ID != first || len(got.Similar) != 1 || !got.Similar[0].Identical {
		t.Fatalf("second save: exit %d, %+v\nstderr %s", r.code, got, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	if len(files) != 1 {
		t.Errorf("%d files, want 1", len(files))
	}
}

func TestCLIProgressSavedAtOnceLeavesOneCurrent(t *testing.T) {
	dir := hookedRepo(t)
	const n = 3
	var wg sync.WaitGroup
	codes := make([]result, n)
	for i := range n {
		wg.Go(func() {
			// cli's t.Fatalf is for the test's goroutine: collect instead.
			codes[i] = cli(t, dir, "", "save", "--type", "progress", fmt.Sprintf("Parallel status %d: widget%d and gadget%d are done.", i, i, i))
		})
	}
	wg.Wait()
	for i, r := range codes {
		if r.code != 0 {
			t.Fatalf("save %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	var es []struct{ ID string }
	decodeJSON(t, ok(t, dir, "list", "--type", "progress", "--json"), &es)
	if len(es) != 1 {
		t.Errorf("%d current progress memories after %d saves at once, want 1: %+v", len(es), n, es)
	}
}
