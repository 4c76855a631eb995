package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

func TestCLIContract(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	cfg, err := os.ReadFile(filepath.Join(dir, ".contextfs", "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "# contextfs configuration") {
		t.Fatalf("init wrote no commented config: %v", err)
	}
	if out := ok(t, dir, "init"); !strings.Contains(out, "already set up") {
		t.Errorf("second init: %q", out)
	}
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--tag", "db", "--data", `{"decision":"pgxpool","status":"accepted"}`,
		"We pool Postgres connections with pgxpool, twenty per instance."))
	if len(id) != 10 {
		t.Fatalf("save printed %q, want an ID", id)
	}
	r := cli(t, dir, "EADDRINUSE in parallel tests: listen on port 0 and read the port back.", "save", "--type", "error-solution", "--json", "-")
	if r.code != 0 {
		t.Fatalf("save from stdin: %d %s", r.code, r.stderr)
	}
	var saved map[string]any
	decodeJSON(t, r.stdout, &saved)
	if saved["type"] != "error" || saved["id"] == "" || saved["path"] == "" {
		t.Fatalf("save --json: %v", saved)
	}

	t.Run("search JSON has the documented fields", func(t *testing.T) {
		var res []map[string]any
		decodeJSON(t, ok(t, dir, "search", "--json", "how do we pool db connections"), &res)
		if len(res) == 0 || res[0]["id"] != id {
			t.Fatalf("search: %v", res)
		}
		for _, f := range []string{"id", "type", "title", "path", "score", "snippet"} {
			if _, has := res[0][f]; !has {
				t.Errorf("missing field %q in %v", f, res[0])
			}
		}
	})
	t.Run("search with no match prints an empty array", func(t *testing.T) {
		if out := strings.TrimSpace(ok(t, dir, "search", "--json", "zzzqqq")); out != "[]" {
			t.Fatalf("got %q", out)
		}
	})
	t.Run("recall by prefix prints the file", func(t *testing.T) {
		out := ok(t, dir, "recall", id[:4])
		if !strings.Contains(out, "id: "+id) || !strings.Contains(out, "pgxpool") {
			t.Fatalf("recall: %s", out)
		}
	})
	t.Run("list filters by type", func(t *testing.T) {
		var es []map[string]any
		decodeJSON(t, ok(t, dir, "list", "--type", "error", "--json"), &es)
		if len(es) != 1 || es[0]["type"] != "error" {
			t.Fatalf("list: %v", es)
		}
	})
	t.Run("update changes a field in place", func(t *testing.T) {
		ok(t, dir, "update", id, "--add-tag", "postgres", "--data", `{"status":"deprecated"}`)
		out := ok(t, dir, "recall", id)
		if !strings.Contains(out, "  - postgres") || !strings.Contains(out, "status: deprecated") {
			t.Fatalf("after update: %s", out)
		}
	})
	t.Run("status counts by type", func(t *testing.T) {
		var st map[string]any
		decodeJSON(t, ok(t, dir, "status", "--json"), &st)
		by := st["by_type"].(map[string]any)
		if by["decision"] != 1.0 || by["error"] != 1.0 || st["memories"] != 2.0 {
			t.Fatalf("status: %v", st)
		}
	})
	t.Run("schema lists types and prints one", func(t *testing.T) {
		if out := ok(t, dir, "schema"); !strings.Contains(out, "decision") || !strings.Contains(out, "learned-pattern") {
			t.Fatalf("schema: %s", out)
		}
		if out := ok(t, dir, "schema", "decision"); !strings.Contains(out, `"superseded"`) {
			t.Fatalf("schema decision: %s", out)
		}
	})
	t.Run("reindex rebuilds", func(t *testing.T) {
		if out := ok(t, dir, "reindex"); !strings.Contains(out, "reindexed 2 memory files") {
			t.Fatalf("reindex: %s", out)
		}
	})
	t.Run("delete removes the file", func(t *testing.T) {
		ok(t, dir, "delete", id)
		if r := cli(t, dir, "", "recall", id); r.code != 1 || !strings.Contains(r.stderr, "no memory") {
			t.Fatalf("recall after delete: %+v", r)
		}
	})
}

