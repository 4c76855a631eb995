package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/watch"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// BenchmarkServe10K measures the viewer's pages on a repository of 10,000
// memories, warm: the store open, its cache built and its change watcher
// running, as in a viewer that has served a page (serve starts the watcher
// as every command does: watch.mode auto starts one from 10,000 memory
// files). The targets are 200 ms for the first page and 100 ms for
// a search (docs/VIEWER.md).
func BenchmarkServe10K(b *testing.B) {
	h, queries := benchViewer(b, 10000)
	get := func(b *testing.B, path string) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "127.0.0.1:7766"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d\n%s", path, w.Code, w.Body.String())
		}
	}
	get(b, "/") // the first page builds the context block and syncs
	get(b, "/search?q="+url.QueryEscape(queries[0]))
	b.Run("home", func(b *testing.B) {
		for b.Loop() {
			get(b, "/")
		}
	})
	b.Run("search", func(b *testing.B) {
		i := 0
		for b.Loop() {
			get(b, "/search?q="+url.QueryEscape(queries[i%len(queries)]))
			i++
		}
	})
}

// benchViewer writes n memory files into a new repository, builds its
// cache and returns the viewer's handler and queries drawn from the
// memories.
func benchViewer(b *testing.B, n int) (http.Handler, []string) {
	b.Helper()
	home := b.TempDir()
	b.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	b.Setenv("CONTEXTFS_USER_DIR", "")
	b.Setenv("CONTEXTFS_WATCH", "")
	bin, err := programs()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	dir := testgit.Init(b)
	b.Cleanup(func() { exec.Command(filepath.Join(bin, "git-contextfs"), "-C", dir, "watch", "stop").Run() })
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, StartWatcher: func(root string) error {
		return watch.SpawnFor(filepath.Join(bin, "git-contextfs"), root)
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.Init(ctx); err != nil {
		b.Fatal(err)
	}
	queries := writeMemories(b, dir, n)
	start := time.Now()
	if _, err := s.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed %d memories in %v", n, time.Since(start).Round(time.Millisecond))
	svc := workflow.ForStore(s, nil, nil)
	b.Cleanup(func() { svc.Close() })
	br, err := svc.Browse(nil)
	if err != nil {
		b.Fatal(err)
	}
	v, err := newViewer(svc, br, viewerOptions{Host: "127.0.0.1", Port: testPort, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v.Handler(), queries
}

// writeMemories writes n memories of made-up team notes, with a Zipf
// vocabulary so that a query's words match a few memories rather than all
// (as cmd/contextfs-bench's corpus does), and returns queries of three
// words taken from them.
func writeMemories(b *testing.B, dir string, n int) []string {
	b.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	syl := strings.Fields("ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu")
	words := make([]string, 20000)
	for i := range words {
		var w strings.Builder
		for k := 0; k < 2+r.IntN(3); k++ {
			w.WriteString(syl[r.IntN(len(syl))])
		}
		words[i] = w.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	word := func() string { return words[zipf.Uint64()] }
	components := strings.Fields("auth billing search ingest gateway scheduler notifier uploader cache queue ledger checkout payments")
	types := []string{"decision", "fact", "error", "procedural", "episodic", "architecture", "config"}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var queries []string
	for i := range n {
		var body strings.Builder
		for range 8 + r.IntN(6) {
			fmt.Fprintf(&body, "The %s service calls %s through %s when %s %s fails. ", components[r.IntN(len(components))], word(), word(), word(), word())
		}
		ts := base.Add(time.Duration(i) * time.Minute)
		m := &memory.Memory{ID: memory.NewID(), Type: types[r.IntN(len(types))],
			Title: fmt.Sprintf("%s %s in %s", word(), word(), components[r.IntN(len(components))]),
			Tags:  []string{components[r.IntN(len(components))]}, Created: ts, Updated: ts, Author: "Bench <bench@example.com>",
			Body: strings.TrimSpace(body.String()) + "\n"}
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, ".contextfs", "memories", fmt.Sprintf("%03d", i%256), memory.Slug(m.Title)+"-"+m.ID+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			b.Fatal(err)
		}
		// Written months ago, not within the cache's racy window.
		if err := os.Chtimes(p, ts, ts); err != nil {
			b.Fatal(err)
		}
		if i%(n/20) == 0 {
			f := strings.Fields(strings.ToLower(strings.NewReplacer(".", "", ",", "").Replace(m.Body)))
			k := r.IntN(len(f) - 3)
			queries = append(queries, strings.Join(f[k:k+3], " "))
		}
	}
	return queries
}
