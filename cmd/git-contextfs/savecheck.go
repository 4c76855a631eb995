package main

import (
	"context"
	"fmt"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/aging"
	"github.com/contextfs/contextfs/dedup"
	"github.com/contextfs/contextfs/memory"
	"github.com/contextfs/contextfs/scope"
)

// savedJSON is what save --json prints: the memory's own fields, plus what
// the checks at save found and did.
type savedJSON struct {
	*memory.Memory
	Action       dedup.Action  `json:"action"`
	Similar      []dedup.Match `json:"similar"`
	MaySupersede []dedup.Match `json:"may_supersede"`
	// Unchecked says why the save was compared for identical content only.
	Unchecked string `json:"unchecked,omitempty"`
	// SupersededProgress lists the progress memories a new progress replaced.
	SupersededProgress []string `json:"superseded_progress,omitempty"`
	// Scope is the store it went to; Commit, the user store's commit of it.
	Scope  scope.Scope `json:"scope,omitempty"`
	Commit string      `json:"commit,omitempty"`
}

// checkedSave saves req with the hygiene checks: a progress memory
// supersedes the current ones, then duplicates are handled by policy (the
// --dedup flag, else the config, else skip). It reports on stderr what it
// found and prints the result. saved, called once a file was written, says
// where it went and commits it there when that store commits at once.
func (a *app) checkedSave(ctx context.Context, s *contextfs.Store, req contextfs.SaveRequest, policyFlag string, asJSON bool, saved func() (scope.Scope, string)) error {
	policy, err := dedup.ParsePolicy(policyFlag)
	if policyFlag == "" {
		policy, err = dedup.ParsePolicy(s.Config.Hygiene.Dedup)
	}
	if err != nil {
		return &usageError{fmt.Errorf("--dedup: %w", err)}
	}
	// The progress rule and the checks decide on the memories as they are:
	// no other save may change them until this one is written.
	ctx, unlock, err := s.LockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	prev, err := aging.SupersedeProgress(ctx, s, &req, aging.RulesOf(s.Config.Hygiene))
	if err != nil {
		return err
	}
	out, err := dedup.Save(ctx, s, req, policy, dedup.DefaultThresholds)
	if out != nil {
		for _, m := range out.Similar {
			fmt.Fprintf(a.io.ErrOut, "similar: %s %s (%s, similarity %.2f)\n", m.ID, m.Title, m.Path, m.Similarity)
		}
		for _, m := range out.MaySupersede {
			fmt.Fprintf(a.io.ErrOut, "may supersede: %s %s (%s); confirm with --supersedes %s\n", m.ID, m.Title, m.Why, m.ID)
		}
		if out.Unchecked != "" {
			fmt.Fprintf(a.io.ErrOut, "warning: %s\n", out.Unchecked)
		}
	}
	if err != nil {
		return err
	}
	if out.Saved != nil {
		for _, w := range out.Saved.Warnings {
			fmt.Fprintf(a.io.ErrOut, "warning: possible secret: %s\n  The pre-commit hook will refuse this file. Remove it, or allow it (see docs/SECRETS.md).\n", w)
		}
	}
	var where scope.Scope
	var commit string
	if out.Action != dedup.Skipped {
		where, commit = saved()
	}
	switch out.Action {
	case dedup.Skipped:
		// Identical content is skipped under allow too: allow is no way out.
		hint := " (use --dedup allow to save anyway)"
		if len(out.Similar) > 0 && out.Similar[0].Identical {
			hint = ", word for word"
		}
		fmt.Fprintf(a.io.ErrOut, "not saved: %s already holds this%s\n", out.Memory.ID, hint)
	case dedup.Updated:
		fmt.Fprintf(a.io.ErrOut, "updated %s with the new content instead of saving a copy\n", out.Memory.ID)
	}
	if asJSON {
		return a.printJSON(savedJSON{Memory: out.Memory, Action: out.Action, Similar: out.Similar,
			MaySupersede: out.MaySupersede, Unchecked: out.Unchecked, SupersededProgress: prev, Scope: where, Commit: commit})
	}
	fmt.Fprintln(a.io.Out, out.Memory.ID)
	return nil
}
