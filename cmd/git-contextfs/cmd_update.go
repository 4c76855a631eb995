package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/memory"
	"github.com/contextfs/contextfs/scope"
)

// updateOptions are the flags and arguments of update.
type updateOptions struct {
	typ, title, summary, data  string
	tags, addTags, rmTags      []string
	links, supersedes          []string
	setBody, json, replaceData bool
	scope                      string
	args                       []string
	attach                     updateAttach
	// changed reports whether a flag was given, as opposed to left at
	// its default: only given fields change.
	changed func(flag string) bool
}

// updateCmd is update: its help and flags; runUpdate does the work.
func (a *app) updateCmd() *cobra.Command {
	o := &updateOptions{}
	cmd := &cobra.Command{
		Use:   "update ID [flags] [CONTENT|-]",
		Short: "Change a memory in place",
		Long: `Edits the memory's fields; only the lines of changed fields change in the
file, and updated is set to now. Give CONTENT (or "-" for stdin) to replace
the body; a title that was derived from the old body is derived again from
the new one (one written by hand, or given with --title, stays). --data
merges JSON fields into data (null deletes a field; --replace-data replaces
it whole). A memory of your user store is found there too (or only there,
with --scope user) and the change is committed in the user store at once.`,
		Example: `  git contextfs update k3x9 --add-tag postgres
  git contextfs update k3x9 --data '{"status":"deprecated"}'
  git contextfs update k3x9 - < new-body.md`,
		Args: idArgs(1, -1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args, o.changed = args, cmd.Flags().Changed
			return a.runUpdate(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.typ, "type", "t", "", "new type")
	f.StringVar(&o.title, "title", "", "new title")
	f.StringVar(&o.summary, "summary", "", "new summary")
	stringArrayVar(f, &o.tags, "tag", "", "replace all tags (repeatable)")
	stringArrayVar(f, &o.addTags, "add-tag", "", "add a tag (repeatable)")
	stringArrayVar(f, &o.rmTags, "remove-tag", "", "remove a tag (repeatable)")
	stringArrayVar(f, &o.links, "link", "", "replace links (repeatable)")
	stringArrayVar(f, &o.supersedes, "supersedes", "", "replace the IDs this memory supersedes (repeatable)")
	f.StringVar(&o.data, "data", "", "JSON object merged into data")
	f.BoolVar(&o.replaceData, "replace-data", false, "with --data: replace data instead of merging")
	f.BoolVar(&o.json, "json", false, "print the updated memory as JSON")
	o.attach.flags(f)
	f.StringVar(&o.scope, "scope", "", scopeUsage+" (default all: either store; a prefix matching in both is ambiguous)")
	return cmd
}

// runUpdate runs update with o.
func (a *app) runUpdate(ctx context.Context, o *updateOptions) error {
	var body string
	o.setBody = len(o.args) > 1
	if o.setBody {
		b, err := a.readContent(o.args[1:])
		if err != nil {
			return err
		}
		body = b
	}
	d, err := parseData(o.data)
	if err != nil {
		return err
	}
	if _, err := memory.ParseLinks(o.links); err != nil {
		return &usageError{fmt.Errorf("--link: %w", err)}
	}
	if o.changed("type") {
		if err := checkTypes([]string{o.typ}, false); err != nil {
			return err
		}
	}
	sc, err := parseScope(o.scope, false)
	if err != nil {
		return err
	}
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	m, where, warnings, err := s.Update(ctx, sc, o.args[0], func(m *memory.Memory) error {
		if o.changed("type") {
			m.Type = o.typ
		}
		if o.changed("title") {
			m.Title = o.title
		}
		if o.changed("summary") {
			m.Summary = o.summary
		}
		if o.changed("tag") {
			m.Tags = o.tags
		}
		m.Tags = append(m.Tags, o.addTags...)
		for _, t := range o.rmTags {
			m.Tags = slices.DeleteFunc(m.Tags, func(x string) bool { return strings.EqualFold(x, t) })
		}
		if o.changed("link") {
			ls, err := memory.ParseLinks(o.links)
			if err != nil {
				return err
			}
			m.Links = ls
		}
		if o.changed("supersedes") {
			m.Supersedes = o.supersedes
		}
		o.attach.apply(m)
		if o.data != "" {
			if o.replaceData || m.Data == nil {
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
		if o.setBody {
			m.Body = strings.TrimRight(body, "\n") + "\n"
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(a.io.ErrOut, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
	}
	if o.json {
		return a.printJSON(updatedJSON{Memory: m, Scope: where})
	}
	fmt.Fprintf(a.io.Out, "updated %s %s%s\n", m.ID, m.Path, scopeNote(where))
	return nil
}

// updatedJSON is update's --json: the memory as it now is, and the store
// that holds it (repo or user), as save and the reads say.
type updatedJSON struct {
	*memory.Memory
	Scope scope.Scope `json:"scope"`
}
