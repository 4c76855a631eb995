package main

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/hooks"
)

// ---------------------------------------------------------------------------
// git contextfs install | uninstall

// installOptions are the flags of install and uninstall.
type installOptions struct {
	json bool
}

// installCmd is `install`: the once-per-user setup, like `git lfs install`.
func (a *app) installCmd() *cobra.Command {
	o := &installOptions{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Register the memory merge driver in your global git config (once per user)",
		Long: `Registers the contextfs merge driver in your global git config
(~/.gitconfig, or the file GIT_CONFIG_GLOBAL names), once per user as
git lfs install does. A repository's .gitattributes line routing memories
to the driver is committed and cloned, but the driver's git config is not:
without this, every fresh clone merges memories as plain text until
someone runs git contextfs init there, and two branches that each add a
tag to the same memory conflict. Running it again changes nothing.

It changes no repository: git contextfs hooks install does the hooks.`,
		Example: `  git contextfs install
  git contextfs install --json
  git contextfs uninstall`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runInstall(cmd.Context(), o, true)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print {file, configured, driver} as JSON")
	return cmd
}

// uninstallCmd is `uninstall`: install undone.
func (a *app) uninstallCmd() *cobra.Command {
	o := &installOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the merge driver from your global git config",
		Long: `Removes what git contextfs install added to your global git config.
Repositories where git contextfs init or hooks install registered the
driver in their own config keep it there.`,
		Example: `  git contextfs uninstall`,
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runInstall(cmd.Context(), o, false)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print {file, configured, driver} as JSON")
	return cmd
}

// runInstall registers (on) or unregisters the global merge driver and
// reports the result.
func (a *app) runInstall(ctx context.Context, o *installOptions, on bool) error {
	dir := a.workDir()
	change, verb := hooks.UnregisterGlobalMergeDriver, "removed from"
	if on {
		change, verb = hooks.RegisterGlobalMergeDriver, "registered in"
	}
	if err := change(ctx, dir); err != nil {
		return fmt.Errorf("global git config: %w", err)
	}
	st, err := hooks.CheckGlobalMergeDriver(ctx, dir)
	if err != nil {
		return fmt.Errorf("global git config: %w", err)
	}
	if o.json {
		return a.printJSON(map[string]any{"file": st.File, "configured": st.Configured, "driver": st.Driver})
	}
	fmt.Fprintf(a.io.Out, "merge driver %s %s\n", verb, st.File)
	if on {
		fmt.Fprintln(a.io.Out, "memories now merge field by field in every clone whose .gitattributes routes them to contextfs")
		if _, err := exec.LookPath("git-contextfs"); err != nil {
			fmt.Fprintln(a.io.ErrOut, "warning: git-contextfs is not on PATH, so git will merge memories as plain text; put it on PATH (make install)")
		}
	}
	return nil
}
