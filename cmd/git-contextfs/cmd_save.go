package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// saveOptions are the flags and arguments of save.
type saveOptions struct {
	typ, title, summary, data string
	tags, links, supersedes   []string
	json                      bool
	typeGiven                 bool     // --type was on the command line
	content                   []string // the body, as arguments; "-" or none reads stdin
}

// saveCmd is save: its help and flags; runSave does the work.
func (a *app) saveCmd() *cobra.Command {
	o := &saveOptions{}
	cmd := &cobra.Command{
		Use:   "save [flags] [CONTENT|-]",
		Short: "Save a new memory and print its ID",
		Long: `Saves a new memory as .contextfs/memories/<slug>-<id>.md and prints its ID.
The content is the Markdown body: the arguments, or standard input with "-"
(or when nothing is given and stdin is not a terminal). Without --title the
first heading or sentence becomes the title. --data gives the type's
structured fields as JSON; "git contextfs schema TYPE" shows them.

The memory is validated before anything is written, and scanned for
secrets: findings are printed as warnings (the pre-commit hook blocks them).`,
		Example: `  git contextfs save --type decision --tag db \
      --data '{"decision":"pgx pool of 20","status":"accepted"}' \
      "We pool Postgres connections with pgxpool, 20 per instance."
  echo "Run make bench before tagging" | git contextfs save --type procedural -
  git contextfs save --type error --title "EADDRINUSE in tests" --json "Tests must use port 0"`,
		Args: argsRange(0, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.content = args
			o.typeGiven = cmd.Flags().Changed("type")
			return a.runSave(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.typ, "type", "t", "fact", "memory `TYPE` (see: git contextfs schema)")
	f.StringVar(&o.title, "title", "", "title (default: the body's first heading or sentence)")
	f.StringVar(&o.summary, "summary", "", "one-paragraph summary (default: derived from the body)")
	f.StringArrayVar(&o.tags, "tag", nil, "tag (repeatable, or comma-separated)")
	f.StringArrayVar(&o.links, "link", nil, "link to another memory ID or a URL (repeatable)")
	f.StringArrayVar(&o.supersedes, "supersedes", nil, "ID of a memory this one replaces (repeatable); it is then hidden from search")
	f.StringVar(&o.data, "data", "", "structured fields of the type, as a JSON object")
	f.BoolVar(&o.json, "json", false, "print the saved memory as JSON")
	return cmd
}

// runSave runs save with o.
func (a *app) runSave(ctx context.Context, o *saveOptions) error {
	if err := checkTypes([]string{o.typ}, false); err != nil {
		return err
	}
	body, err := a.readContent(o.content)
	if err != nil {
		return err
	}
	d, err := parseData(o.data)
	if err != nil {
		return err
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Save(ctx, contextfs.SaveRequest{Type: o.typ, Title: o.title, Summary: o.summary, Tags: o.tags,
		Links: o.links, Supersedes: o.supersedes, Data: d, Body: body})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(a.io.ErrOut, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
	}
	if !o.typeGiven {
		// The default is a guess at what the user meant: say it.
		fmt.Fprintf(a.io.ErrOut, "saved as type %s (the default); give --type to choose: git contextfs schema lists them\n", o.typ)
	}
	if o.json {
		return a.printJSON(res.Memory)
	}
	fmt.Fprintln(a.io.Out, res.Memory.ID)
	return nil
}
