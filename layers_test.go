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

// The tiers, bottom up (docs/ARCHITECTURE.md draws them). The rule: a
// package imports only packages of its own tier or a lower one. So the
// model imports nothing of the mechanisms, nothing below the store
// imports the store, no capability imports the service, and only the
// adapters sit on top. Go itself forbids cycles within a tier.
const (
	model        = iota // the model and self-contained leaves
	mechanisms          // files, git, the cache, search, checks: below the store
	store               // the front door (Open, Store) and its commit
	capabilities        // one job each over the store
	service             // the workflows every adapter runs, end to end
	adapters            // the CLI, the MCP server and the programs
)

// tierNames name the tiers in messages.
var tierNames = []string{"model", "mechanisms", "store", "capabilities", "service", "adapters"}

// tiers places every package of the module (by its directory, "" for the
// root) in a tier. A new package goes here, one line, in the lowest tier
// its imports allow; until then it is taken for a capability.
var tiers = map[string]int{
	// The model and leaves: memory, the git runner, the query syntax,
	// and helpers that know nothing of memories.
	"memory": model, "internal/git": model, "internal/query": model, "internal/secrets": model, "internal/watch": model, "internal/pathglob": model,
	"internal/gitindex": model, "internal/printable": model, "internal/mdtext": model, "internal/porter": model,
	"internal/wordvec": model, "internal/worldset": model, "internal/testproc": model,
	"internal/sibling": model, "internal/buildinfo": model, "cmd/git-contextfs/iostreams": model,
	// Mechanisms: Markdown and code readers, the repository's files and
	// config, hooks, the cache, embedders, search, checks, indexing.
	"frontmatter": mechanisms, "chunker": mechanisms, "gitstore": mechanisms, "internal/embed": mechanisms,
	"internal/embed/openai": mechanisms, "hooks": mechanisms, "internal/branchdiff": mechanisms, "internal/agentsetup": mechanisms,
	"internal/config": mechanisms, "cache": mechanisms, "internal/memmerge": mechanisms, "internal/check": mechanisms,
	"internal/search": mechanisms, "internal/autoindex": mechanisms, "internal/testgit": mechanisms, "internal/sick": mechanisms,
	// The store: the front door and the memory-only commit it runs.
	"": store, "internal/commitflow": store,
	// Capabilities over the store: sessions, links, duplicates, several
	// stores, lineage, aging, the graph, the context block, import and
	// export, capture, and the pull-request report.
	"internal/session": capabilities, "internal/links": capabilities, "internal/dedup": capabilities, "internal/scope": capabilities,
	"internal/lineage": capabilities, "internal/aging": capabilities, "internal/graph": capabilities, "internal/contextblock": capabilities,
	"internal/importer": capabilities, "internal/review": capabilities, "internal/exporter": capabilities, "internal/capture": capabilities,
	"internal/teststore": capabilities,
	// The service, and the warm-answer server that runs an adapter's
	// commands inside the watcher over stores it keeps open.
	"internal/workflow": service, "internal/warm": service,
	// Adapters and programs.
	"internal/mcpserver": adapters, "cmd/git-contextfs": adapters, "cmd/git-contextfs-mcp": adapters,
	"cmd/git-contextfs-embed": adapters, "cmd/git-contextfs-serve": adapters,
	"cmd/contextfs-bench": adapters, "cmd/contextfs-model": adapters,
}

// adapterImports are the packages of the module each adapter may import:
// the service (workflow), the model (memory), the root package for its
// types and options, and the adapter's own presentation helpers; for the
// CLI also the warm-answer client and server (warm), which runs its
// commands inside the watcher. No mechanism: a workflow the adapter needs
// goes into the service. The test fails when an adapter imports a
// package off its list, and when a list names a package the adapter no
// longer imports, so the lists only shrink.
var adapterImports = map[string][]string{
	"cmd/git-contextfs": {"", "cmd/git-contextfs/iostreams",
		"internal/buildinfo", "internal/printable", "internal/sibling", "memory",
		"internal/warm", "internal/workflow"},
	"internal/mcpserver": {"", "memory", "internal/workflow"},
	// The MCP server's program: it opens what the server serves and
	// starts git-contextfs's watcher beside it.
	"cmd/git-contextfs-mcp": {"", "internal/buildinfo", "internal/mcpserver",
		"internal/sibling", "internal/warm", "internal/workflow"},
	// The viewer (git contextfs serve): its pages read through the
	// service's Browser; it starts git-contextfs's watcher as the MCP
	// program does.
	"cmd/git-contextfs-serve": {"", "memory", "internal/buildinfo",
		"internal/sibling", "internal/warm", "internal/workflow"},
}

// unplaced is the tier of a package not yet in tiers.
const unplaced = capabilities

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

// tierViolations lists the imports of imports that break the tier rule.
func tierViolations(imports map[string][]string) []string {
	tier := func(p string) int {
		if t, ok := tiers[p]; ok {
			return t
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
			if tier(im) > tier(pkg) {
				bad = append(bad, name(pkg)+" ("+tierNames[tier(pkg)]+") imports "+name(im)+" ("+tierNames[tier(im)]+")")
			}
		}
	}
	sort.Strings(bad)
	return bad
}

func TestEveryPackageImportsOnlyItsTierOrLower(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t, wd)
	for _, v := range tierViolations(imports) {
		t.Errorf("%s: a package may import only its own tier or lower ones (docs/ARCHITECTURE.md)", v)
	}
	for pkg := range imports {
		if _, ok := tiers[pkg]; !ok {
			t.Logf("package %s has no tier in layers_test.go; taken for a capability", pkg)
		}
	}
	for pkg := range tiers {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("tiers names %q, which is not a package of the module", pkg)
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

func TestTheTierRuleCatchesForbiddenImports(t *testing.T) {
	tests := []struct {
		name    string
		imports map[string][]string
		want    int
	}{
		{"a mechanism imports the store", map[string][]string{"internal/search": {""}}, 1},
		{"the model imports a mechanism", map[string][]string{"memory": {"gitstore"}}, 1},
		{"a mechanism imports a capability", map[string][]string{"internal/check": {"internal/dedup"}}, 1},
		{"a capability imports the service", map[string][]string{"internal/lineage": {"internal/workflow"}}, 1},
		{"the service imports an adapter", map[string][]string{"internal/workflow": {"internal/mcpserver"}}, 1},
		{"an unplaced package imports the service", map[string][]string{"newthing": {"internal/workflow"}}, 1},
		{"the store imports mechanisms", map[string][]string{"": {"internal/check", "internal/search", "internal/commitflow", "internal/config"}}, 0},
		{"an adapter imports the store and the service", map[string][]string{"internal/mcpserver": {"", "memory", "internal/workflow"}}, 0},
		{"packages of one tier import each other", map[string][]string{"internal/lineage": {"internal/session", "internal/links"}}, 0},
		{"an unplaced package imports the store", map[string][]string{"newthing": {"", "gitstore"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tierViolations(tt.imports); len(got) != tt.want {
				t.Errorf("violations %q, want %d", got, tt.want)
			}
		})
	}
}
