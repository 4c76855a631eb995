package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// ---------------------------------------------------------------------------
// git contextfs hook NAME [ARGS...]

// defaultHookBudget is how long a hook handler may take before it gives
// up and lets git carry on. A checkout or commit that hangs is worse than
// a cache refreshed by the next command instead.
const defaultHookBudget = 10 * time.Second

// hookOutcome is what a hook handler found.
type hookOutcome struct {
	block  bool     // refuse the commit (pre-commit only)
	stdout string   // the answer to an agent client (its hooks only)
	report []string // lines for stderr
	note   string   // what was done, printed with CONTEXTFS_HOOK_DEBUG
}

// hookFunc is one hook's handler.
type hookFunc func(ctx context.Context, args []string) (hookOutcome, error)

// hookCmd is the hidden `hook NAME`, the handlers the installed hook
// blocks call.
func (a *app) hookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook NAME [ARGS...]",
		Short: "Run the contextfs part of a git hook (called by the installed hooks)",
		Long: `Runs the handler of one git hook; the blocks that "git contextfs hooks
install" writes call it with the hook's arguments. NAME is pre-commit,
post-merge, post-checkout, post-rewrite or post-commit; or, for the agent
clients that setup configures, user-prompt-submit, stop or pre-compact,
which read the client's event as JSON on standard input and answer on
standard output (docs/AGENTS.md).

Only pre-commit can fail (exit 1), and only for invalid memories or
secrets in the staged content. "pre-commit --files FILE..." checks the
work-tree files named instead: the pre-commit framework's hook runs it so
(.pre-commit-hooks.yaml), and git's pre-commit hook leaves the check to it
when .pre-commit-config.yaml lists it, so a commit is checked once. Anything else that goes wrong (git errors,
a broken cache, the time budget running out) prints a warning and exits 0,
so contextfs can never stop your work.

Environment: CONTEXTFS_HOOK_TIMEOUT sets the time budget (default 10s);
CONTEXTFS_HOOK_DEBUG=1 prints what each handler did and how long it took.`,
		Example: `  git-contextfs hook pre-commit
  CONTEXTFS_HOOK_DEBUG=1 git-contextfs hook post-checkout HEAD@{1} HEAD 1`,
		Hidden: true,
		// Hook arguments are git's, never our flags.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			return a.runHook(cmd.Context(), args[0], args[1:])
		},
	}
}

