package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

func (a *app) deleteCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a memory's file",
		Long: `Deletes the memory's file from the work tree. Until the deletion is
committed, "git checkout -- PATH" brings it back; after, git history keeps it.
To retire a memory but keep it visible in history, save its replacement with
--supersedes instead.`,
		Example: "  git contextfs delete k3x9",
		Args:    argsRange(1, 1),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			m, err := s.Delete(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]string{"id": m.ID, "path": m.Path})
			}
			fmt.Fprintf(a.io.Out, "deleted %s %s\n", m.ID, m.Path)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the deleted ID and path as JSON")
	return cmd
}
