package importer_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/importer"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/memory"
)

// fixture copies testdata/repo into a new git repository and opens it.
func fixture(t *testing.T) (string, *contextfs.Store) {
	t.Helper()
	dir := testgit.Init(t)
	err := filepath.WalkDir("testdata/repo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/repo", p)
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
	return dir, open(t, dir)
}

func open(t *testing.T, dir string) *contextfs.Store {
	t.Helper()
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// tree hashes every file under .contextfs/.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, ".contextfs")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[strings.TrimPrefix(p, root)] = hex.EncodeToString(sum[:])
		return nil
	})
	return out
}

// memories reads every imported memory, by imported_from.
func memories(t *testing.T, s *contextfs.Store) map[string]*memory.Memory {
	t.Helper()
	es, err := s.List(context.Background(), contextfs.ListOptions{Source: importer.Tool, All: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*memory.Memory{}
	for _, e := range es {
		m, err := s.Read(e.Path)
		if err != nil {
			t.Fatal(err)
		}
		out[m.Data[importer.KeyFrom].(string)] = m
	}
	return out
}

func TestImportMakesOneTypedMemoryPerRuleOrSection(t *testing.T) {
	dir, s := fixture(t)
	ctx := context.Background()
	plan, err := importer.Import(ctx, s, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Count(importer.Create); got != 30 || len(plan.Steps) != 30 {
		t.Fatalf("created %d of %d steps, want 30:\n%+v", got, len(plan.Steps), plan.Steps)
	}
	if slices.Contains(plan.Files, "docs/adr/template.md") {
		t.Error("the ADR template was imported")
	}
	ms := memories(t, s)
	byFile := map[string]map[string]int{}
	for from, m := range ms {
		f, _, _ := strings.Cut(from, "#")
		if byFile[f] == nil {
			byFile[f] = map[string]int{}
		}
		byFile[f][m.Type]++
		if m.Source == nil || m.Source.Tool != importer.Tool {
			t.Errorf("%s: source %+v", from, m.Source)
		}
	}
	want := map[string]map[string]int{
		"CLAUDE.md":                                      {"learned-pattern": 12},
		"AGENTS.md":                                      {"project-brief": 1, "architecture": 1, "procedural": 1, "learned-pattern": 2},
		".cursor/rules/go-style.mdc":                     {"learned-pattern": 2},
		".cursor/rules/language.mdc":                     {"learned-pattern": 1},
		"memory-bank/projectbrief.md":                    {"project-brief": 2},
		"memory-bank/productContext.md":                  {"product-context": 1},
		"memory-bank/systemPatterns.md":                  {"architecture": 1},
		"memory-bank/techContext.md":                     {"tech-context": 1},
		"memory-bank/activeContext.md":                   {"progress": 1},
		"memory-bank/progress.md":                        {"progress": 1},
		"docs/adr/0001-record-architecture-decisions.md": {"decision": 1},
		"docs/adr/0002-use-postgresql.md":                {"decision": 1},
		"docs/adr/0003-use-mongodb.md":                   {"decision": 1},
	}
	for f, types := range want {
		for typ, n := range types {
			if byFile[f][typ] != n {
				t.Errorf("%s: %d %s memories, want %d (all: %v)", f, byFile[f][typ], typ, n, byFile[f])
			}
		}
	}
	// The rule with a continuation line and the one with a nested list
	// are one memory each, the marker gone.
	if m := ms["CLAUDE.md#claude-md/rules/7"]; m == nil || m.Body != "Return errors wrapped with context:\n`fmt.Errorf(\"open ledger: %w\", err)`.\n" {
		t.Errorf("rule 7: %#v", m)
	}
	if m := ms["CLAUDE.md#claude-md/rules/9"]; m == nil || !strings.Contains(m.Body, "- pin the exact version") || m.Title != "Do not add dependencies without a review:" {
		t.Errorf("rule 9: %#v", m)
	}
	// Cursor: globs become paths, unless the rule applies always.
	for _, from := range []string{".cursor/rules/go-style.mdc#go-style/1", ".cursor/rules/go-style.mdc#go-style/2"} {
		m := ms[from]
		if m == nil || !slices.Equal(m.Paths, []string{"internal/**/*.go", "cmd/**/*.go"}) || m.Data["context"] != "Go conventions for the server code" {
			t.Errorf("%s: %#v", from, m)
		}
	}
	if m := ms[".cursor/rules/language.mdc#top/text"]; m == nil || len(m.Paths) != 0 {
		t.Errorf("the alwaysApply rule: %#v", m)
	}
	// ADRs: status and decision from Nygard's and MADR's sections.
	for from, w := range map[string][3]string{
		"docs/adr/0001-record-architecture-decisions.md": {"accepted", "We will use Architecture Decision Records, as described by Michael Nygard.", "2024-03-01"},
		"docs/adr/0002-use-postgresql.md":                {"accepted", `Chosen option: "PostgreSQL", because it has serializable transactions.`, "2024-04-02"},
		"docs/adr/0003-use-mongodb.md":                   {"superseded", "We will store usage events in MongoDB.", "2024-02-10"},
	} {
		m := ms[from]
		if m == nil || m.Data["status"] != w[0] || m.Data["decision"] != w[1] || m.Data["date"] != w[2] {
			t.Errorf("%s: %#v", from, m)
		}
	}
	if m := ms["docs/adr/0001-record-architecture-decisions.md"]; m == nil || m.Title != "Record architecture decisions" {
		t.Errorf("ADR title: %#v", m)
	}

	// Again: nothing is written.
	before := tree(t, dir)
	plan, err = importer.Import(ctx, s, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Count(importer.Unchanged) != 30 || len(plan.Steps) != 30 {
		t.Errorf("second import: %+v", plan.Steps)
	}
	if after := tree(t, dir); !maps(before, after) {
		t.Error("the second import changed .contextfs/")
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestImportUpdatesAnEditedRuleAndKeepsMovedOnes(t *testing.T) {
	dir, s := fixture(t)
	ctx := context.Background()
	if _, err := importer.Import(ctx, s, importer.Options{Paths: []string{"CLAUDE.md"}}); err != nil {
		t.Fatal(err)
	}
	old := memories(t, s)
	src, _ := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	edited := strings.Replace(string(src), "Wrap lines at 100 columns.", "Wrap lines at 120 columns.", 1)
	// A new rule at the top moves every other one down a place.
	edited = strings.Replace(edited, "- Use tabs", "- Run `make lint` before pushing.\n- Use tabs", 1)
	testgit.WriteFile(t, dir, "CLAUDE.md", edited)

	dry, err := importer.Import(ctx, s, importer.Options{Paths: []string{"CLAUDE.md"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	// One new rule, one edited, the moved ones as they were (their
	// files are not rewritten for a new place).
	if c, u, n := dry.Count(importer.Create), dry.Count(importer.Update), dry.Count(importer.Unchanged); c != 1 || u != 1 || n != 11 {
		t.Errorf("dry run plans %d creates, %d updates, %d unchanged", c, u, n)
	}
	if after := tree(t, dir); !maps(before, after) {
		t.Error("--dry-run wrote")
	}
	plan, err := importer.Import(ctx, s, importer.Options{Paths: []string{"CLAUDE.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(plan.Steps, dry.Steps, func(a, b importer.Step) bool {
		return a.Action == b.Action && a.From == b.From && (a.ID == b.ID || b.ID == "")
	}) {
		t.Errorf("the import did not do what the dry run planned:\n%+v\n%+v", plan.Steps, dry.Steps)
	}
	now, err := s.List(ctx, contextfs.ListOptions{Source: importer.Tool})
	if err != nil || len(now) != 13 {
		t.Fatalf("%d memories, want 13 (%v)", len(now), err)
	}
	wrap := old["CLAUDE.md#claude-md/rules/2"]
	var found bool
	for _, e := range now {
		if e.ID == wrap.ID {
			found = true
			m, _ := s.Read(e.Path)
			if !strings.Contains(m.Body, "120 columns") {
				t.Errorf("the edited rule was not updated: %q", m.Body)
			}
		}
	}
	if !found {
		t.Error("the edited rule's memory is gone")
	}
	if again, err := importer.Import(ctx, s, importer.Options{Paths: []string{"CLAUDE.md"}}); err != nil || again.Count(importer.Unchanged) != 13 {
		t.Errorf("third import: %v %+v", err, again)
	}
}

func TestImportRefusesBadInputNamingTheFile(t *testing.T) {
	for _, tc := range []struct {
		name, rel, content, want string
	}{
		{"unclosed frontmatter", ".cursor/rules/x.mdc", "---\nglobs: a\n# Rule\n", ".cursor/rules/x.mdc: frontmatter opened"},
		{"glob out of the repository", ".cursor/rules/x.mdc", "---\nglobs: ../secret/**\n---\n- rule\n", "leads out of the repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testgit.Init(t)
			testgit.WriteFile(t, dir, "CLAUDE.md", "- a rule\n")
			testgit.WriteFile(t, dir, tc.rel, tc.content)
			s := open(t, dir)
			_, err := importer.Import(context.Background(), s, importer.Options{})
			var pe *importer.ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || pe.File != tc.rel {
				t.Fatalf("err = %v, want a ParseError naming %s with %q", err, tc.rel, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".contextfs")); err == nil {
				if len(tree(t, dir)) > 1 { // config.yaml at most
					t.Errorf("something was imported: %v", tree(t, dir))
				}
			}
		})
	}
	t.Run("a link out of the work tree", func(t *testing.T) {
		dir := testgit.Init(t)
		outside := filepath.Join(t.TempDir(), "secret.md")
		os.WriteFile(outside, []byte("- secret\n"), 0o644)
		if err := os.Symlink(outside, filepath.Join(dir, "CLAUDE.md")); err != nil {
			t.Skip(err)
		}
		s := open(t, dir)
		if _, err := importer.Import(context.Background(), s, importer.Options{}); err == nil || !strings.Contains(err.Error(), "CLAUDE.md") {
			t.Errorf("a link was followed: %v", err)
		}
	})
}

func TestImportSkipsTheExportedBlock(t *testing.T) {
	src := "# Rules\n\n- Use tabs.\n\n" + importer.BlockBegin + "\n## From contextfs\n\n- Exported rule.\n" + importer.BlockEnd + "\n"
	items, err := importer.Parse(importer.Instructions, "AGENTS.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Body != "Use tabs.\n" {
		t.Errorf("items: %+v", items)
	}
}
