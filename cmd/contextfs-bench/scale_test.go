package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSectionKeepsTheOtherSections: bench-scale's section replaces
// its previous self or is appended; every other section stays as it was.
func TestWriteSectionKeepsTheOtherSections(t *testing.T) {
	const h = "## Scale: x"
	for _, tc := range []struct{ name, old, want string }{
		{"no file", "", "## Scale: x\n\nnew\n"},
		{"no section yet", "# B\n\nintro\n\n## Go\n\ngo\n", "# B\n\nintro\n\n## Go\n\ngo\n\n## Scale: x\n\nnew\n"},
		{"a section between others", "# B\n\n## A\n\na\n\n## Scale: x\n\nold\nold\n\n## Go\n\ngo\n", "# B\n\n## A\n\na\n\n## Scale: x\n\nnew\n## Go\n\ngo\n"},
		{"the last section", "# B\n\n## Scale: x\n\nold\n", "# B\n\n## Scale: x\n\nnew\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "B.md")
			if tc.old != "" {
				os.WriteFile(p, []byte(tc.old), 0o644)
			}
			if err := writeSection(p, h, h+"\n\nnew\n"); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
