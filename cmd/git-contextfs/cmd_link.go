package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// relUsage checks --rel and turns a bad one into a usage error.
func relUsage(rel string) error {
	if rel == "" {
		return nil
	}
	if err := workflow.CheckRel(rel); err != nil {
		return &usageError{fmt.Errorf("--rel: %w", err)}
	}
	return nil
}

func (a *app) linkCmd() *cobra.Command {
	var rel string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "link FROM TO",
		Short: "Link one memory to another with a typed relation",
		Long: `Adds a link from FROM to TO (IDs or unique prefixes) to FROM's file; TO may
also be a URL, kept as it is. The relation defaults to "related"; the others
are ` + strings.Join(memory.Relations()[1:], ", ") + `
(see docs/FORMAT.md). Linking twice changes nothing. A supersedes link hides
TO from list and search, as a supersedes: entry does; one that would close a
cycle (TO already supersedes FROM, directly or through other memories) is
refused (exit 1), as validate would refuse the file. Linking to a superseded
memory works, with a note on stderr naming what supersedes it: the link
names that old version, not the current one.`,
		Example: `  git contextfs link k3x9 p2m7 --rel depends_on
  git contextfs link k3x9 p2m7
  git contextfs link k3x9 https://wiki.example.com/pools --rel references`,
		Args: idArgs(2, 2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := relUsage(rel); err != nil {
				return err
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				res, err := svc.Link(cmd.Context(), workflow.LinkRequest{From: args[0], To: args[1], Rel: rel, Scope: workflow.Repo})
				if err != nil {
					return err
				}
				m := res.Memory
				if n := res.Notice(); n != "" {
					fmt.Fprintf(a.io.ErrOut, "note: %s\n", n)
				}
				if asJSON {
					return a.printJSON(m)
				}
				fmt.Fprintf(a.io.Out, "%s now links to %s\n", m.Path, strings.Join(linkStrings(m.Links), ", "))
				return nil
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&rel, "rel", memory.RelRelated, "the link's `RELATION`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the linking memory as JSON")
	return cmd
}

func (a *app) unlinkCmd() *cobra.Command {
	var rel string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "unlink FROM TO",
		Short: "Remove the links from one memory to another",
		Long: `Removes FROM's links to TO: all of them, or only those of relation --rel.
With --rel supersedes it also removes TO from FROM's supersedes: entries
(written by save --supersedes, evolve, merge, split), so that TO is current
again unless another memory supersedes it; without --rel, those entries
stay. It fails (exit 1) when there is nothing to remove.`,
		Example: `  git contextfs unlink k3x9 p2m7
  git contextfs unlink k3x9 p2m7 --rel depends_on
  git contextfs unlink k3x9 p2m7 --rel supersedes`,
		Args: idArgs(2, 2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := relUsage(rel); err != nil {
				return err
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				res, err := svc.Unlink(cmd.Context(), workflow.LinkRequest{From: args[0], To: args[1], Rel: rel, Scope: workflow.Repo})
				if err != nil {
					return err
				}
				m := res.Memory
				if asJSON {
					return a.printJSON(m)
				}
				fmt.Fprintf(a.io.Out, "%s: links now %s", m.Path, strings.Join(linkStrings(m.Links), ", "))
				if rel == "supersedes" {
					sup := "nothing"
					if len(m.Supersedes) > 0 {
						sup = strings.Join(m.Supersedes, ", ")
					}
					fmt.Fprintf(a.io.Out, "; supersedes now %s", sup)
				}
				fmt.Fprintln(a.io.Out)
				return nil
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&rel, "rel", "", "remove only links of this `RELATION` (supersedes: supersedes: entries too)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the memory as JSON")
	return cmd
}

func linkStrings(ls []memory.Link) []string {
	if len(ls) == 0 {
		return []string{"nothing"}
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

func (a *app) relatedCmd() *cobra.Command {
	var rel string
	var depth int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "related ID",
		Short: "List the memories linked to a memory, both ways",
		Long: `Walks links (and supersedes) from the memory, in both directions, up to
--depth steps, and lists what it reaches: depth, ID, the edge that reached
it ("->" when the link points away from ID's side, "<-" when at it), type
and title. --rel keeps only links of one relation.`,
		Example: `  git contextfs related k3x9
  git contextfs related k3x9 --depth 2 --rel depends_on --json`,
		Args: idArgs(1, 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := relUsage(rel); err != nil {
				return err
			}
			if depth < 1 {
				return &usageError{errors.New("--depth must be at least 1")}
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				ns, err := svc.Related(cmd.Context(), workflow.Repo, args[0], depth, rel)
				if err != nil {
					return err
				}
				if asJSON {
					if ns == nil {
						ns = []workflow.Neighbour{}
					}
					return a.printJSON(ns)
				}
				tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
				for _, n := range ns {
					dir := "->"
					if n.Via.To != n.ID {
						dir = "<-"
					}
					title := n.Title
					if n.Missing {
						title = "(no such memory)"
					}
					fmt.Fprintf(tw, "%d\t%s\t%s %s\t%s\t%s\n", n.Depth, n.ID, dir, n.Via.Rel, n.Type, title)
				}
				return tw.Flush()
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&rel, "rel", "", "follow only links of this `RELATION`")
	cmd.Flags().IntVar(&depth, "depth", 1, "how many links away to go")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
