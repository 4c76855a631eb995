package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/graph"
	"github.com/contextfs/contextfs/links"
)

func (a *app) graphCmd() *cobra.Command {
	var format string
	var depth int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "graph [ID]",
		Short: "Draw memories and their typed links (Mermaid, dot or JSON)",
		Long: `Prints the memories within --depth links of ID (both ways), or every
memory, with their links and supersedes, as a Mermaid flowchart (which
GitHub renders), a Graphviz digraph or JSON.`,
		Example: `  git contextfs graph k3x9 --depth 2
  git contextfs graph --format dot | dot -Tsvg > memories.svg
  git contextfs graph --format json`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				format = "json"
			}
			if !slices.Contains(graph.Formats(), format) {
				return &usageError{fmt.Errorf("--format %q: use %s", format, strings.Join(graph.Formats(), ", "))}
			}
			if depth < 1 {
				return &usageError{errors.New("--depth must be at least 1")}
			}
			return a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
				g, err := links.Load(cmd.Context(), s)
				if err != nil {
					return err
				}
				// A file that cannot be read is left out of the drawing and
				// named, not allowed to stop it.
				for _, b := range g.Broken {
					fmt.Fprintf(a.io.ErrOut, "contextfs: graph: left out %s\n", b)
				}
				start := ""
				if len(args) == 1 {
					m, err := s.Resolve(cmd.Context(), args[0])
					if err != nil {
						return err
					}
					start = m.ID
				}
				return graph.Write(a.io.Out, graph.Around(g, start, depth), format)
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&format, "format", "mermaid", "mermaid, dot or json")
	cmd.Flags().BoolVar(&asJSON, "json", false, "same as --format json")
	cmd.Flags().IntVar(&depth, "depth", 1, "how many links away from ID to draw")
	return cmd
}