func TestCLIErrorsAndExitCodes(t *testing.T) {
	dir := testgit.Init(t)
	tests := []struct {
		name     string
		dir      string
		args     []string
		code     int
		inStderr string
	}{
		{"outside a repository is a clear error", t.TempDir(), []string{"list"}, 1, "not a git repository"},
		{"an unknown type suggests the closest", dir, []string{"save", "--type", "decison", "x"}, 2, `did you mean "decision"`},
		{"schema-invalid data is refused", dir, []string{"save", "--type", "decision", "--data", `{"status":"done"}`, "x"}, 1, "data.status"},
		{"bad --data JSON is a usage error", dir, []string{"save", "--data", "{", "x"}, 2, "--data must be a JSON object"},
		{"an unknown flag is a usage error", dir, []string{"search", "--nope", "x"}, 2, "unknown flag"},
		{"a missing argument is a usage error", dir, []string{"recall"}, 2, "takes 1 argument"},
		{"a bad mode is a usage error", dir, []string{"search", "--mode", "fast", "x"}, 2, "--mode must be"},
		{"a bad --since is a usage error", dir, []string{"search", "--since", "yesterday", "x"}, 2, "--since"},
		{"a bad --tests is a usage error", dir, []string{"search", "--tests", "some", "x"}, 2, "--tests must be"},
		{"a bad --group is a usage error", dir, []string{"search", "--group", "dir", "x"}, 2, "--group must be"},
		{"an unknown ID fails", dir, []string{"recall", "zzzz"}, 1, "no memory"},
		{"an empty text to save is a usage error", dir, []string{"save", ""}, 2, "save: the text given is empty"},
		{"a blank text to save is a usage error", dir, []string{"save", "--type", "decision", "  ", ""}, 2, "save: the text given is empty"},
		{"nothing on standard input to save is a usage error", dir, []string{"save", "-"}, 2, "save: standard input is empty"},
		{"no text and an empty standard input is a usage error", dir, []string{"save"}, 2, "save: standard input is empty"},
		{"a title alone is something to save", dir, []string{"save", "--title", "Deploys freeze on Fridays", ""}, 0, ""},
		{"an empty query is a usage error, as MCP refuses it", dir, []string{"search", ""}, 2, "search: query is empty"},
		{"a blank query is a usage error", dir, []string{"search", " ", " "}, 2, "search: query is empty"},
		{"an empty ID is a usage error", dir, []string{"recall", ""}, 2, "recall: an empty ID names no memory"},
		{"a blank ID is a usage error", dir, []string{"delete", "  "}, 2, "delete: an empty ID names no memory"},
		{"an empty second ID is a usage error", dir, []string{"link", "zzzz", ""}, 2, "link: an empty ID names no memory"},
		{"an empty ID among several is a usage error", dir, []string{"merge", "zzzz", "", "yyyy"}, 2, "merge: an empty ID names no memory"},
		{"an unknown subcommand is named, with the valid ones", dir, []string{"hooks", "bogus"}, 2,
			"unknown command \"bogus\" for \"git-contextfs hooks\"\nValid commands: install, status, uninstall"},
		{"a mistyped subcommand gets a suggestion", dir, []string{"watch", "stopp"}, 2, "Did you mean stop?"},
		{"every command of subcommands says so", dir, []string{"session", "begin"}, 2, "unknown command \"begin\" for \"git-contextfs session\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.dir, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.inStderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d containing %q", r.code, r.stderr, tt.code, tt.inStderr)
			}
			if strings.Contains(r.stderr, "\x1b[") {
				t.Errorf("colour codes in stderr: %q", r.stderr)
			}
		})
	}
}

// TestCLIErrorsCutALongID: an ID of thousands of characters is a mistake;
// the message repeats its start and its length, not all of it.
func TestCLIErrorsCutALongID(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	id := ok(t, dir, "save", "--type", "fact", "The deploy bot posts to the releases channel.")
	id = strings.TrimSpace(id)
	long := strings.Repeat("x", 5000)
	want := `"` + long[:60] + `"… (5000 characters)`
	tests := []struct {
		name string
		args []string
	}{
		{"recall", []string{"recall", long}},
		{"delete", []string{"delete", long}},
		{"a link's target", []string{"link", id, long}},
		{"a link's source", []string{"link", long, id}},
		{"unlink of a link that is not there", []string{"unlink", id, long}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, dir, "", tt.args...)
			if r.code != 1 || !strings.Contains(r.stderr, want) || len(r.stderr) > 300 {
				t.Fatalf("exit %d, stderr of %d bytes:\n%.400s\nwant exit 1 and a short message with %s", r.code, len(r.stderr), r.stderr, want)
			}
		})
	}
}

