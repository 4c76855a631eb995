package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// deleteOptions are the flags and arguments of delete.
type deleteOptions struct {
	id   string
	json bool
}

// deleteCmd is delete: its help and flags; runDelete does the work.
func (a *app) deleteCmd() *cobra.Command {
	o := &deleteOptions{}
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
			o.id = args[0]
			return a.runDelete(cmd.Context(), s, o)
		}),
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the deleted ID and path as JSON")
	return cmd
}

// runDelete runs delete with o.
func (a *app) runDelete(ctx context.Context, s *contextfs.Store, o *deleteOptions) error {
	m, err := s.Delete(ctx, o.id)
	if err != nil {
		return err
	}
	if o.json {
		return a.printJSON(map[string]string{"id": m.ID, "path": m.Path})
	}
	fmt.Fprintf(a.io.Out, "deleted %s %s\n", m.ID, m.Path)
	return nil
}
