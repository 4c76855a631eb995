package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// initOptions are the flags of init.
type initOptions struct {
	json bool
}

// initCmd is init: its help and flags; runInit does the work.
func (a *app) initCmd() *cobra.Command {
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create .contextfs/config.yaml and register the merge driver",
		Long: `Creates .contextfs/ with a commented config.yaml holding every default, and
registers the memory merge driver in this clone's git config and in
.gitattributes. Running it again changes nothing.`,
		Example: "  git contextfs init",
		Args:    argsRange(0, 0),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			return a.runInit(cmd.Context(), s, o)
		}),
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print what was created as JSON")
	return cmd
}

// runInit runs init with o.
func (a *app) runInit(ctx context.Context, s *contextfs.Store, o *initOptions) error {
	created, err := s.Init(ctx)
	if err != nil {
		return err
	}
	if o.json {
		return a.printJSON(map[string]any{"root": s.Repo.Root, "created": created})
	}
	if len(created) == 0 {
		fmt.Fprintln(a.io.Out, "contextfs is already set up in "+s.Repo.Root)
		return nil
	}
	for _, c := range created {
		fmt.Fprintln(a.io.Out, "created "+c)
	}
	fmt.Fprintln(a.io.Out, "Next: git contextfs save \"what the team should remember\"")
	return nil
}
