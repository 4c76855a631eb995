package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// importFixture is a repository holding the importer's fixture: a
// CLAUDE.md of 12 bullet rules, an AGENTS.md, two Cursor rules (one with
// globs), a memory bank and three ADRs (and an ADR template).
func importFixture(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	src := filepath.Join("..", "..", "internal", "importer", "testdata", "repo")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		testgit.WriteFile(t, dir, filepath.ToSlash(rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// treeHashes hashes every file of the work tree outside .git.
func treeHashes(t *testing.T, dir, under string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, under)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s: %s changed or went", what, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("%s: %s appeared", what, k)
		}
	}
}

func TestImportThroughTheCLIIsTypedAndIdempotent(t *testing.T) {
	dir := importFixture(t)
	var dry struct {
		Files []string
		Steps []struct{ Action, Type, From string }
	}
	decodeJSON(t, ok(t, dir, "import", "--dry-run", "--json"), &dry)
	if len(dry.Steps) != 30 || len(dry.Files) != 13 {
		t.Fatalf("dry run: %d steps from %d files", len(dry.Steps), len(dry.Files))
	}
	if _, err := os.Stat(filepath.Join(dir, ".contextfs", "memories")); err == nil {
		t.Fatal("--dry-run wrote memories")
	}
	out := ok(t, dir, "import")
	if !strings.Contains(out, "13 files: 30 created, 0 updated, 0 unchanged, 0 gone") {
		t.Fatalf("import:\n%s", out)
	}
	types := map[string]int{}
	var list []struct {
		Type string `json:"type"`
	}
	decodeJSON(t, ok(t, dir, "list", "--source", "contextfs-import", "--all", "--json"), &list)
	for _, e := range list {
		types[e.Type]++
	}
	want := map[string]int{"learned-pattern": 17, "project-brief": 3, "architecture": 2, "procedural": 1,
		"product-context": 1, "tech-context": 1, "progress": 2, "decision": 3}
	for typ, n := range want {
		if types[typ] != n {
			t.Errorf("%d %s memories, want %d (all: %v)", types[typ], typ, n, types)
		}
	}
	// The Cursor rule with globs: its two rules carry them as paths.
	attached := ok(t, dir, "search", "--path", "internal/ledger/post.go")
	if strings.Count(attached, "learned-pattern") != 2 {
		t.Errorf("memories attached to internal/ledger/post.go:\n%s", attached)
	}
	var decisions []struct{ Title, Status string }
	decodeJSON(t, ok(t, dir, "list", "--type", "decision", "--all", "--json"), &decisions)
	status := map[string]string{}
	for _, d := range decisions {
		status[d.Title] = d.Status
	}
	if status["Use MongoDB for usage events"] != "superseded" || status["Use PostgreSQL for the ledger"] != "accepted" {
		t.Errorf("the ADRs' statuses: %v", status)
	}

	before := treeHashes(t, dir, ".contextfs")
	if out := ok(t, dir, "import"); !strings.Contains(out, "0 created, 0 updated, 30 unchanged") {
		t.Errorf("second import:\n%s", out)
	}
	sameFiles(t, "the second import", before, treeHashes(t, dir, ".contextfs"))
}

func TestExportAgentsMDThroughTheCLIChangesNoByteTwice(t *testing.T) {
	dir := importFixture(t)
	ok(t, dir, "import")
	orig, err := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if out := ok(t, dir, "export", "agents-md"); !strings.HasPrefix(out, "update    AGENTS.md\n") {
		t.Fatalf("export:\n%s", out)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if !strings.HasPrefix(string(first), string(orig)+"\n") {
		t.Fatalf("the text before the block changed:\n%s", first)
	}
	block := strings.TrimPrefix(string(first), string(orig)+"\n")
	golden := filepath.Join("testdata", "export-agents-md.golden")
	if os.Getenv("CONTEXTFS_UPDATE_GOLDEN") == "1" {
		os.WriteFile(golden, []byte(block), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if block != string(want) {
		t.Errorf("the block differs from %s (CONTEXTFS_UPDATE_GOLDEN=1 rewrites it):\n%s", golden, block)
	}
	// Rules imported from AGENTS.md itself are not repeated in its block.
	if strings.Contains(block, "Money is an int64") {
		t.Error("the block repeats AGENTS.md's own rules")
	}

	all := treeHashes(t, dir, ".")
	if out := ok(t, dir, "export", "agents-md"); !strings.HasPrefix(out, "unchanged AGENTS.md\n") {
		t.Errorf("second export:\n%s", out)
	}
	sameFiles(t, "the second export", all, treeHashes(t, dir, "."))
	// Importing the exported file again finds nothing new in the block.
	if out := ok(t, dir, "import", "AGENTS.md"); !strings.Contains(out, "0 created, 0 updated, 5 unchanged") {
		t.Errorf("import after export:\n%s", out)
	}
	for _, args := range [][]string{{"export"}, {"export", "readme"}, {"export", "agents-md", "--budget", "-1"}} {
		if r := cli(t, dir, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
	if r := cli(t, dir, "", "import", "../elsewhere"); r.code != 2 || !strings.Contains(r.stderr, "not inside the repository") {
		t.Errorf("import outside: %d %s", r.code, r.stderr)
	}
}
