package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// listOddStrings are field values a listing must print exactly as
// encoding/json does: markup, quotes and backslashes, line and paragraph
// separators, control characters, other scripts and emoji.
var listOddStrings = []string{
	"Plain words",
	`x < y && z > w, "quoted" and back\slash`,
	"line\u2028para\u2029end",
	"tab\tand bell\a and nul-free",
	"Ünïcödé, 日本語, emoji 🚀 and a combining é",
	"<script>alert('x')</script>",
	"slash / and unicode escape \\u003c",
}

// writeListCorpus writes n memories into the .contextfs of dir with
// fixed IDs, times and contents taken from seed: odd strings, no tags or
// several, a status or none, superseded ones, equal times.
func writeListCorpus(t *testing.T, dir, prefix string, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		m := &memory.Memory{
			ID:      fmt.Sprintf("%s%07d", prefix, i),
			Type:    []string{"decision", "fact", "todo", "procedural"}[r.IntN(4)],
			Title:   fmt.Sprintf("%s %d", listOddStrings[r.IntN(len(listOddStrings))], i),
			Created: base.Add(time.Duration(i/3) * time.Hour), // three at a time share a time
			Author:  []string{"", "Ann <ann@example.com>", "Bob \"the builder\" <bob@example.com>"}[r.IntN(3)],
		}
		m.Updated = m.Created
		for range r.IntN(4) {
			m.Tags = append(m.Tags, []string{"db", "ops", "ünï", "a-b"}[r.IntN(4)])
		}
		m.Body = listOddStrings[r.IntN(len(listOddStrings))] + ". " + strings.Repeat("More words follow here. ", r.IntN(30)) + "\n"
		switch r.IntN(6) {
		case 0:
			m.Data = map[string]any{"status": "accepted"}
		case 1:
			m.Data = map[string]any{"status": "superseded"}
		case 2:
			if i > 0 {
				m.Supersedes = []string{fmt.Sprintf("%s%07d", prefix, i-1)}
			}
		case 3:
			m.Summary = listOddStrings[r.IntN(len(listOddStrings))]
		}
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, ".contextfs", "memories", fmt.Sprintf("%02d", i%7), memory.Slug(m.Title)+"-"+m.ID+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestListJSONBytesMatchTheGoldenFile keeps every byte of list --json
// (the repository's and the user's memories merged, --all and a page,
// filters) what it was before the listing was made faster: the file was
// written by the encoding/json writer.
func TestListJSONBytesMatchTheGoldenFile(t *testing.T) {
	dir := testgit.Init(t)
	writeListCorpus(t, dir, "rep", 240, 1)
	user := filepath.Join(t.TempDir(), "user")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, user, "init", "-q")
	writeListCorpus(t, user, "usr", 60, 2)
	t.Setenv("CONTEXTFS_USER_DIR", user)
	tests := []struct {
		name string
		args []string
	}{
		{"list-json-all", []string{"list", "--json", "--all"}},
		{"list-json-page", []string{"list", "--json"}},
		{"list-json-filtered", []string{"list", "--json", "-n", "40", "--type", "todo", "--tag", "db", "--scope", "repo"}},
		{"list-json-user", []string{"list", "--json", "--all", "--scope", "user"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inProcess(t, dir, "", tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			golden(t, tc.name, r.stdout)
		})
	}
}
