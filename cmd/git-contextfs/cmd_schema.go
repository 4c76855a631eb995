package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/memory"
)

// schemaOptions are the flags and arguments of schema.
type schemaOptions struct {
	json bool
	args []string
}

// schemaCmd is schema: its help and flags; runSchema does the work.
func (a *app) schemaCmd() *cobra.Command {
	o := &schemaOptions{}
	cmd := &cobra.Command{
		Use:   "schema [TYPE]",
		Short: "List memory types, or print one type's JSON Schema",
		Example: `  git contextfs schema
  git contextfs schema decision`,
		Args: argsRange(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return a.runSchema(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return cmd
}

// runSchema runs schema with o.
func (a *app) runSchema(ctx context.Context, o *schemaOptions) error {
	if len(o.args) == 1 {
		t, ok := memory.LookupType(o.args[0])
		if !ok {
			_, err := memory.CanonicalType(o.args[0])
			return err
		}
		if o.json {
			return a.printJSON(t)
		}
		var v any
		if err := json.Unmarshal(t.Schema, &v); err != nil {
			return err
		}
		return a.printJSON(v)
	}
	ts := memory.Types()
	if o.json {
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
}
