package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// recallOptions are the flags and arguments of recall.
type recallOptions struct {
	id   string
	json bool
}

// recallCmd is recall: its help and flags; runRecall does the work.
func (a *app) recallCmd() *cobra.Command {
	o := &recallOptions{}
	cmd := &cobra.Command{
		Use:   "recall ID|PREFIX",
		Short: "Print a memory (or an indexed code chunk or commit)",
		Long: `Prints the memory whose ID is, or starts with, the argument (like git's
abbreviated hashes), read from its file. A code result's ID (path:start-end)
or a commit SHA prints the chunk or commit.`,
		Example: `  git contextfs recall k3x9
  git contextfs recall --json k3x9m2abcd`,
		Args: argsRange(1, 1),
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			o.id = args[0]
			return a.runRecall(cmd.Context(), s, o)
		}),
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the memory as JSON")
	return cmd
}

// runRecall runs recall with o.
func (a *app) runRecall(ctx context.Context, s *contextfs.Store, o *recallOptions) error {
	if handled, err := a.recallIndexed(ctx, s, o.id, o.json); handled || err != nil {
		return err
	}
	m, err := s.Resolve(ctx, o.id)
	if err != nil {
		return err
	}
	a.noteSuperseded(ctx, s, m) // hygiene
	if o.json {
		return a.printJSON(m)
	}
	raw, err := s.Repo.ReadFile(m.Path)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.io.Out, "# %s\n", m.Path)
	a.io.Out.Write(raw)
	return nil
}

// recallIndexed prints a code chunk or commit when id names one.
func (a *app) recallIndexed(ctx context.Context, s *contextfs.Store, id string, asJSON bool) (bool, error) {
	if _, err := s.Sync(ctx); err != nil {
		return false, err
	}
	x, ok, err := s.RecallIndexed(ctx, id)
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
