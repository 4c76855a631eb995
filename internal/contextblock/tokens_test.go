package contextblock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/contextfs/contextfs/internal/contextblock"
)

// tokenizerDir holds the real tokenizers, installed from their lockfile
// by make test (npm ci).
const tokenizerDir = "../../tests/tokenizer"

// countTokens counts texts with the tokenizers agents use, through
// tests/tokenizer/count.mjs.
func countTokens(t *testing.T, texts []string) []map[string]int {
	t.Helper()
	if _, err := os.Stat(filepath.Join(tokenizerDir, "node_modules")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the tokenizers are not installed (cd tests/tokenizer && npm ci): %v", err)
		}
		t.Skipf("the tokenizers are not installed (cd tests/tokenizer && npm ci): %v", err)
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "count.mjs")
	cmd.Dir = tokenizerDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("count.mjs: %v\n%s", err, stderr.String())
	}
	var counts []map[string]int
	if err := json.Unmarshal(out, &counts); err != nil {
		t.Fatalf("count.mjs answered %q: %v", out, err)
	}
	if len(counts) != len(texts) {
		t.Fatalf("%d counts for %d texts", len(counts), len(texts))
	}
	return counts
}

// TestEstimateNeverUndercountsRealTokenizers builds blocks of several
// budgets and tasks, and checks that the estimate is never below what
// o200k_base, cl100k_base and the Claude tokenizer count, nor, for the
// blocks, more than half again as much (an estimate that always says
// "huge" would pass the first check and waste the budget).
func TestEstimateNeverUndercountsRealTokenizers(t *testing.T) {
	f := seed(t)
	var texts []string
	for _, o := range []contextblock.Options{
		{Budget: 100000}, {Budget: 2000, Task: "invoices"}, {Budget: 400, Task: "auth tokens"}, {Budget: 150},
	} {
		b, err := contextblock.Build(context.Background(), f.s, o)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, b.Markdown())
	}
	blocks := len(texts)
	texts = append(texts,
		"- [k3x9m2abcd] Tokens expire after 3600 s (decision): see auth/**/*.go and sha 9f2c1e7b4a.\n",
		"Préférences: réponses courtes, 日本語のテスト, emoji 🚀 — fine.\n",
	)
	counts := countTokens(t, texts)
	for i, text := range texts {
		est := contextblock.EstimateTokens(text)
		for name, n := range counts[i] {
			if est < n {
				t.Errorf("text %d: estimate %d < %s's %d tokens", i, est, name, n)
			}
			// Text in other scripts is estimated high on purpose.
			if i < blocks && float64(est) > 1.5*float64(n) {
				t.Errorf("text %d: estimate %d > 1.5 × %s's %d tokens", i, est, name, n)
			}
		}
		t.Logf("text %d: estimate %d, tokenizers %v", i, est, counts[i])
	}
}
