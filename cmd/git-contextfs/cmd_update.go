package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/memory"
)

func (a *app) updateCmd() *cobra.Command {
	var (
		typ, title, summary, data   string
		tags, addTags, rmTags       []string
		links, supersedes           []string
		setBody, asJSON, replaceDat bool
	)
	cmd := &cobra.Command{
		Use:   "update ID [flags] [CONTENT|-]",
		Short: "Change a memory in place",
		Long: `Edits the memory's fields; only the lines of changed fields change in the
file, and updated is set to now. Give CONTENT (or "-" for stdin) to replace
the body. --data merges JSON fields into data (null deletes a field;
--replace-data replaces it whole).`,
		Example: `  git contextfs update k3x9 --add-tag postgres
  git contextfs update k3x9 --data '{"status":"deprecated"}'
  git contextfs update k3x9 - < new-body.md`,
		Args: argsRange(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var body string
			setBody = len(args) > 1
			if setBody {
				b, err := a.readContent(args[1:])
				if err != nil {
					return err
				}
				body = b
			}
			var d map[string]any
			if data != "" {
				if err := json.Unmarshal([]byte(data), &d); err != nil {
					return &usageError{fmt.Errorf("--data must be a JSON object: %v", err)}
				}
			}
			fl := cmd.Flags()
			if fl.Changed("type") {
				if err := checkTypes([]string{typ}, false); err != nil {
					return err
				}
			}
			s, err := a.open(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			m, err := s.Update(cmd.Context(), args[0], func(m *memory.Memory) error {
				if fl.Changed("type") {
					m.Type = typ
				}
				if fl.Changed("title") {
					m.Title = title
				}
				if fl.Changed("summary") {
					m.Summary = summary
				}
				if fl.Changed("tag") {
					m.Tags = tags
				}
				m.Tags = append(m.Tags, addTags...)
				for _, t := range rmTags {
					m.Tags = slices.DeleteFunc(m.Tags, func(x string) bool { return strings.EqualFold(x, t) })
				}
				if fl.Changed("link") {
					m.Links = links
				}
				if fl.Changed("supersedes") {
					m.Supersedes = supersedes
				}
				if data != "" {
					if replaceDat || m.Data == nil {
						m.Data = map[string]any{}
					}
					for k, v := range d {
						if v == nil {
							delete(m.Data, k)
						} else {
							m.Data[k] = v
						}
					}
				}
				if setBody {
					m.Body = strings.TrimRight(body, "\n") + "\n"
				}
				return nil
			})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(m)
			}
			fmt.Fprintf(a.io.Out, "updated %s %s\n", m.ID, m.Path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&typ, "type", "t", "", "new type")
	f.StringVar(&title, "title", "", "new title")
	f.StringVar(&summary, "summary", "", "new summary")
	f.StringArrayVar(&tags, "tag", nil, "replace all tags (repeatable)")
	f.StringArrayVar(&addTags, "add-tag", nil, "add a tag (repeatable)")
	f.StringArrayVar(&rmTags, "remove-tag", nil, "remove a tag (repeatable)")
	f.StringArrayVar(&links, "link", nil, "replace links (repeatable)")
	f.StringArrayVar(&supersedes, "supersedes", nil, "replace the IDs this memory supersedes (repeatable)")
	f.StringVar(&data, "data", "", "JSON object merged into data")
	f.BoolVar(&replaceDat, "replace-data", false, "with --data: replace data instead of merging")
	f.BoolVar(&asJSON, "json", false, "print the updated memory as JSON")
	return cmd
}
