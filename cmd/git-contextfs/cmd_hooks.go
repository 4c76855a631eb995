package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/workflow"
)

// ---------------------------------------------------------------------------
// git contextfs hooks install|uninstall|status

// hooksCmd is `hooks`, with install, uninstall and status below it.
func (a *app) hooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install, remove or show the git hooks that keep contextfs current",
		Long: `contextfs uses five git hooks. pre-commit refuses a commit whose staged
memories are invalid or hold a secret; post-checkout, post-merge,
post-rewrite and post-commit refresh the search cache after git changed
the files, and never block. post-commit also keeps AGENTS.md, CLAUDE.md
or Cursor rules current where this clone opted in (export --on-commit).

Each hook file gets a small marked block that calls git-contextfs; a hook
that already exists (yours, husky's, lefthook's, pre-commit's) is kept and
runs after the block. Uninstalling removes only the block. Hooks are
installed where git runs them: core.hooksPath if set, and the common git
directory for all worktrees. See docs/HOOKS.md.`,
		Example: `  git contextfs hooks install
  git contextfs hooks status
  git contextfs hooks status --json
  git contextfs hooks uninstall`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.hooksInstallCmd(), a.hooksUninstallCmd(), a.hooksStatusCmd())
	return cmd
}

// hooksInstallOptions are the flags of hooksInstall.
type hooksInstallOptions struct {
	json bool
}

// hooksInstallCmd is hooksInstall: its help and flags; runHooksInstall does the work.
func (a *app) hooksInstallCmd() *cobra.Command {
	o := &hooksInstallOptions{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the hooks and register the memory merge driver",
		Long: `Adds the contextfs block to the pre-commit, post-merge, post-checkout,
post-rewrite and post-commit hooks, creating the files that do not exist
and chaining into those that do, and registers the memory merge driver
(git config in this clone, a line in .gitattributes). Running it again
changes nothing; a block written by another version is replaced.`,
		Example: `  git contextfs hooks install
  git contextfs hooks install --json`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHooksInstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the hooks' states and the merge driver's as JSON")
	return cmd
}

// runHooksInstall runs hooksInstall with o.
func (a *app) runHooksInstall(ctx context.Context, o *hooksInstallOptions) error {
	h, err := workflow.InstallHooks(ctx, a.workDir())
	if h == nil {
		return err
	}
	if !o.json {
		for _, n := range workTreeNotes(h.Changed) {
			fmt.Fprintln(a.io.ErrOut, n)
		}
	}
	if perr := a.printHooks(h, o.json); perr != nil {
		return perr
	}
	for _, s := range h.States {
		if s.Framework && !o.json {
			fmt.Fprintf(a.io.ErrOut, "note: the pre-commit framework owns the %s hook, so contextfs' block went into %s, which the framework runs first and keeps across `pre-commit install`.\n"+
				"      Better: add contextfs to %s (id: %s; see docs/HOOKS.md).\n", s.Name, filepath.Base(s.Path), workflow.HookFrameworkConfig, workflow.HookFrameworkID)
		}
	}
	if _, err := exec.LookPath("git-contextfs"); err != nil && !o.json {
		fmt.Fprintln(a.io.ErrOut, "warning: git-contextfs is not on PATH, so the hooks will skip their work; put it on PATH")
	}
	return err
}

// workTreeNotes says, one line each, what an install changed in hook
// files inside the work tree (core.hooksPath naming a folder such as
// .githooks): such files are the team's, shown by git status and shared
// once committed, so no change to them goes unsaid.
func workTreeNotes(changed []workflow.HookFileChange) []string {
	var out []string
	for _, c := range changed {
		kind := "an untracked file in the work tree"
		if c.Tracked {
			kind = "a file tracked in the repository"
		}
		out = append(out, fmt.Sprintf("note: %s %s, %s (core.hooksPath): git status shows it; commit it to share it with the team, or run git contextfs hooks uninstall to undo it",
			c.What, printable.Path(c.Rel), kind))
	}
	return out
}

// hooksUninstallOptions are the flags of hooksUninstall.
type hooksUninstallOptions struct {
	json, driver bool
}

// hooksUninstallCmd is hooksUninstall: its help and flags; runHooksUninstall does the work.
func (a *app) hooksUninstallCmd() *cobra.Command {
	o := &hooksUninstallOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the contextfs block from the hooks",
		Long: `Removes the contextfs block from each hook and undoes what install changed
around it: a file install created is deleted, and a file that was already
there is restored byte for byte (edits made to it since are kept).

The merge driver stays registered unless --merge-driver is given: its
.gitattributes line is shared with everyone who clones the repository.`,
		Example: `  git contextfs hooks uninstall
  git contextfs hooks uninstall --merge-driver`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHooksUninstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.driver, "merge-driver", false, "also unregister the merge driver (git config and the .gitattributes line)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the hooks' states and the merge driver's as JSON")
	return cmd
}

