package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// validateOptions are the flags and arguments of validate.
type validateOptions struct {
	json, noSecrets bool
	paths           []string
}

// validateCmd is validate: its help and flags; runValidate does the work.
func (a *app) validateCmd() *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Check memory files; exit 1 if any is invalid",
		Long: `Checks every memory file (or the ones named): YAML syntax, known type,
required fields, the type's data schema, expires: dates, unique IDs, links
and supersedes naming a memory that exists (and not the memory itself),
supersedes cycles (rule "cycle") and leftover merge conflict markers,
and scans them for secrets (rule "secret"; the allow
lists of .contextfs/config.yaml apply; --no-secrets skips the scan).
Problems are printed as FILE:LINE: RULE: MESSAGE.
Exit status: 0 all valid, 1 something is invalid.`,
		Example: "  git contextfs validate\n  git contextfs validate .contextfs/memories/use-pgx-k3x9m2abcd.md --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return a.runValidate(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print {files, problems} as JSON")
	cmd.Flags().BoolVar(&o.noSecrets, "no-secrets", false, "do not scan the memories for secrets")
	return cmd
}

// runValidate runs validate with o.
func (a *app) runValidate(ctx context.Context, o *validateOptions) error {
	// PATHs are the user's: relative to the current folder, or to DIR
	// with -C DIR (app.userPath).
	paths := a.userAbsAll(o.paths)
	for i, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("validate %s: %w", o.paths[i], errors.Unwrap(err))
		}
	}
	// The files and the settings, not the store: validate never reads the
	// cache, and must work where the cache cannot be opened.
	res, err := workflow.Validate(ctx, workflow.ValidateRequest{Dir: a.workDir(), Notices: a.io.ErrOut, Paths: paths, NoSecrets: o.noSecrets})
	if err != nil {
		return err
	}
	probs, n := res.Problems, res.Files
	if o.json {
		if err := a.printJSON(map[string]any{"files": n, "problems": probs}); err != nil {
			return err
		}
	} else {
		for _, p := range probs {
			fmt.Fprintln(a.io.Out, p)
		}
		if len(probs) == 0 {
			fmt.Fprintf(a.io.ErrOut, "%d memory file(s) valid\n", n)
		}
	}
	if len(probs) > 0 {
		return &exitError{exitFail}
	}
	return nil
}
