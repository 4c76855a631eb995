package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// ---------------------------------------------------------------------------
// git contextfs install | uninstall

// installOptions are the flags of install and uninstall.
type installOptions struct {
	json bool
	// force (install only) replaces a merge.contextfs.driver that
	// contextfs did not write.
	force bool
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
tag to the same memory conflict. Running it again changes nothing; a
driver an earlier version registered is updated.

A merge.contextfs.driver there that contextfs did not write (your own
wrapper) is kept: install says so and fails (exit 1); --force replaces it.

It changes no repository: git contextfs hooks install does the hooks.`,
		Example: `  git contextfs install
  git contextfs install --json
  git contextfs install --force
  git contextfs uninstall`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runInstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print {file, configured, driver} as JSON")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace a merge.contextfs.driver that contextfs did not write")
	return cmd
}

// uninstallCmd is `uninstall`: install undone.
func (a *app) uninstallCmd() *cobra.Command {
	o := &installOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the merge driver from your global git config",
		Long: `Removes what git contextfs install added to your global git config, and
the file itself when install created it and nothing else is in it. A
merge.contextfs.driver that contextfs did not write is left as it is.
Repositories where git contextfs init or hooks install registered the
driver in their own config keep it there.`,
		Example: `  git contextfs uninstall`,
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runUninstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print {file, configured, driver, removed} as JSON")
	return cmd
}

// runInstall registers the global merge driver and reports the result.
func (a *app) runInstall(ctx context.Context, o *installOptions) error {
	dir := a.workDir()
	st, err := workflow.InstallGlobalMergeDriver(ctx, dir, o.force)
	if fe, ok := errors.AsType[*workflow.ForeignDriverError](err); ok {
		return fmt.Errorf("%w; git contextfs install --force replaces it with contextfs's driver", fe)
	}
	if err != nil {
		return fmt.Errorf("global git config: %w", err)
	}
	if o.json {
		return a.printJSON(map[string]any{"file": st.File, "configured": st.Configured, "driver": st.Driver})
	}
	fmt.Fprintf(a.io.Out, "merge driver registered in %s\n", st.File)
	fmt.Fprintln(a.io.Out, "memories now merge field by field in every clone whose .gitattributes routes them to contextfs")
	if _, err := exec.LookPath("git-contextfs"); err != nil {
		fmt.Fprintln(a.io.ErrOut, "warning: git-contextfs is not on PATH, so git will merge memories as plain text; put it on PATH (make install)")
	}
	return nil
}

// runUninstall removes the global merge driver, when it is contextfs's,
// and says what it removed or why nothing.
func (a *app) runUninstall(ctx context.Context, o *installOptions) error {
	dir := a.workDir()
	u, st, err := workflow.UninstallGlobalMergeDriver(ctx, dir)
	if err != nil {
		return fmt.Errorf("global git config: %w", err)
	}
	if o.json {
		return a.printJSON(map[string]any{"file": st.File, "configured": st.Configured, "driver": st.Driver, "removed": u.Removed})
	}
	f := u.Found
	switch {
	case u.FileRemoved:
		fmt.Fprintf(a.io.Out, "merge driver removed, and %s with it (install had created it; nothing else was in it)\n", f.File)
	case u.Removed:
		fmt.Fprintf(a.io.Out, "merge driver removed from %s\n", f.File)
	case f.Driver != "":
		fmt.Fprintf(a.io.Out, "nothing to remove: %v\n", &workflow.ForeignDriverError{File: f.File, Driver: f.Driver})
	default:
		fmt.Fprintf(a.io.Out, "nothing to remove: no merge driver in %s\n", f.File)
	}
	return nil
}
