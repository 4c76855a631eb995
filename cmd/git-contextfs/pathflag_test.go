package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestPathFlagIsReadFromTheCurrentFolder: search --path FILE and list
// --path FILE name FILE as the shell does, relative to the current folder
// (to DIR under -C DIR) or absolute, as index and validate read their
// paths. Before, FILE was read from the repository root: from a sub-folder,
// or given absolute, it silently matched nothing, exit 0. A file outside
// the repository is a usage error.
func TestPathFlagIsReadFromTheCurrentFolder(t *testing.T) {
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "pkg/inner/x.go", "package inner\n")
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "fact", "--path", "pkg/inner/*.go", "The inner package keeps the kakapo census."))
	sub := filepath.Join(dir, "pkg", "inner")
	abs := filepath.Join(sub, "x.go")
	// The same folder through a symbolic link: the root and the path are
	// named differently and still compared.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}

	finds := []struct {
		name string
		dir  string
		args []string
	}{
		{"search from the file's folder", sub, []string{"search", "--path", "x.go"}},
		{"search with a query from the file's folder", sub, []string{"search", "--path", "x.go", "kakapo census"}},
		{"list from the file's folder", sub, []string{"list", "--path", "x.go"}},
		{"search with a path up and down", filepath.Join(dir, "pkg"), []string{"search", "--path", "../pkg/inner/x.go"}},
		{"search with an absolute path", sub, []string{"search", "--path", abs}},
		{"list with an absolute path", dir, []string{"list", "--path", abs}},
		{"search from the root, as before", dir, []string{"search", "--path", "pkg/inner/x.go"}},
		{"search with -C, relative to its folder", dir, []string{"-C", "pkg/inner", "search", "--path", "x.go"}},
		{"search with the path through a link", sub, []string{"search", "--path", filepath.Join(link, "pkg", "inner", "x.go")}},
	}
	for _, tt := range finds {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.dir, "", tt.args...)
			if r.code != 0 || !strings.Contains(r.stdout, id) {
				t.Errorf("%v in %s: exit %d, want %s in stdout\nstdout: %s\nstderr: %s", tt.args, tt.dir, r.code, id, r.stdout, r.stderr)
			}
		})
	}

	// From the sub-folder, a root-relative name is another file.
	if r := cli(t, sub, "", "search", "--path", "pkg/inner/x.go"); r.code != 0 || strings.Contains(r.stdout, id) ||
		!strings.Contains(r.stderr, "no memories attached to pkg/inner/pkg/inner/x.go") {
		t.Errorf("a root-relative path from the sub-folder: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	outside := filepath.Join(t.TempDir(), "other.go")
	refused := []struct {
		name string
		dir  string
		args []string
		arg  string
	}{
		{"search of a file above the root", dir, []string{"search", "--path", "../other.go"}, "../other.go"},
		{"search with a query of an absolute path elsewhere", sub, []string{"search", "--path", outside, "kakapo"}, outside},
		{"list of a file elsewhere", sub, []string{"list", "--path", "x.go", "--path", outside}, outside},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.dir, "", tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, "--path "+tt.arg+": outside the repository") || r.stdout != "" {
				t.Errorf("%v in %s: exit %d, want 2 naming %s\nstdout: %s\nstderr: %s", tt.args, tt.dir, r.code, tt.arg, r.stdout, r.stderr)
			}
		})
	}
}
