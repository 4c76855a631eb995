package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
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
file, and updated is set to now. An update that changes nothing (a tag the
memory has, data it holds) writes nothing and says so. Give CONTENT (or "-" for stdin) to replace
the body; a title that was derived from the old body is derived again from
the new one (one written by hand, or given with --title, stays). --data
merges JSON fields into data (null deletes a field; --replace-data replaces
it whole). A memory of your user store is found there too (or only there,
with --scope user) and the change is committed in the user store at once.

With the ID alone on a terminal, the editor git would use opens on the
memory's title, data and body, as git commit --amend opens the message;
an empty body aborts.`,
		Example: `  git contextfs update k3x9 --add-tag postgres
  git contextfs update k3x9 --data '{"status":"deprecated"}'
  git contextfs update k3x9 - < new-body.md`,
		Args: idArgs(1, -1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args, o.changed = args, cmd.Flags().Changed
			if len(args) == 1 && cmd.Flags().NFlag() == 0 && a.io.StdinIsTerminal() {
				return a.editUpdate(cmd.Context(), args[0])
			}
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
	p := workflow.UpdatePatch{AddTags: o.addTags, RemoveTags: o.rmTags, AddPaths: o.attach.add, RemovePaths: o.attach.remove}
	set := func(flag string, v *string) *string {
		if o.changed(flag) {
			return v
		}
		return nil
	}
	setList := func(flag string, v *[]string) *[]string {
		if o.changed(flag) {
			return v
		}
		return nil
	}
	p.Type, p.Title, p.Summary = set("type", &o.typ), set("title", &o.title), set("summary", &o.summary)
	p.Tags, p.Links, p.Supersedes = setList("tag", &o.tags), setList("link", &o.links), setList("supersedes", &o.supersedes)
	if o.setBody {
		p.Body = &body
	}
	if o.data != "" {
		p.Data, p.ReplaceData = d, o.replaceData
	}
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Update(ctx, sc, o.args[0], p)
	if err != nil {
		return err
	}
	m, where := res.Memory, res.Scope
	for _, w := range res.Warnings {
		fmt.Fprintf(a.io.ErrOut, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
	}
	if o.json {
		return a.printJSON(updatedJSON{Memory: m, Scope: where, Changed: res.Changed})
	}
	if !res.Changed {
		fmt.Fprintf(a.io.Out, "nothing changed: %s %s%s already holds what was asked; the file was left alone\n", m.ID, m.Path, scopeNote(where))
		return nil
	}
	fmt.Fprintf(a.io.Out, "updated %s %s%s\n", m.ID, m.Path, scopeNote(where))
	return nil
}

// editUpdate opens the memory id in the editor and applies what comes
// back as one patch: title, data (whole) and body.
func (a *app) editUpdate(ctx context.Context, id string) error {
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	m, _, err := s.Find(ctx, workflow.All, id)
	if err != nil {
		return err
	}
	file, done, err := a.editFile()
	if err != nil {
		return err
	}
	e, err := a.editMemoryText(ctx, file, existingTemplate(m))
	if errors.Is(err, errEmptyEdit) {
		os.Remove(file)
		done()
	}
	if err != nil {
		return err
	}
	p := workflow.UpdatePatch{Body: &e.body, Data: e.data, ReplaceData: true}
	if e.title != "" {
		p.Title = &e.title
	}
	if e.data == nil {
		p.Data = map[string]any{}
	}
	res, err := s.Update(ctx, workflow.All, m.ID, p)
	if err != nil {
		fmt.Fprintf(a.io.ErrOut, "contextfs: your text is kept in %s\n", file)
		return err
	}
	os.Remove(file)
	done()
	if !res.Changed {
		fmt.Fprintf(a.io.Out, "nothing changed: %s %s\n", res.Memory.ID, res.Memory.Path)
		return nil
	}
	fmt.Fprintf(a.io.Out, "updated %s %s%s\n", res.Memory.ID, res.Memory.Path, scopeNote(res.Scope))
	return nil
}

// updatedJSON is update's --json: the memory as it now is, and the store
// that holds it (repo or user), as save and the reads say.
type updatedJSON struct {
	*memory.Memory
	Scope workflow.Scope `json:"scope"`
	// Changed is false when the update asked for nothing new and the
	// file was left alone.
	Changed bool `json:"changed"`
}
