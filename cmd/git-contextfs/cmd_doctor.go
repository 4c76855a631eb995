package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// ---------------------------------------------------------------------------
// git contextfs doctor

// doctorCmd is `doctor`: checks of the whole setup, and repairs.
// doctorOptions are the flags of doctor.
type doctorOptions struct {
	fix, json bool
}

func (a *app) doctorCmd() *cobra.Command {
	o := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the hooks, merge driver, config, cache and memories; --fix repairs",
		Long: `Checks that contextfs is set up and healthy in this repository:

  git-contextfs  on PATH (the hooks call it from there), and the same
                 version as this one
  hooks          installed, up to date, executable (not installed: a warning)
  merge-driver   registered in git config and .gitattributes (a warning)
  export-on-commit  only when git config contextfs.exportOnCommit is set:
                 a warning when the post-commit hook will not run it
  config         .contextfs/config.yaml present (a warning) and valid
  cache          opens and answers
  memories       every memory file is valid
  user-store     where your own store is, how many memories it holds,
                 and whether all are committed (a warning if not)
  user-privacy   no other local user may read your store (0700/0600)

With --fix it installs or updates the hooks, registers the merge driver,
writes the default config when there is none, rebuilds a broken
cache and makes your user store private, then checks again. Invalid memories are left to you: run
git contextfs validate to see them.

Outside any repository it checks your user store, as the MCP server
started there serves it (hooks: not a repository); with no user store
either, it says it is no repository, and creates nothing.

Exit status: 0 when nothing failed (warnings allowed), 1 otherwise.`,
		Example: `  git contextfs doctor
  git contextfs doctor --fix
  git contextfs doctor --json`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDoctor(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.fix, "fix", false, "install or update the hooks, register the merge driver, write a missing config, rebuild a broken cache")
	cmd.Flags().BoolVar(&o.json, "json", false, "print {ok, checks, fixed} as JSON")
	return cmd
}

// runDoctor runs doctor with o.
func (a *app) runDoctor(ctx context.Context, o *doctorOptions) error {
	res, err := workflow.Doctor(ctx, workflow.DoctorRequest{Dir: a.workDir(), Version: version(), Fix: o.fix})
	if err != nil {
		return err
	}
	for _, err := range res.RepairErrors {
		fmt.Fprintf(a.io.ErrOut, "contextfs: doctor --fix: %v\n", err)
	}
	rep := res.Report
	checks, fixed, healthy := rep.Checks, rep.Fixed, rep.OK
	if o.json {
		if err := a.printJSON(rep); err != nil {
			return err
		}
	} else {
		for _, f := range fixed {
			fmt.Fprintf(a.io.Out, "fixed  %s\n", f)
		}
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK:
				mark = "FAIL"
			case c.Warning:
				mark = "warn"
			}
			fmt.Fprintf(a.io.Out, "%s   %-14s %s\n", mark, c.Name, c.Message)
		}
		canFix := false
		for _, c := range checks {
			canFix = canFix || c.Fixable && (!c.OK || c.Warning)
		}
		if canFix && !o.fix {
			fmt.Fprintln(a.io.Out, "run git contextfs doctor --fix to repair what can be repaired")
		}
	}
	if !healthy {
		return &exitError{exitFail}
	}
	return nil
}
