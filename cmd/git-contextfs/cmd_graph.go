package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
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
			if !slices.Contains(workflow.GraphFormats(), format) {
				return &usageError{fmt.Errorf("--format %q: use %s", format, strings.Join(workflow.GraphFormats(), ", "))}
			}
			if depth < 1 {
				return &usageError{errors.New("--depth must be at least 1")}
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				req := workflow.GraphRequest{Depth: depth, Format: format}
				if len(args) == 1 {
					req.ID = args[0]
				}
				d, err := svc.Graph(cmd.Context(), req)
				if d != nil {
					for _, b := range d.LeftOut {
						fmt.Fprintf(a.io.ErrOut, "contextfs: graph: left out %s\n", b)
					}
				}
				if err != nil {
					return err
				}
				_, err = a.io.Out.Write(d.Text)
				return err
			})(cmd, args)
		},
	}
	cmd.Flags().StringVar(&format, "format", "mermaid", "mermaid, dot or json")
	cmd.Flags().BoolVar(&asJSON, "json", false, "same as --format json")
	cmd.Flags().IntVar(&depth, "depth", 1, "how many links away from ID to draw")
	return cmd
}
