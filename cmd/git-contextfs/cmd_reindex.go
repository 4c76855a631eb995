package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// reindexOptions are the flags of reindex.
type reindexOptions struct {
	json bool
}

// reindexCmd is reindex: its help and flags; runReindex does the work.
func (a *app) reindexCmd() *cobra.Command {
	o := &reindexOptions{}
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the cache from the files",
		Long: `Rebuilds the memory index from the files (the cache holds nothing that is not
derived from the files and git), beside the cache in use, and then puts it
in place at once: commands running meanwhile go on, with the old content
and then the new. Commands rebuild a missing, corrupt or old-schema cache
on their own; this is for doing it on demand.`,
		Example: "  git contextfs reindex",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			return a.runReindex(cmd.Context(), s, o)
		}),
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print a JSON summary")
	return cmd
}

// runReindex runs reindex with o.
func (a *app) runReindex(ctx context.Context, s *contextfs.Store, o *reindexOptions) error {
	start := time.Now()
	// A progress line on a terminal only (progressBar), never with --json.
	p := &progressBar{}
	if !o.json {
		p = a.progress("reindexing")
	}
	st, err := s.ReindexWith(ctx, contextfs.ReindexOptions{Progress: p.update, Stage: p.stage})
	p.done()
	if err != nil {
		return err
	}
	if o.json {
		return a.printJSON(map[string]any{"files": st.Files, "analyzed": st.Analyzed, "embedded": st.Embedded, "seconds": time.Since(start).Seconds()})
	}
	fmt.Fprintf(a.io.Out, "reindexed %d memory files in %s\n", st.Files, time.Since(start).Round(time.Millisecond))
	return nil
}
