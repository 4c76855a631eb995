package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestStatusAndValidateReportFilesMemoriesSkip leaves what kill -9 and
// hand edits leave in .contextfs/memories: status names the temp file, the
// symlink and the name with a newline; validate names the last two (exit
// 1); init writes the .gitignore rule that keeps temp files out of
// commits.
func TestStatusAndValidateReportFilesMemoriesSkip(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "init")
	ign, err := os.ReadFile(filepath.Join(dir, ".contextfs", ".gitignore"))
	if err != nil || !strings.Contains(string(ign), ".contextfs-tmp-*") {
		t.Fatalf("init's .gitignore: %q, %v", ign, err)
	}
	ok(t, dir, "save", "--type", "fact", "A fact about the cache.")
	mem := filepath.Join(dir, ".contextfs", "memories")
	os.WriteFile(filepath.Join(mem, ".contextfs-tmp-1"), []byte("---\nid: abcd\n---\n"), 0o644)
	os.WriteFile(filepath.Join(mem, "new\nline-abcd.md"), []byte("---\nid: abcd\n---\n"), 0o644)
	if err := os.Symlink("/etc/hostname", filepath.Join(mem, "link-abce.md")); err != nil {
		t.Fatal(err)
	}
	out := ok(t, dir, "status")
	for _, want := range []string{"temp-file", "symlink", "odd-name"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not report %s:\n%s", want, out)
		}
	}
	r := cli(t, dir, "", "validate")
	all := r.stdout + r.stderr
	if r.code != 1 || !strings.Contains(all, "symlink") || !strings.Contains(all, "odd-name") || strings.Contains(all, "temp-file") {
		t.Fatalf("validate: exit %d\n%s", r.code, all)
	}
}
