package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestFileNamesWithEscapesArePrintedEscaped stages a memory file whose
// name holds an escape sequence (it would turn the terminal red) and runs
// each command that names it: the raw byte must never reach the output,
// the name must appear quoted.
func TestFileNamesWithEscapesArePrintedEscaped(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "--title", "Hello", "A fact.")
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".contextfs", "memories", "bad\x1b[31mred.md"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, dir, "add", "-A")
	const quoted = `".contextfs/memories/bad\x1b[31mred.md"`
	for _, args := range [][]string{{"validate"}, {"status"}, {"doctor"}, {"hook", "pre-commit"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := cli(t, dir, "", args...)
			out := r.stdout + r.stderr
			if strings.Contains(out, "\x1b") {
				t.Errorf("a raw escape reached the output:\n%q", out)
			}
			if !strings.Contains(out, quoted) {
				t.Errorf("the name is not shown quoted as %s:\n%s", quoted, out)
			}
		})
	}
}
