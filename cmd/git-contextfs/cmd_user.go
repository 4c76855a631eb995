package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// userCmd is the user group: the user store, the memories that follow
// you across repositories.
func (a *app) userCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Your own memory store, which follows you across repositories",
		Long: `Your user store is a git repository of its own, at
$XDG_DATA_HOME/contextfs/user (~/.local/share/contextfs/user by default;
CONTEXTFS_USER_DIR overrides, with an absolute path outside any git work
tree). Memories saved with --scope user (and the user type by default) go
there, never into a team's repository, and are committed at once. A store
in the repository you are in, or inside a work tree, is refused. Back it
up by pushing it to a private remote.`,
		Example: `  git contextfs user path
  git -C "$(git contextfs user path)" remote add origin git@example.com:me/memories.git
  git -C "$(git contextfs user path)" push -u origin HEAD`,
		Args: subcommandArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print where the user store is, creating it if needed",
		Long: `Prints the user store's directory. The store is created there (git init
and the .contextfs/ layout) if it does not exist yet, so the path can be
handed to git at once.`,
		Example: `  git contextfs user path
  git -C "$(git contextfs user path)" log --oneline`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openScopes(cmd.Context())
			if err != nil {
				return err
			}
			defer s.Close()
			u, err := s.User(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintln(a.io.Out, u.Repo.Root)
			return nil
		},
	})
	return cmd
}
