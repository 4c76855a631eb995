package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

func (a *app) contextCmd() *cobra.Command {
	var (
		task, format string
		budget       int
		deferHook    bool
		repos        []string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "context [--task TEXT] [--budget TOKENS] [--format markdown|json]",
		Short: "Print the context block an agent reads at the start of a session",
		Long: `Prints what an agent should know before its first prompt, in sections
(each left out when empty): Project brief, Architecture, Tech context,
Product context, Progress (the latest only), Last session, Preferences, Open
work, Relevant to your changes (memories whose paths cover the files this
branch changes), Relevant to the task (a search for --task), and with
--repos, From registered repositories (what the task finds in those
registered with "git contextfs repos add"; off by default).

Every item cites its memory ID for "git contextfs recall". The block fits
--budget tokens (default: context.budget in config, else 2000), estimated
never below real tokenizers' counts, by trimming bodies, then items, then
whole sections in the order docs/CONTEXT.md gives. The same files give the
same bytes.`,
		Example: `  git contextfs context
  git contextfs context --task "add refresh tokens" --budget 1000
  git contextfs context --format json
  git contextfs context --task "retry policy" --repos all`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				format = "json"
			}
			if format != "markdown" && format != "json" {
				return &usageError{fmt.Errorf("--format must be markdown or json, not %q", format)}
			}
			if budget < 0 {
				return &usageError{fmt.Errorf("--budget must not be negative, got %d", budget)}
			}
			if len(repos) > 0 && strings.TrimSpace(task) == "" {
				return &usageError{fmt.Errorf("--repos adds what --task finds in other repositories: give --task too")}
			}
			if deferHook && workflow.ProjectInjects(a.workDir()) {
				return nil // the project's own SessionStart hook prints the block
			}
			print := func(b *workflow.Block) error {
				if format == "json" {
					return a.printJSON(b)
				}
				_, err := fmt.Fprint(a.io.Out, b.Markdown())
				return err
			}
			req := workflow.ContextRequest{Task: task, Budget: budget, Repos: repos}
			err := a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
				var b *workflow.Block
				var err error
				// Other repositories are opened by the command, never
				// kept warm.
				if a.warm != nil && len(repos) == 0 {
					b, err = a.warm.ContextBlock(cmd.Context(), s, task, budget)
				} else {
					svc := workflow.ForStore(s, nil, a.io.ErrOut)
					defer svc.Close() // the user store it opens; s stays withStore's
					b, err = svc.Context(cmd.Context(), req)
				}
				if err != nil {
					return err
				}
				return print(b)
			})(cmd, args)
			if errors.Is(err, workflow.ErrNotRepo) {
				// An agent started outside a repository (Claude Code's
				// SessionStart hook in a home folder) still gets the
				// person's own memories: the service without a repository
				// gives the user store's block.
				b, uerr := a.userContextBlock(cmd.Context(), req)
				if uerr != nil {
					return fmt.Errorf("%w; and the user store: %v", err, uerr)
				}
				return print(b)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&task, "task", "", "what the session is about: adds the memories a search for `TEXT` finds")
	f.IntVar(&budget, "budget", 0, "size of the block in estimated `TOKENS` (default from config, 2000)")
	f.StringVar(&format, "format", "markdown", "markdown or json")
	f.BoolVar(&asJSON, "json", false, "same as --format json")
	f.StringSliceVar(&repos, "repos", nil, "with --task, add the memories of these registered repositories (`NAMES`, or all) that it finds")
	// The user-level SessionStart hook's (agentsetup): print nothing in a
	// repository whose own Claude Code settings print the block, which
	// Claude Code runs beside the user's.
	f.BoolVar(&deferHook, "unless-project-hook", false, "print nothing where the repository's own Claude Code SessionStart hook prints the block")
	_ = f.MarkHidden("unless-project-hook")
	return cmd
}

// userContextBlock is the block of the user store alone, for a command
// run outside any repository. With no user store yet, the block is empty
// (its header only) and nothing is created.
func (a *app) userContextBlock(ctx context.Context, req workflow.ContextRequest) (*workflow.Block, error) {
	svc, err := a.openScopes(ctx)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	return svc.Context(ctx, req)
}
