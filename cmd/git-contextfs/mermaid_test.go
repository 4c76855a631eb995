package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// mermaidChecker returns the command that parses a Mermaid file with the
// Mermaid library (tests/mermaid, installed by `npm ci` there). Without
// node the test is skipped, except in CI (CI=true), where it must run.
func mermaidChecker(t *testing.T) func(file string) (string, error) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "tests", "mermaid"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed; CI must run the Mermaid parse check")
		}
		t.Skip("node is not installed: the Mermaid parse check needs it (CI runs it)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "mermaid")); err != nil {
		t.Fatalf("the Mermaid library is not installed: run `npm ci` in %s (make test does)", dir)
	}
	return func(file string) (string, error) {
		out, err := exec.Command(node, filepath.Join(dir, "parse.mjs"), file).CombinedOutput()
		return string(out), err
	}
}

func TestCLIReviewDiagramParsesWithMermaid(t *testing.T) {
	parse := mermaidChecker(t)
	dir := hookedRepo(t)
	old := save(t, dir, "--type", "decision", "--title", `Pool "DB" connections <fast> #1`, "We pool 20 connections.")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	testgit.Run(t, dir, "checkout", "-q", "-b", "feature")
	api := save(t, dir, "--type", "api", "--title", "Orders API: end", "The orders API reads through the pool.")
	ok(t, dir, "link", api, old, "--rel", "depends_on")
	ok(t, dir, "evolve", old, "--reason", "correction", "We pool 40 connections.")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "feature")

	md := ok(t, dir, "review", "main")
	start := strings.Index(md, "```mermaid\n")
	if start < 0 {
		t.Fatalf("review prints no Mermaid block:\n%s", md)
	}
	block := md[start+len("```mermaid\n"):]
	block = block[:strings.Index(block, "```")]
	for _, want := range []string{"|depends_on|", "-.->|supersedes|", "[added]", "[superseded]"} {
		if !strings.Contains(block, want) {
			t.Errorf("diagram lacks %q:\n%s", want, block)
		}
	}
	file := filepath.Join(t.TempDir(), "review.mmd")
	os.WriteFile(file, []byte(block), 0o644)
	if out, err := parse(file); err != nil {
		t.Fatalf("Mermaid rejects the review diagram: %v\n%s\n%s", err, out, block)
	}
	// The check can fail: a broken diagram is rejected.
	os.WriteFile(file, []byte(strings.Replace(block, "-->|", "-->|[", 1)), 0o644)
	if out, err := parse(file); err == nil {
		t.Fatalf("Mermaid accepted a broken diagram:\n%s", out)
	}
}
