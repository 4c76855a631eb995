package exporter_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/exporter"
	"github.com/contextfs/contextfs/internal/testgit"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// seeded is a repository with memories of every exported type, saved a
// minute apart, and some that are not exported.
func seeded(t *testing.T) (string, *contextfs.Store) {
	t.Helper()
	dir := testgit.Init(t)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := contextfs.Open(context.Background(), contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin(),
		Now: func() time.Time { at = at.Add(time.Minute); return at }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, r := range []contextfs.SaveRequest{
		{Type: "project-brief", Title: "Billing", Body: "Billing turns usage events into invoices for the finance team."},
		{Type: "architecture", Title: "Event sourcing", Body: "Usage events are appended, never changed;\ninvoices are projections of them."},
		{Type: "learned-pattern", Body: "Money is an int64 count of cents, never a float."},
		{Type: "learned-pattern", Body: "Return errors wrapped with `%w`.", Paths: []string{"internal/**/*.go"}},
		{Type: "user", Title: "Tabs", Body: "Indent with tabs.", Data: map[string]any{"preference_key": "indentation", "preference_value": "tabs", "scope": "project"}},
		{Type: "decision", Title: "Use PostgreSQL for the ledger", Body: "Serializable transactions.", Data: map[string]any{"decision": "PostgreSQL", "status": "accepted", "date": "2024-04-02"}},
		{Type: "decision", Title: "Use MongoDB for usage events", Body: "Replaced.", Data: map[string]any{"decision": "MongoDB", "status": "superseded"}},
		{Type: "decision", Title: "Maybe GraphQL", Body: "Open.", Data: map[string]any{"status": "proposed"}},
		{Type: "fact", Body: "Not exported: a fact <!-- END contextfs -->."},
		{Type: "learned-pattern", Body: "A rule that tries to close the block <!-- END contextfs --> early."},
	} {
		if _, err := s.Save(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return dir, s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportAgentsMDKeepsTheRestAndIsIdempotent(t *testing.T) {
	dir, s := seeded(t)
	ctx := context.Background()
	before := "# AGENTS.md\r\n\r\nHand-written text stays.\r\n"
	after := "\r\n## Trailer\r\n\r\nAlso kept, without a final newline"
	// A stale block between the two parts is replaced.
	testgit.WriteFile(t, dir, "AGENTS.md", before+"<!-- BEGIN contextfs -->\r\nold\r\n<!-- END contextfs -->\r\n"+after)
	res, err := exporter.Export(ctx, s, exporter.Options{Target: exporter.AgentsMD})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Action != "update" || res.Items != 7 || res.Omitted != 0 {
		t.Fatalf("result: %+v", res)
	}
	got := read(t, dir, "AGENTS.md")
	if !strings.HasPrefix(got, before) || !strings.HasSuffix(got, after) {
		t.Fatalf("text outside the block changed:\n%q", got)
	}
	block := strings.TrimSuffix(strings.TrimPrefix(got, before), after)
	golden(t, "agents-md.golden", strings.ReplaceAll(block, "\r\n", "\n"))
	if strings.Count(got, "<!-- END contextfs -->") != 1 {
		t.Error("a memory's text closed the block")
	}

	res, err = exporter.Export(ctx, s, exporter.Options{Target: exporter.AgentsMD})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Action != "unchanged" || read(t, dir, "AGENTS.md") != got {
		t.Errorf("the second export changed AGENTS.md: %+v", res.Files)
	}
}

func TestExportClaudeMDCreatesTheFile(t *testing.T) {
	dir, s := seeded(t)
	res, err := exporter.Export(context.Background(), s, exporter.Options{Target: exporter.ClaudeMD, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "CLAUDE.md")); err == nil {
		t.Fatal("--dry-run wrote CLAUDE.md")
	}
	if res.Files[0].Action != "create" || !strings.HasPrefix(res.Files[0].Content, "<!-- BEGIN contextfs -->\n") {
		t.Fatalf("dry run: %+v", res.Files)
	}
	if _, err := exporter.Export(context.Background(), s, exporter.Options{Target: exporter.ClaudeMD}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "CLAUDE.md"); got != res.Files[0].Content {
		t.Errorf("the export wrote other than the dry run planned:\n%s", got)
	}
}

func TestExportKeepsWithinTheBudget(t *testing.T) {
	dir, s := seeded(t)
	if _, err := exporter.Export(context.Background(), s, exporter.Options{Target: exporter.AgentsMD, Budget: 20}); err == nil || !strings.Contains(err.Error(), "budget of 20") {
		t.Errorf("a budget below the frame: %v", err)
	}
	for _, budget := range []int{110, 150, 200} {
		res, err := exporter.Export(context.Background(), s, exporter.Options{Target: exporter.AgentsMD, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		got := read(t, dir, "AGENTS.md")
		if tok := contextblock.EstimateTokens(got); tok > budget || res.Omitted == 0 || res.Tokens != tok {
			t.Errorf("budget %d: %d tokens (reported %d), %d omitted", budget, tok, res.Tokens, res.Omitted)
		}
		// The brief gives way last.
		if res.Items > 0 && !strings.Contains(got, "Billing turns usage events") {
			t.Errorf("budget %d: the brief went before the rest:\n%s", budget, got)
		}
	}
}

func TestExportRefusesBrokenMarkers(t *testing.T) {
	for name, content := range map[string]string{
		"no end":        "x\n<!-- BEGIN contextfs -->\nold\n",
		"two blocks":    "<!-- BEGIN contextfs -->\n<!-- END contextfs -->\n<!-- BEGIN contextfs -->\n<!-- END contextfs -->\n",
		"end and begin": "<!-- END contextfs -->\n<!-- BEGIN contextfs -->\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir, s := seeded(t)
			testgit.WriteFile(t, dir, "AGENTS.md", content)
			_, err := exporter.Export(context.Background(), s, exporter.Options{Target: exporter.AgentsMD})
			var me *exporter.MarkerError
			if !errors.As(err, &me) || me.Path != "AGENTS.md" {
				t.Fatalf("err = %v", err)
			}
			if read(t, dir, "AGENTS.md") != content {
				t.Error("AGENTS.md was written")
			}
		})
	}
	t.Run("a link", func(t *testing.T) {
		dir, s := seeded(t)
		outside := filepath.Join(t.TempDir(), "elsewhere.md")
		os.WriteFile(outside, []byte("mine\n"), 0o644)
		if err := os.Symlink(outside, filepath.Join(dir, "AGENTS.md")); err != nil {
			t.Skip(err)
		}
		if _, err := exporter.Export(context.Background(), s, exporter.Options{Target: exporter.AgentsMD}); err == nil {
			t.Error("exported through a link")
		}
		if b, _ := os.ReadFile(outside); string(b) != "mine\n" {
			t.Error("the file behind the link was written")
		}
	})
}

func TestExportCursorRulesByPaths(t *testing.T) {
	dir, s := seeded(t)
	ctx := context.Background()
	testgit.WriteFile(t, dir, ".cursor/rules/mine.mdc", "---\nalwaysApply: true\n---\nMine.\n")
	res, err := exporter.Export(ctx, s, exporter.Options{Target: exporter.CursorRules})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 {
		t.Fatalf("files: %+v", res.Files)
	}
	always := read(t, dir, ".cursor/rules/contextfs.mdc")
	scoped := read(t, dir, res.Files[0].Path)
	golden(t, "cursor-always.golden", always)
	golden(t, "cursor-scoped.golden", scoped)
	if read(t, dir, ".cursor/rules/mine.mdc") != "---\nalwaysApply: true\n---\nMine.\n" {
		t.Error("a rule of the user's changed")
	}
	res, err = exporter.Export(ctx, s, exporter.Options{Target: exporter.CursorRules})
	if err != nil || res.Files[0].Action != "unchanged" || res.Files[1].Action != "unchanged" {
		t.Errorf("second export: %v %+v", err, res)
	}
	// A file of ours that is no longer needed goes; one that is not ours
	// is refused.
	testgit.WriteFile(t, dir, ".cursor/rules/contextfs-old-000000.mdc", "---\n---\n<!-- Written by `git contextfs export cursor-rules` -->\n")
	res, err = exporter.Export(ctx, s, exporter.Options{Target: exporter.CursorRules})
	if err != nil || res.Files[1].Action != "remove" {
		t.Fatalf("stale file: %v %+v", err, res)
	}
	testgit.WriteFile(t, dir, ".cursor/rules/contextfs-notes.mdc", "mine\n")
	if _, err := exporter.Export(ctx, s, exporter.Options{Target: exporter.CursorRules}); err == nil || !strings.Contains(err.Error(), "contextfs-notes.mdc") {
		t.Errorf("a file not ours: %v", err)
	}
}
