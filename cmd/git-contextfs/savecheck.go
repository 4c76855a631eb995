package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// savedJSON is what save --json prints: the memory's own fields, plus what
// the checks at save found and did.
type savedJSON struct {
	*memory.Memory
	Action       workflow.Action  `json:"action"`
	Similar      []workflow.Match `json:"similar"`
	MaySupersede []workflow.Match `json:"may_supersede"`
	// Superseded are the memories it superseded: newest wins.
	Superseded []workflow.Match `json:"superseded,omitempty"`
	// Unchecked says why the save was compared for identical content only.
	Unchecked string `json:"unchecked,omitempty"`
	// SupersededProgress lists the progress memories a new progress replaced.
	SupersededProgress []string `json:"superseded_progress,omitempty"`
	// Scope is the store it went to; Commit, the user store's commit of it.
	Scope  workflow.Scope `json:"scope,omitempty"`
	Commit string         `json:"commit,omitempty"`
}

// checkedSave saves req through the service (workflow.Service.Save: the
// progress rule, duplicates by policy, secrets, the user store's commit),
// reports on stderr what it found, and prints the result. defaultType
// says that the type was not given, which is said once a file is written.
func (a *app) checkedSave(ctx context.Context, svc *workflow.Service, req workflow.SaveRequest, defaultType, asJSON bool) error {
	out, err := svc.Save(ctx, req)
	if ie := (*workflow.InputError)(nil); errors.As(err, &ie) {
		return &usageError{fmt.Errorf("--%s: %w", ie.Field, ie.Err)}
	}
	if out != nil {
		for _, m := range out.Similar {
			fmt.Fprintf(a.io.ErrOut, "similar: %s %s (%s, similarity %.2f)\n", m.ID, m.Title, m.Path, m.Similarity)
		}
		for _, m := range out.MaySupersede {
			fmt.Fprintf(a.io.ErrOut, "may supersede: %s %s (%s); confirm with --supersedes %s\n", m.ID, m.Title, m.Why, m.ID)
		}
		for _, m := range out.Superseded {
			fmt.Fprintf(a.io.ErrOut, "supersedes: %s %s (%s): newest wins\n", m.ID, m.Title, supersededWhy(m))
		}
		if out.Unchecked != "" {
			fmt.Fprintf(a.io.ErrOut, "warning: %s\n", out.Unchecked)
		}
	}
	if err != nil {
		return err
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(a.io.ErrOut, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
	}
	if defaultType && out.Action != workflow.Skipped {
		// The default is a guess at what the user meant: say it.
		fmt.Fprintf(a.io.ErrOut, "saved as type %s (the default); give --type to choose: git contextfs schema lists them\n", req.Type)
	}
	switch out.Action {
	case workflow.Skipped:
		// Identical content is skipped under allow too: allow is no way out.
		hint := " (use --dedup allow to save anyway)"
		if len(out.Similar) > 0 && out.Similar[0].Identical {
			hint = ", word for word"
		}
		fmt.Fprintf(a.io.ErrOut, "not saved: %s already holds this%s\n", out.Memory.ID, hint)
	case workflow.Updated:
		fmt.Fprintf(a.io.ErrOut, "updated %s with the new content instead of saving a copy\n", out.Memory.ID)
	}
	if asJSON {
		var where workflow.Scope
		if out.Action != workflow.Skipped {
			where = out.Scope // as before: a skip names no store
		}
		return a.printJSON(savedJSON{Memory: out.Memory, Action: out.Action, Similar: out.Similar,
			MaySupersede: out.MaySupersede, Superseded: out.Superseded, Unchecked: out.Unchecked, SupersededProgress: out.SupersededProgress,
			Scope: where, Commit: out.Commit})
	}
	fmt.Fprintln(a.io.Out, out.Memory.ID)
	return nil
}

// supersededWhy says why a save superseded m: what it contradicts, or
// that it repeats it.
func supersededWhy(m workflow.Match) string {
	if m.Why != "" {
		return m.Why
	}
	return fmt.Sprintf("repeated, similarity %.2f", m.Similarity)
}