// runHooksUninstall runs hooksUninstall with o.
func (a *app) runHooksUninstall(ctx context.Context, o *hooksUninstallOptions) error {
	h, err := workflow.UninstallHooks(ctx, a.workDir(), o.driver)
	if h == nil {
		return err
	}
	if perr := a.printHooks(h, o.json); perr != nil {
		return perr
	}
	return err
}

// hooksStatusOptions are the flags of hooksStatus.
type hooksStatusOptions struct {
	json bool
}

// hooksStatusCmd is hooksStatus: its help and flags; runHooksStatus does the work.
func (a *app) hooksStatusCmd() *cobra.Command {
	o := &hooksStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether each hook and the merge driver are installed",
		Long: `Prints one line per hook: installed or not, outdated (written by another
version: run install), chained (another hook shares the file) and whether
git will run it at all (a hook file without the executable bit is
skipped silently by git). The last line is the merge driver. When this
clone's git config asks the hooks to export (contextfs.exportOnCommit) and
the post-commit hook will not run, a note on stderr says so (--json:
export_on_commit).`,
		Example: `  git contextfs hooks status
  git contextfs hooks status --json`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHooksStatus(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the hooks' states and the merge driver's as JSON")
	return cmd
}

// runHooksStatus runs hooksStatus with o.
func (a *app) runHooksStatus(ctx context.Context, o *hooksStatusOptions) error {
	h, err := workflow.HookStatus(ctx, a.workDir())
	if h == nil {
		return err
	}
	if perr := a.printHooks(h, o.json); perr != nil {
		return perr
	}
	return err
}

// hookJSON is workflow.HookState as the JSON output spells it.
type hookJSON struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Installed  bool   `json:"installed"`
	Outdated   bool   `json:"outdated"`
	Chained    bool   `json:"chained"`
	Executable bool   `json:"executable"`
	// Framework: the pre-commit framework owns the hook file; Path is
	// then its .legacy file. ViaFramework: its config runs contextfs.
	Framework    bool `json:"framework"`
	ViaFramework bool `json:"via_framework"`
}

// driverJSON is the merge driver's state (workflow.MergeDriver) as the JSON output spells it.
type driverJSON struct {
	Configured bool   `json:"configured"`
	Attributes bool   `json:"attributes"`
	Driver     string `json:"driver"`
	Error      string `json:"error,omitempty"`
}

// printHooks prints the hooks' states and the merge driver's.
func (a *app) printHooks(h *workflow.Hooks, asJSON bool) error {
	top, states, driver := h.Top, h.States, h.Driver
	md, mderr := driver.State, driver.Err
	// An export this clone asked for that no hook will run: say so.
	exportNote := h.ExportNote
	if asJSON {
		hs := make([]hookJSON, 0, len(states))
		for _, s := range states {
			hs = append(hs, hookJSON{s.Name, s.Path, s.Installed, s.Outdated, s.Chained, s.Executable, s.Framework, s.ViaFramework})
		}
		d := driverJSON{Configured: md.Configured, Attributes: md.Attributes, Driver: md.Driver}
		if mderr != nil {
			d.Error = mderr.Error()
		}
		out := map[string]any{"hooks": hs, "merge_driver": d}
		if exportNote != "" {
			out["export_on_commit"] = exportNote
		}
		return a.printJSON(out)
	}
	for _, s := range states {
		fmt.Fprintf(a.io.Out, "%-14s %-44s %s\n", s.Name, hookState(s), printable.Path(displayPath(top, s.Path)))
	}
	fmt.Fprintf(a.io.Out, "%-14s %s\n", "merge driver", driver.Text)
	if exportNote != "" {
		fmt.Fprintln(a.io.ErrOut, "note: "+exportNote)
	}
	return nil
}

// hookState describes a hook in a few words.
func hookState(s workflow.HookState) string {
	if s.ViaFramework {
		return "installed by the pre-commit framework (" + workflow.HookFrameworkConfig + ")"
	}
	if s.Framework && !s.Installed {
		return "not installed (pre-commit framework hook; add contextfs to " + workflow.HookFrameworkConfig + " or run git contextfs hooks install)"
	}
	if s.Framework && s.Outdated {
		return "outdated: inside the pre-commit framework's hook, which `pre-commit install` overwrites; run git contextfs hooks install"
	}
	if s.Framework {
		return "installed, run by the pre-commit framework from " + filepath.Base(s.Path)
	}
	if !s.Installed {
		if s.Chained {
			return "not installed (another hook is there)"
		}
		return "not installed"
	}
	words := []string{"installed"}
	if s.Outdated {
		words = []string{"outdated: run git contextfs hooks install"}
	}
	if s.Chained {
		words = append(words, "chained")
	}
	if !s.Executable {
		words = append(words, "NOT EXECUTABLE: git skips it")
	}
	return strings.Join(words, ", ")
}

// displayPath shows p relative to the top of the work tree when it is
// inside it.
func displayPath(top, p string) string {
	if top == "" {
		return p
	}
	if rel, err := filepath.Rel(top, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
