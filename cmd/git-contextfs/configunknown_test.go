package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestAnUnknownConfigKeyIsOneWarning: a key this release does not know (a
// teammate on a newer release added it) stops no command: each works and
// warns once, naming the key and the file; doctor reports it as a
// warning, and exits 0.
func TestAnUnknownConfigKeyIsOneWarning(t *testing.T) {
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, ".contextfs/config.yaml", "search:\n  mode: keyword\n  rerank: cross-encoder\n")
	for _, args := range [][]string{
		{"save", "--type", "fact", "The deploy job runs at night."},
		{"list"},
		{"search", "deploy"},
		{"context"},
		{"validate"},
	} {
		r := cli(t, dir, "", append([]string{"-C", dir}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		if n := strings.Count(r.stderr, "unknown key"); n != 1 || !strings.Contains(r.stderr, ".contextfs/config.yaml") || !strings.Contains(r.stderr, "search.rerank") {
			t.Errorf("%v: want one warning naming .contextfs/config.yaml and search.rerank, got %d:\n%s", args, n, r.stderr)
		}
		if args[0] == "list" && !strings.Contains(r.stdout, "deploy job") {
			t.Errorf("list does not show the saved memory:\n%s", r.stdout)
		}
	}
	r := cli(t, dir, "", "doctor")
	if !strings.Contains(r.stdout, "warn   config") || !strings.Contains(r.stdout, "search.rerank") {
		t.Errorf("doctor: want a config warning naming search.rerank:\n%s%s", r.stdout, r.stderr)
	}
	// Once there too: the config check says it, not the cache's line.
	if n := strings.Count(r.stdout+r.stderr, "search.rerank"); n != 1 {
		t.Errorf("doctor names search.rerank %d times, want once:\n%s%s", n, r.stdout, r.stderr)
	}
}
