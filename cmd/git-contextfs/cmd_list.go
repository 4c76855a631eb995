package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/scope"
)

// listOptions are the flags of list.
type listOptions struct {
	types, tags []string
	limit       int
	since       string
	all, json   bool
	scope       string
	attach      filterAttach
}

// listOptions checks the options and returns the contextfs.ListOptions
// they ask for; a bad value is a usageError.
func (o *listOptions) options() (contextfs.ListOptions, error) {
	lo := contextfs.ListOptions{Types: o.types, Tags: o.tags, Limit: o.limit, All: o.all,
		Attached: o.attach.files, Source: o.attach.source}
	if err := checkTypes(o.types, false); err != nil {
		return lo, err
	}
	if err := checkLimit(o.limit); err != nil {
		return lo, err
	}
	if o.since != "" {
		t, err := parseSince(o.since)
		if err != nil {
			return lo, &usageError{err}
		}
		lo.Since = t
	}
	return lo, nil
}

// listCmd is list: its help and flags; runList does the work.
func (a *app) listCmd() *cobra.Command {
	o := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories, newest first",
		Long: `Lists the memories of the repository and of your user store (git
contextfs user path), newest first; --scope repo or --scope user lists one.
JSON output carries each memory's scope.`,
		Example: "  git contextfs list --type decision\n  git contextfs list --tag db --json\n  git contextfs list --scope user",
		Args:    argsRange(0, 0),
		RunE:    func(cmd *cobra.Command, _ []string) error { return a.runList(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.types, "type", "t", nil, "only this `TYPE` (repeatable)")
	f.StringArrayVar(&o.tags, "tag", nil, "only memories with this tag (repeatable: all must match)")
	f.IntVarP(&o.limit, "limit", "n", 0, "at most N memories (default: all)")
	f.StringVar(&o.since, "since", "", "only memories updated since `WHEN`")
	f.BoolVar(&o.all, "all", false, "include superseded memories")
	f.BoolVar(&o.json, "json", false, "print as a JSON array")
	o.attach.flags(f)
	f.StringVar(&o.scope, "scope", "", scopeUsage+" (default all)")
	return cmd
}

// runList runs list with o.
func (a *app) runList(ctx context.Context, o *listOptions) error {
	lo, err := o.options()
	if err != nil {
		return err
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
	es, err := s.List(ctx, sc, lo)
	if err != nil {
		return err
	}
	if s.Repo != nil && sc != scope.User {
		a.noteSkipped(ctx, s.Repo) // the user store's are warned about by the scope set
	}
	if o.json {
		return a.printJSON(es)
	}
	mark := func(string) string { return "" }
	if s.Repo != nil {
		mark = a.supersededMarks(ctx, s.Repo, o.all) // hygiene
	}
	tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
	for _, e := range es {
		title := e.Title
		if e.Scope == scope.User {
			title += "  (user)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", e.ID, e.Type, e.Updated.Format("2006-01-02"), title, mark(e.ID))
	}
	return tw.Flush()
}
