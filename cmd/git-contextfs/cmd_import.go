package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// importOptions are the flags and arguments of import.
type importOptions struct {
	paths  []string
	dryRun bool
	json   bool
}

// importCmd is import: its help and flags; runImport does the work.
func (a *app) importCmd() *cobra.Command {
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import [PATH...] [--dry-run] [--json]",
		Short: "Import CLAUDE.md, AGENTS.md, Cursor rules, .clinerules, memory-bank/ and ADRs as memories",
		Long: `Reads the knowledge files a repository already keeps for agents into typed
memories, one per rule or section: CLAUDE.md, AGENTS.md, .cursorrules,
.clinerules (a file or folder), .cursor/rules/*.mdc (globs become paths:),
memory-bank/*.md (Cline's memory bank) and docs/adr/*.md (decisions with
their status). Without PATH every one that exists is read; a PATH names
files or folders to read instead.

Each memory records where it came from (source tool contextfs-import,
data.imported_from and data.import_hash): importing again writes nothing,
an edited rule updates its memory, and a rule deleted from its file is
reported as gone and kept. --dry-run prints the plan and writes nothing.
docs/AGENTS.md has the mapping of files and headings to types.`,
		Example: `  git contextfs import --dry-run
  git contextfs import
  git contextfs import CLAUDE.md docs/adr`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return a.runImport(cmd, o)
		},
	}
	cmd.Flags().BoolVarP(&o.dryRun, "dry-run", "n", false, "print what would be created or updated; write nothing")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the plan as JSON")
	return cmd
}

// runImport runs import with o.
func (a *app) runImport(cmd *cobra.Command, o *importOptions) error {
	return a.withService(func(cmd *cobra.Command, _ []string, svc *workflow.Service) error {
		var rels []string
		for _, p := range o.paths {
			rel, ok := repoRel(svc.Repo().Repo.Root, a.userAbs(p))
			if !ok {
				return &usageError{fmt.Errorf("%s: not inside the repository", p)}
			}
			rels = append(rels, rel)
		}
		plan, err := svc.Import(cmd.Context(), workflow.ImportRequest{Paths: rels, DryRun: o.dryRun})
		if plan != nil && !o.json {
			a.printImport(plan)
		}
		if err != nil {
			return err
		}
		if o.json {
			return a.printJSON(plan)
		}
		return nil
	})(cmd, nil)
}

// printImport prints one line per step and a count of each action.
func (a *app) printImport(p *workflow.ImportPlan) {
	verb := map[string]string{workflow.ImportCreate: "create", workflow.ImportUpdate: "update", workflow.ImportUnchanged: "unchanged", workflow.ImportGone: "gone"}
	for _, s := range p.Steps {
		if s.Action == workflow.ImportUnchanged {
			continue
		}
		id := s.ID
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(a.io.Out, "%-9s %s %s %q  (%s)\n", verb[s.Action], id, s.Type, s.Title, s.From)
	}
	would := ""
	if p.DryRun {
		would = " (dry run: nothing written)"
	}
	fmt.Fprintf(a.io.Out, "%d files: %d created, %d updated, %d unchanged, %d gone%s\n", len(p.Files),
		p.Count(workflow.ImportCreate), p.Count(workflow.ImportUpdate), p.Count(workflow.ImportUnchanged), p.Count(workflow.ImportGone), would)
}

// exportCmd is export: its help and flags.
func (a *app) exportCmd() *cobra.Command {
	var (
		dryRun, asJSON, onCommit bool
		budget                   int
	)
	cmd := &cobra.Command{
		Use:   "export agents-md|claude-md|cursor-rules [--dry-run] [--budget TOKENS] [--on-commit[=false]] [--json]",
		Short: "Write the project's key memories into AGENTS.md, CLAUDE.md or Cursor rules",
		Long: `Writes the project brief, architecture, conventions (learned patterns),
preferences and accepted decisions for agents that read files, not MCP:
agents-md and claude-md replace the block between "<!-- BEGIN contextfs -->"
and "<!-- END contextfs -->" in AGENTS.md or CLAUDE.md (appended, or the
file created, when there is none), keeping the rest of the file byte for
byte; cursor-rules writes .cursor/rules/contextfs.mdc (always applied) and
one contextfs-*.mdc per set of paths: (as its globs). The order is fixed
and the size within --budget estimated tokens (default 1500): a second
export with the same memories changes no byte. Memories imported from the
target file are left out (the file says them already).

--on-commit also keeps the target current from now on: the post-commit
hook (installed if missing) exports it after each commit that changes
memories, post-merge and post-rewrite after a pull or rebase that brings
some in, and leaves what changed in the work tree for you to commit.
The choice is this clone's, kept in its git config (contextfs.exportOnCommit,
comma-separated targets), never the repository's; --on-commit=false
turns it off again and exports nothing.`,
		Example: `  git contextfs export agents-md
  git contextfs export agents-md --on-commit
  git contextfs export claude-md --budget 800 --dry-run
  git contextfs export cursor-rules`,
		Args:      argsRange(1, 1),
		ValidArgs: workflow.ExportTargets,
		RunE: func(cmd *cobra.Command, args []string) error {
			if budget < 0 {
				return &usageError{fmt.Errorf("--budget must not be negative, got %d", budget)}
			}
			target := args[0]
			found := false
			for _, t := range workflow.ExportTargets {
				found = found || t == target
			}
			if !found {
				return &usageError{fmt.Errorf("unknown target %q; valid targets are %s", target, strings.Join(workflow.ExportTargets, ", "))}
			}
			setOnCommit := cmd.Flags().Changed("on-commit")
			if setOnCommit && dryRun {
				return &usageError{fmt.Errorf("--on-commit and --dry-run exclude each other")}
			}
			if setOnCommit && onCommit && budget != 0 {
				// The hook exports with the default budget; a block
				// that changed size on the next commit would surprise.
				return &usageError{fmt.Errorf("--on-commit keeps the default budget (%d tokens); drop --budget", workflow.ExportDefaultBudget)}
			}
			return a.withService(func(cmd *cobra.Command, _ []string, svc *workflow.Service) error {
				if setOnCommit && !onCommit {
					return a.setExportOnCommit(cmd.Context(), svc, target, false)
				}
				if err := a.runExport(cmd.Context(), svc, workflow.ExportRequest{Target: target, Budget: budget, DryRun: dryRun}, asJSON); err != nil {
					return err
				}
				if setOnCommit {
					return a.setExportOnCommit(cmd.Context(), svc, target, onCommit)
				}
				return nil
			})(cmd, args)
		},
	}
	cmd.Flags().BoolVarP(&dryRun, "dry-run", "n", false, "print the files' new content; write nothing")
	cmd.Flags().IntVar(&budget, "budget", 0, "size of what is written in estimated `TOKENS` (default 1500)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&onCommit, "on-commit", false, "keep the target current from the post-commit hook, in this clone (=false: stop)")
	return cmd
}

// runExport runs export and prints what it wrote.
func (a *app) runExport(ctx context.Context, svc *workflow.Service, o workflow.ExportRequest, asJSON bool) error {
	res, err := svc.Export(ctx, o)
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(res)
	}
	for _, f := range res.Files {
		fmt.Fprintf(a.io.Out, "%-9s %s\n", f.Action, f.Path)
		if o.DryRun && f.Content != "" {
			fmt.Fprintf(a.io.Out, "%s\n", f.Content)
		}
	}
	fmt.Fprintf(a.io.Out, "%d memories, %d left out, %d of %d tokens\n", res.Items, res.Omitted, res.Tokens, res.Budget)
	return nil
}
