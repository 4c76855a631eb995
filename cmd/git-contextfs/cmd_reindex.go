package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

func (a *app) reindexCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Delete the cache and rebuild it from the files",
		Long: `Deletes the cache (it holds nothing that is not derived from the files and
git) and rebuilds the memory index. Commands rebuild a missing, corrupt or
old-schema cache on their own; this is for doing it on demand.`,
		Example: "  git contextfs reindex",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			start := time.Now()
			st, err := s.Reindex(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"files": st.Files, "analyzed": st.Analyzed, "embedded": st.Embedded, "seconds": time.Since(start).Seconds()})
			}
			fmt.Fprintf(a.io.Out, "reindexed %d memory files in %s\n", st.Files, time.Since(start).Round(time.Millisecond))
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON summary")
	return cmd
}
