package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/memory"
)

func (a *app) schemaCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "schema [TYPE]",
		Short: "List memory types, or print one type's JSON Schema",
		Example: `  git contextfs schema
  git contextfs schema decision`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				t, ok := memory.LookupType(args[0])
				if !ok {
					_, err := memory.CanonicalType(args[0])
					return err
				}
				if asJSON {
					return a.printJSON(t)
				}
				var v any
				if err := json.Unmarshal(t.Schema, &v); err != nil {
					return err
				}
				return a.printJSON(v)
			}
			ts := memory.Types()
			if asJSON {
				return a.printJSON(ts)
			}
			tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
			for _, t := range ts {
				al := ""
				if len(t.Aliases) > 0 {
					al = " (alias: " + strings.Join(t.Aliases, ", ") + ")"
				}
				fmt.Fprintf(tw, "%s\t%s%s\n", t.Name, t.Description, al)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
