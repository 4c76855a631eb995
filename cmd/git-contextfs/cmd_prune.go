package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

func (a *app) pruneCmd() *cobra.Command {
	var dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "prune [--dry-run]",
		Short: "Apply the aging rules: one current progress, expired memories removed",
		Long: `Applies the aging rules as an ordinary change of files to review and
commit: the latest progress memory supersedes older current ones, and
memories whose expires: date has passed are removed (git keeps them).
A date in expires: lasts to the end of that day (UTC); an RFC 3339 time
expires at that instant. Session summaries (episodic memories) beyond
hygiene.session_cap (default 3) are listed as candidates to condense into
a learned-pattern; prune never writes that pattern itself. Files that
validate rejects (a malformed expires: among them) are never changed or
deleted: each is reported as "skip:" and the rest are pruned. --dry-run
lists the steps and changes nothing.`,
		Example: `  git contextfs prune --dry-run
  git contextfs prune && git add .contextfs && git commit -m "Prune memories"`,
		Args: argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			steps, err := workflow.Prune(cmd.Context(), s, dryRun, time.Now())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(steps)
			}
			acted := false
			for _, st := range steps {
				verb := "did"
				switch {
				case st.Kind == "invalid":
					verb = "skip"
				case st.Proposal:
					verb = "propose"
				case dryRun:
					verb = "would"
				}
				fmt.Fprintf(a.io.Out, "%s: %s\n", verb, st.Message)
				acted = acted || verb != "skip"
			}
			if !acted {
				fmt.Fprintln(a.io.Out, "nothing to prune")
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would change; change nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the steps as JSON")
	return cmd
}
