package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// recallOptions are the flags and arguments of recall.
type recallOptions struct {
	id    string
	json  bool
	scope string
}

// recallCmd is recall: its help and flags; runRecall does the work.
func (a *app) recallCmd() *cobra.Command {
	o := &recallOptions{}
	cmd := &cobra.Command{
		Use:   "recall ID|PREFIX",
		Short: "Print a memory (or an indexed code chunk or commit)",
		Long: `Prints the memory whose ID is, or starts with, the argument (like git's
abbreviated hashes), read from its file. A code result's ID (path:start-end)
or a commit SHA prints the chunk or commit. Memories of your user store are
found too (the repository's first); --scope repo or --scope user looks in
one store only.`,
		Example: `  git contextfs recall k3x9
  git contextfs recall --json k3x9m2abcd
  git contextfs recall --scope user k3x9`,
		Args: idArgs(1, 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return a.runRecall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the memory as JSON")
	cmd.Flags().StringVar(&o.scope, "scope", "", scopeUsage+" (default all)")
	return cmd
}

// runRecall runs recall with o.
func (a *app) runRecall(ctx context.Context, o *recallOptions) error {
	sc, err := parseScope(o.scope, false)
	if err != nil {
		return err
	}
	set, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	if sc != workflow.User {
		if handled, err := a.recallIndexed(ctx, set, o.id, o.json); handled || err != nil {
			return err
		}
	}
	r, err := set.Recall(ctx, workflow.RecallRequest{ID: o.id, Scope: sc})
	if err != nil {
		return err
	}
	m, where, raw := r.Memory, r.Scope, r.Raw
	a.noteSuperseded(ctx, set, where, m) // hygiene
	if o.json {
		return a.printJSON(struct {
			*memory.Memory
			Scope workflow.Scope `json:"scope"`
		}{m, where})
	}
	fmt.Fprintf(a.io.Out, "# %s%s\n", m.Path, scopeNote(where))
	a.io.Out.Write(raw)
	return nil
}

// recallIndexed prints a code chunk or commit when id names one.
func (a *app) recallIndexed(ctx context.Context, svc *workflow.Service, id string, asJSON bool) (bool, error) {
	x, ok, err := svc.RecallIndexed(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	if asJSON {
		return true, a.printJSON(x)
	}
	switch x.Kind {
	case "code":
		fmt.Fprintf(a.io.Out, "# %s:%d-%d  %s (%s)\n", x.Path, x.StartLine, x.EndLine, x.Title, x.Language)
		fmt.Fprint(a.io.Out, x.Text)
		if !strings.HasSuffix(x.Text, "\n") {
			fmt.Fprintln(a.io.Out)
		}
	default:
		fmt.Fprintf(a.io.Out, "commit %s\nAuthor: %s\nDate:   %s\n\n%s\n", x.ID, x.Author, x.Date, x.Text)
	}
	return true, nil
}