func TestCLIEveryCommandHasHelpWithExamples(t *testing.T) {
	dir := testgit.Init(t)
	for _, c := range []string{"init", "save", "search", "recall", "list", "update", "delete", "status", "reindex", "schema", "validate", "index", "hooks", "review", "commit", "doctor", "fmt", "mcp"} {
		t.Run(c, func(t *testing.T) {
			out := ok(t, dir, c, "-h")
			if !strings.Contains(out, "Usage:") || !strings.Contains(out, "Examples:") {
				t.Fatalf("%s -h:\n%s", c, out)
			}
		})
	}
}

func TestCLIValidateNamesFileAndLine(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "A valid memory about caching.")
	bad := filepath.Join(dir, ".contextfs", "memories", "bad.md")
	src := "---\nid: badone1234\ntype: decision\ntitle: Bad\ncreated: 2024-01-01T00:00:00Z\nupdated: 2024-01-01T00:00:00Z\ndata:\n  status: done\n---\nbody\n"
	os.WriteFile(bad, []byte(src), 0o644)
	r := cli(t, dir, "", "validate")
	if r.code != 1 || !strings.Contains(r.stdout, ".contextfs/memories/bad.md:8: schema:") {
		t.Fatalf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rep struct {
		Files    int `json:"files"`
		Problems []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
		} `json:"problems"`
	}
	r = cli(t, dir, "", "validate", "--json", bad)
	decodeJSON(t, r.stdout, &rep)
	if r.code != 1 || rep.Files != 1 || len(rep.Problems) != 1 || rep.Problems[0].Line != 8 {
		t.Fatalf("validate --json: %d %+v", r.code, rep)
	}
	// Other commands still work, and the bad file is untouched.
	if out := ok(t, dir, "search", "caching"); !strings.Contains(out, "caching") {
		t.Fatalf("search with a bad file: %s", out)
	}
	if b, _ := os.ReadFile(bad); string(b) != src {
		t.Fatal("bad file rewritten")
	}
	os.Remove(bad)
	if r := cli(t, dir, "", "validate"); r.code != 0 {
		t.Fatalf("validate after fix: %+v", r)
	}
}

func TestCLIConcurrentProcessesLoseNothing(t *testing.T) {
	dir := testgit.Init(t)
	const procs, each = 4, 5
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r := cli(t, dir, "", "save", "--dedup", "allow", "--title", "Same title", fmt.Sprintf("process %d note %d", p, i))
				if r.code != 0 {
					t.Errorf("save: %+v", r)
				}
			}
		}(p)
	}
	wg.Wait()
	var es []map[string]any
	decodeJSON(t, ok(t, dir, "list", "--json"), &es)
	if len(es) != procs*each {
		t.Fatalf("%d memories listed, want %d", len(es), procs*each)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	if len(files) != procs*each {
		t.Fatalf("%d files, want %d", len(files), procs*each)
	}
}

func TestGitRunsTheSubcommand(t *testing.T) {
	dir := testgit.Init(t)
	cmd := exec.Command("git", "contextfs", "save", "--type", "fact", "Saved through git's subcommand lookup.")
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git contextfs: %v\n%s", err, out)
	}
	if len(strings.TrimSpace(string(out))) != 10 {
		t.Fatalf("git contextfs save printed %q", out)
	}
}

func TestIndexWorksWithTheConfigInitWrites(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	os.MkdirAll(filepath.Join(dir, "pool"), 0o755)
	src := "package pool\n\n// Acquire takes a connection from the pool, waiting until one is free.\nfunc Acquire() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "pool", "pool.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "pool")
	var res struct {
		Parsed int `json:"parsed"`
		Chunks int `json:"chunks"`
	}
	decodeJSON(t, ok(t, dir, "index", "--json"), &res)
	if res.Chunks == 0 {
		t.Fatalf("init's config (languages: []) indexed no code: %+v", res)
	}
	var hits []map[string]any
	decodeJSON(t, ok(t, dir, "search", "--type", "code", "--json", "Acquire"), &hits)
	if len(hits) == 0 || hits[0]["symbol"] != "Acquire" {
		t.Fatalf("search: %v", hits)
	}
}
