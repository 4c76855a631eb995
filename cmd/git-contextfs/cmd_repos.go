package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// reposCmd is the repos group: the registry of repositories that
// `search --repos` searches.
func (a *app) reposCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "repos",
		Short: "Register repositories to search together (search --repos)",
		Long: `Keeps a list of repositories in your config
($XDG_CONFIG_HOME/contextfs/config.yaml), so that "git contextfs search
--repos all" (or --repos NAME,...) searches them all at once. A
repository's name comes from its origin remote (github.com/acme/api is
"api"), so two clones of a project are one entry; without a remote, from
its folder.`,
		Example: `  git contextfs repos add ~/src/api
  git contextfs repos add --name web ~/src/frontend
  git contextfs repos list
  git contextfs search --repos all "retry policy"
  git contextfs repos remove web`,
		Args: subcommandArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	var name string
	var asJSON bool
	add := &cobra.Command{
		Use:     "add [PATH]",
		Short:   "Register the repository at PATH (default: this one)",
		Example: "  git contextfs repos add\n  git contextfs repos add --name web ~/src/frontend",
		Args:    argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.workDir()
			if len(args) == 1 {
				dir = a.userPath(args[0]) // from DIR with -C DIR
			}
			e, err := workflow.AddRepo(cmd.Context(), dir, name)
			return a.reportRepo("registered", e, err)
		},
	}
	add.Flags().StringVar(&name, "name", "", "the name --repos takes (default: from the remote URL or the folder)")
	remove := &cobra.Command{
		Use:     "remove NAME|PATH",
		Short:   "Unregister a repository",
		Example: "  git contextfs repos remove api\n  git contextfs repos remove ~/src/api",
		Args:    argsRange(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// A registered name is a name; anything else is a PATH, from
			// DIR with -C DIR.
			e, err := workflow.RemoveRepo(cmd.Context(), args[0], a.userPath)
			return a.reportRepo("removed", e, err)
		},
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the registered repositories",
		Example: "  git contextfs repos list\n  git contextfs repos list --json",
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			repos, err := workflow.RegisteredRepos()
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(repoList(repos))
			}
			tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
			for _, e := range repos {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.ID, e.Path)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print as a JSON array of name, id and path")
	cmd.AddCommand(add, remove, list)
	return cmd
}

// repoJSON is a registered repository as list prints it.
type repoJSON struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Path string `json:"path"`
}

func repoList(es []workflow.RepoEntry) []repoJSON {
	out := make([]repoJSON, 0, len(es))
	for _, e := range es {
		out = append(out, repoJSON(e))
	}
	return out
}

// reportRepo reports what a change of the registered repositories did;
// an error (a name nobody registered is a thing not found, exit 1, as an
// unknown memory ID is) is returned as it is.
func (a *app) reportRepo(verb string, e workflow.RepoEntry, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintf(a.io.Out, "%s %s (%s) %s\n", verb, e.Name, e.ID, e.Path)
	return nil
}
