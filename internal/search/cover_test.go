package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/internal/embed"
)

// TestCoverLeavesOutOnlyCandidatesThatCannotBeResults: cover stops reading
// candidates once no later one can be among the rows results keeps. Every
// answer, at every limit and kind, must be the one that reading every
// candidate gives, and cover must have left some candidates unread.
func TestCoverLeavesOutOnlyCandidatesThatCannotBeResults(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewBuiltin()
	c, err := cache.Open(ctx, t.TempDir(), emb)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := t.TempDir()
	r := rand.New(rand.NewPCG(7, 9))
	words := []string{"database", "postgres", "connection", "pool", "release", "tag", "changelog", "feature", "flag",
		"rollout", "token", "session", "retry", "queue", "cache", "timeout", "deploy", "review", "schema", "migration"}
	var entries []cache.FileEntry
	for i := range 400 {
		var b strings.Builder
		for range 3 + r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		name := fmt.Sprintf("m%04d.md", i)
		if err := os.WriteFile(filepath.Join(root, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, cache.FileEntry{Path: name})
	}
	// Candidates that lead on one word of a question and cover nothing
	// else, ahead of ones that answer all of it: cover must read past the
	// first to find the second.
	for i := range 80 {
		w := []string{"database", "connection", "pool", "release", "changelog"}[i%5]
		text := strings.Repeat(w+" ", 3+i%4) + words[r.IntN(len(words))]
		if i%4 == 0 {
			text = "database connection pool release changelog " + strings.Repeat("filler text here ", 10+i%7)
		}
		name := fmt.Sprintf("lead%04d.md", i)
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, cache.FileEntry{Path: name})
	}
	analyze := func(path string, content []byte) cache.Analysis {
		text := string(content)
		title := strings.Join(strings.Fields(text)[:3], " ")
		return cache.Analysis{Docs: []cache.Doc{{MID: strings.TrimSuffix(path, ".md"), Type: "fact", Title: title, Body: text}}}
	}
	if _, err := c.SyncFiles(ctx, cache.KindMemory, root, entries, analyze); err != nil {
		t.Fatal(err)
	}
	read, all := 0, 0
	for _, text := range []string{"database connection pool", "how do we cut a release with a changelog", "feature flag rollout",
		"retry the queue after a timeout", "schema migration review", "postgres", "deploy token session cache"} {
		for _, limit := range []int{1, 5, 16, 50} {
			q := Query{Text: text, Limit: limit, Mode: ModeHybrid}
			pruned := &Engine{Cache: c, Embedder: emb}
			got, err := pruned.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			full := &Engine{Cache: c, Embedder: emb, coverAll: true}
			want, err := full.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q, limit %d: answers differ when cover reads every candidate:\n got %+v\nwant %+v", text, limit, got, want)
			}
			read, all = read+pruned.coverRead, all+full.coverRead
		}
	}
	if read >= all {
		t.Errorf("cover read %d candidates, as many as reading all of them (%d): it left none out", read, all)
	}
	t.Logf("cover read %d of %d candidates", read, all)
}
