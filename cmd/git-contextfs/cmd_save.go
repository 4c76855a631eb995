package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

func (a *app) saveCmd() *cobra.Command {
	var (
		typ, title, summary, data string
		tags, links, supersedes   []string
		asJSON                    bool
	)
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
			if err := checkTypes([]string{typ}, false); err != nil {
				return err
			}
			body, err := a.readContent(args)
			if err != nil {
				return err
			}
			var d map[string]any
			if data != "" {
				if err := json.Unmarshal([]byte(data), &d); err != nil {
					return &usageError{fmt.Errorf("--data must be a JSON object: %v", err)}
				}
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			res, err := s.Save(cmd.Context(), contextfs.SaveRequest{Type: typ, Title: title, Summary: summary, Tags: tags,
				Links: links, Supersedes: supersedes, Data: d, Body: body})
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(a.io.ErrOut, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
			}
			if asJSON {
				return a.printJSON(res.Memory)
			}
			fmt.Fprintln(a.io.Out, res.Memory.ID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&typ, "type", "t", "fact", "memory `TYPE` (see: git contextfs schema)")
	f.StringVar(&title, "title", "", "title (default: the body's first heading or sentence)")
	f.StringVar(&summary, "summary", "", "one-paragraph summary (default: derived from the body)")
	f.StringArrayVar(&tags, "tag", nil, "tag (repeatable, or comma-separated)")
	f.StringArrayVar(&links, "link", nil, "link to another memory ID or a URL (repeatable)")
	f.StringArrayVar(&supersedes, "supersedes", nil, "ID of a memory this one replaces (repeatable); it is then hidden from search")
	f.StringVar(&data, "data", "", "structured fields of the type, as a JSON object")
	f.BoolVar(&asJSON, "json", false, "print the saved memory as JSON")
	return cmd
}
