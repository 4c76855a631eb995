package contextfs_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is this module's path; packages outside it are not ruled here.
const module = "github.com/contextfs/contextfs"

// layers places every package of the module (by its directory, "" for the
// root) in a layer. The rule, stated in docs/ARCHITECTURE.md: a package
// imports only packages of a lower layer. So leaves (layer 0) import none
// of ours, nothing below the root imports the root, and the adapters (MCP,
// CLI) sit on top. A new package goes here, one line, in the lowest layer
// its imports allow; until then it is taken for a capability (layer 5).
var layers = map[string]int{
	// -1 the foundation: helpers with no knowledge of memories that the
	// leaves use too (how a file name is printed).
	"internal/printable": -1,
	// 0 leaves: the model and self-contained mechanisms.
	"memory": 0, "internal/mdtext": 0, "secrets": 0, "watch": 0, "git": 0, "internal/porter": 0,
	"internal/wordvec": 0, "internal/worldset": 0,
	"pathglob": 0, "query": 0, "internal/testproc": 0, "internal/sibling": 0, "gitindex": 0,
	"cmd/git-contextfs/iostreams": 0, "internal/buildinfo": 0,
	// 1 readers of Markdown files, over goldmark (internal/mdtext).
	"frontmatter": 1, "chunker": 1,
	// 2 storage and building blocks over the leaves.
	"gitstore": 2, "embed": 2, "hooks": 2, "internal/testgit": 2, "internal/sick": 2,
	"branchdiff": 2, "agentsetup": 3,
	// 3 what the repository holds: its config, its cache, its merges; and
	// the HTTP client of provider openai, over package embed.
	"config": 3, "cache": 3, "memmerge": 3, "embed/openai": 3,
	// 4 the jobs: checking, searching, indexing code and history.
	"check": 4, "search": 4, "autoindex": 4,
	// 5 capabilities built from jobs.
	"commitflow": 5,
	// 6 the front door.
	"": 6,
	// 7–9 capabilities over the front door: what agents use (the context
	// block, sessions), knowledge hygiene (links, duplicates, lineage,
	// aging, the graph) and the pull-request report that shows it.
	// Several stores behind one API (the user's, other repositories) too.
	"session": 7, "links": 7, "dedup": 7, "scope": 7, "internal/teststore": 7,
	"lineage": 8, "aging": 8, "graph": 8, "contextblock": 8,
	"review": 9, "importer": 8, "exporter": 9, "capture": 9,
	// 10 the service: the workflows every adapter runs, end to end (save
	// with checks, update, lineage, links, sessions, the context block,
	// review, search across scopes …; docs/ARCHITECTURE.md); and the
	// warm-answer server, which runs an adapter's commands inside the
	// watcher over stores it keeps open.
	"workflow": 10, "warm": 10,
	// 11 adapters over the service and the front door; 12 programs.
	"mcpserver": 11, "cmd/git-contextfs": 12, "cmd/git-contextfs-mcp": 12, "cmd/git-contextfs-embed": 12, "cmd/git-contextfs-serve": 12,
	"cmd/contextfs-bench": 12, "cmd/contextfs-model": 12,
}

// adapterImports are the packages of the module each adapter may import.
// The goal (issue 31): the service (workflow), the model (memory) and
// the adapter's own presentation helpers. Until then each list is what
// the adapter still needs, and it only shrinks: a workflow that moves into
// the service takes its packages off these lists, and the test fails
// while a list names a package the adapter no longer imports.
var adapterImports = map[string][]string{
	"cmd/git-contextfs": {"", "cmd/git-contextfs/iostreams",
		"frontmatter", "git", "gitstore", "hooks",
		"internal/buildinfo", "internal/printable", "internal/sibling", "memory",
		"warm", "watch", "workflow"},
	"mcpserver": {"", "memory", "workflow"},
}

// unplaced is the layer of a package not yet in layers.
const unplaced = 5

// moduleImports returns, for each package directory of the module under
// root, the module packages its non-test files import. It parses import
// blocks only, so it needs no build and sees files of every platform.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = ""
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if p == module {
				out[pkg] = append(out[pkg], "")
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				out[pkg] = append(out[pkg], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerViolations lists the imports of imports that break the layer rule.
func layerViolations(imports map[string][]string) []string {
	layer := func(p string) int {
		if l, ok := layers[p]; ok {
			return l
		}
		return unplaced
	}
	name := func(p string) string {
		if p == "" {
			return "contextfs (root)"
		}
		return p
	}
	var bad []string
	for pkg, ims := range imports {
		for _, im := range ims {
			if layer(im) >= layer(pkg) {
				bad = append(bad, name(pkg)+" (layer "+strconv.Itoa(layer(pkg))+") imports "+
					name(im)+" (layer "+strconv.Itoa(layer(im))+")")
			}
		}
	}
	sort.Strings(bad)
	return bad
}

func TestEveryPackageImportsOnlyLowerLayers(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t, wd)
	for _, v := range layerViolations(imports) {
		t.Errorf("%s: a package may import only lower layers (docs/ARCHITECTURE.md)", v)
	}
	for pkg := range imports {
		if _, ok := layers[pkg]; !ok {
			t.Logf("package %s has no layer in layers_test.go; taken for a capability (layer %d)", pkg, unplaced)
		}
	}
	for pkg := range layers {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("layers names %q, which is not a package of the module", pkg)
		}
	}
}

// TestAdaptersImportOnlyTheirAllowList keeps the CLI and the MCP server
// from reaching past the service again: save and update go through
// package workflow, so neither imports dedup or aging.
func TestAdaptersImportOnlyTheirAllowList(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t, wd)
	for adapter, allowed := range adapterImports {
		got := map[string]bool{}
		for _, im := range imports[adapter] {
			if !got[im] && !slices.Contains(allowed, im) {
				t.Errorf("%s imports %q, which is not on its list: go through package workflow (docs/ARCHITECTURE.md)", adapter, im)
			}
			got[im] = true
		}
		for _, im := range allowed {
			if !got[im] {
				t.Errorf("%s no longer imports %q: take it off adapterImports, which only shrinks", adapter, im)
			}
		}
	}
}

func TestTheLayerRuleCatchesForbiddenImports(t *testing.T) {
	tests := []struct {
		name    string
		imports map[string][]string
		want    int
	}{
		{"a package below the root imports the root", map[string][]string{"commitflow": {""}}, 1},
		{"a leaf imports a non-leaf", map[string][]string{"memory": {"gitstore"}}, 1},
		{"a leaf imports another leaf", map[string][]string{"secrets": {"git"}}, 1},
		{"a package imports one of its own layer", map[string][]string{"check": {"search"}}, 1},
		{"an unplaced package imports the root", map[string][]string{"newthing": {""}}, 1},
		{"the front door imports the jobs", map[string][]string{"": {"check", "search", "commitflow", "config"}}, 0},
		{"an adapter imports the front door", map[string][]string{"mcpserver": {"", "memory"}}, 0},
		{"an unplaced package imports the jobs", map[string][]string{"newthing": {"check", "gitstore"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := layerViolations(tt.imports); len(got) != tt.want {
				t.Errorf("violations %q, want %d", got, tt.want)
			}
		})
	}
}