// runHook runs the handler of hook name within its time budget. Only a
// refused commit is an error; everything else fails open.
func (a *app) runHook(ctx context.Context, name string, args []string) error {
	var h hookFunc
	switch name {
	case "pre-commit":
		h = a.preCommit
	case "post-merge", "post-checkout", "post-rewrite", "post-commit":
		h = a.refreshHook(name)
	case "user-prompt-submit":
		h = a.userPromptSubmit
	case "stop":
		h = a.stopHook
	case "pre-compact":
		h = a.preCompact
	default:
		// A hook block newer than this binary: nothing to do, and no
		// reason to stop git.
		a.hookWarn(name, "unknown hook; update git-contextfs")
		return nil
	}
	budget := hookBudget()
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	start := time.Now()

	type result struct {
		out hookOutcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		out, err := h(ctx, args)
		done <- result{out, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		// Give the handler a moment to see the cancellation and close
		// the cache cleanly; it is abandoned after that.
		select {
		case r = <-done:
		case <-time.After(250 * time.Millisecond):
			r.err = ctx.Err()
		}
	}
	switch {
	case r.err != nil && errors.Is(r.err, context.DeadlineExceeded):
		a.hookWarn(name, fmt.Sprintf("took longer than %s and was skipped (CONTEXTFS_HOOK_TIMEOUT sets the budget)%s", budget, skippedHint(name)))
		return nil
	case r.err != nil && errors.Is(r.err, context.Canceled):
		a.hookWarn(name, "interrupted"+skippedHint(name))
		return nil
	case r.err != nil:
		a.hookWarn(name, r.err.Error()+skippedHint(name))
		return nil
	}
	fmt.Fprint(a.io.Out, r.out.stdout)
	for _, l := range r.out.report {
		fmt.Fprintln(a.io.ErrOut, l)
	}
	if os.Getenv("CONTEXTFS_HOOK_DEBUG") != "" && r.out.note != "" {
		fmt.Fprintf(a.io.ErrOut, "contextfs: %s: %s in %s\n", name, r.out.note, time.Since(start).Round(time.Microsecond))
	}
	if r.out.block {
		return &exitError{exitFail}
	}
	return nil
}

// skippedHint tells what a skipped handler leaves undone.
func skippedHint(name string) string {
	if name == "pre-commit" {
		return "; staged memories were not checked: run git contextfs validate"
	}
	return "; the next contextfs command refreshes the cache"
}

// hookWarn prints a one-line warning from a hook handler.
func (a *app) hookWarn(name, msg string) {
	fmt.Fprintf(a.io.ErrOut, "contextfs: %s: warning: %s\n", name, msg)
}

// hookBudget is the handlers' time budget: CONTEXTFS_HOOK_TIMEOUT, a Go
// duration such as 30s, or defaultHookBudget.
func hookBudget() time.Duration {
	if v := os.Getenv("CONTEXTFS_HOOK_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return defaultHookBudget
}

// preCommit checks the staged memories. It refuses the commit for invalid
// memories and secrets, never for formatting. With "--files" first in
// args, as the pre-commit framework's hook runs it (.pre-commit-hooks.yaml),
// it checks the work-tree files named after it instead: the framework
// passes the staged ones during a commit, every one for --all-files.
// Without it, as git's hook, it leaves the check to the framework when the
// framework is about to run contextfs' framework hook, so that a commit
// with both installed is checked once.
func (a *app) preCommit(ctx context.Context, args []string) (hookOutcome, error) {
	req := workflow.PreCommitRequest{Dir: a.workDir()}
	what, refused := "staged memory file(s)", "contextfs: commit refused: %d problem(s) in staged memories:"
	if len(args) > 0 && args[0] == "--files" {
		req.Files, req.WorkTree = args[1:], true
		// Also `pre-commit run --all-files` in CI, which commits nothing.
		what, refused = "memory file(s) named by the pre-commit framework", "contextfs: %d problem(s) in memory files:"
	}
	pc, err := workflow.PreCommit(ctx, req)
	if err != nil {
		return hookOutcome{}, err
	}
	if pc.Skipped != "" {
		return hookOutcome{note: "skipped: " + pc.Skipped}, nil
	}
	res := pc.Check
	var out hookOutcome
	for _, w := range res.Warnings {
		out.report = append(out.report, "contextfs: pre-commit: warning: "+w)
	}
	out.note = fmt.Sprintf("checked %d %s", res.Files, what)
	if !res.Blocking() {
		return out, nil
	}
	out.block = true
	all := res.All()
	out.report = append(out.report, fmt.Sprintf(refused, len(all)))
	for _, p := range all {
		out.report = append(out.report, p.String())
	}
	if len(res.Secrets) > 0 {
		out.report = append(out.report,
			"contextfs: memories are pushed with the code: remove the secret (and rotate it if it was real).",
			"contextfs: not a secret? add contextfs:allow-secret to its line, or its fingerprint to",
			"           secrets.fingerprints in .contextfs/config.yaml (see docs/SECRETS.md).")
	}
	out.report = append(out.report, "contextfs: fix the memory, or bypass with git commit --no-verify")
	return out, nil
}

// refreshHook returns the handler of a hook that runs after git changed
// files or history: it refreshes the cache, so the next search is fast,
// and never blocks.
func (a *app) refreshHook(name string) hookFunc {
	return func(ctx context.Context, args []string) (hookOutcome, error) {
		if name == "post-rewrite" {
			// git writes the rewritten commits to our stdin; read them
			// all so it never sees a broken pipe, but not past the
			// budget.
			drained := a.drainStdin()
			defer func() {
				select {
				case <-drained:
				case <-ctx.Done():
				}
			}()
		}
		res, err := workflow.RefreshAfterGit(ctx, workflow.AfterGitRequest{Dir: a.workDir(), Hook: name, Args: args})
		if err != nil {
			return hookOutcome{}, err
		}
		if res.Skipped != "" {
			return hookOutcome{note: "skipped: " + res.Skipped}, nil
		}
		r := res.Refreshed
		note := fmt.Sprintf("refreshed %d memory file(s): %d changed, %d removed", r.Memories, r.Changed, r.Removed)
		if r.Code {
			note += "; code index updated"
		}
		out := hookOutcome{note: note}
		out.report = res.Exported
		if res.ExportNote != "" {
			out.note += "; " + res.ExportNote
		}
		return out, nil
	}
}

// drainStdin reads standard input to its end in the background; the
// channel is closed when it is done. A terminal is not read: there is no
// end to wait for.
func (a *app) drainStdin() <-chan struct{} {
	done := make(chan struct{})
	if a.io.In == nil || a.io.StdinIsTerminal() {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		io.Copy(io.Discard, a.io.In)
	}()
	return done
}
