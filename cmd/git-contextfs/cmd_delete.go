package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// deleteOptions are the flags and arguments of delete.
type deleteOptions struct {
	id    string
	json  bool
	scope string
}

// deleteCmd is delete: its help and flags; runDelete does the work.
func (a *app) deleteCmd() *cobra.Command {
	o := &deleteOptions{}
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a memory's file",
		Long: `Deletes the memory's file from the work tree. Until the deletion is
committed, "git checkout -- PATH" brings it back; after, git history keeps it.
To retire a memory but keep it visible in history, save its replacement with
--supersedes instead.

A memory of your user store is found there too (or only there, with
--scope user), and its deletion is committed in the user store at once.`,
		Example: "  git contextfs delete k3x9\n  git contextfs delete --scope user k3x9",
		Args:    idArgs(1, 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			return a.runDelete(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the deleted ID and path as JSON")
	cmd.Flags().StringVar(&o.scope, "scope", "", scopeUsage+" (default all: either store; a prefix matching in both is ambiguous)")
	return cmd
}

// runDelete runs delete with o.
func (a *app) runDelete(ctx context.Context, o *deleteOptions) error {
	sc, err := parseScope(o.scope, false)
	if err != nil {
		return err
	}
	s, err := a.openScopes(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Delete(ctx, sc, o.id)
	if err != nil {
		return err
	}
	m, where, from := res.Memory, res.Scope, res.LinkedFrom
	if len(from) > 0 {
		fmt.Fprintf(a.io.ErrOut, "warning: %s linked to %s; those links now name no memory, which validate and the pre-commit hook report: unlink them (git contextfs unlink %s %s)\n",
			strings.Join(from, ", "), m.ID, from[0], m.ID)
	}
	if o.json {
		return a.printJSON(deletedJSON{ID: m.ID, Path: m.Path, Scope: where, LinkedFrom: from})
	}
	fmt.Fprintf(a.io.Out, "deleted %s %s%s\n", m.ID, m.Path, scopeNote(where))
	return nil
}

// deletedJSON is delete's --json.
type deletedJSON struct {
	ID    string         `json:"id"`
	Path  string         `json:"path"`
	Scope workflow.Scope `json:"scope"`
	// LinkedFrom are the memories whose links now name no memory.
	LinkedFrom []string `json:"linked_from,omitempty"`
}

// scopeNote marks a memory of the user store in a one-line message.
func scopeNote(sc workflow.Scope) string {
	if sc == workflow.User {
		return " (user store)"
	}
	return ""
}
