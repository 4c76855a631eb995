package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/agentsetup"
	"github.com/contextfs/contextfs/branchdiff"
	"github.com/contextfs/contextfs/contextblock"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/review"
	"github.com/contextfs/contextfs/scope"
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
			if deferHook && a.projectInjects() {
				return nil // the project's own SessionStart hook prints the block
			}
			print := func(b *contextblock.Block) error {
				if format == "json" {
					return a.printJSON(b)
				}
				_, err := fmt.Fprint(a.io.Out, b.Markdown())
				return err
			}
			err := a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
				var b *contextblock.Block
				var err error
				switch {
				case len(repos) > 0:
					// Other repositories are opened here, never kept warm.
					b, err = a.coldContextBlock(cmd.Context(), s, task, budget, repos)
				case a.warm != nil:
					b, err = a.warm.contextBlock(cmd.Context(), s, task, budget)
				default:
					b, err = a.coldContextBlock(cmd.Context(), s, task, budget, nil)
				}
				if err != nil {
					return err
				}
				return print(b)
			})(cmd, args)
			if errors.Is(err, gitstore.ErrNotRepo) {
				// An agent started outside a repository (Claude Code's
				// SessionStart hook in a home folder) still gets the
				// person's own memories.
				b, uerr := a.userContextBlock(cmd.Context(), task, budget)
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

// projectInjects reports whether the repository the command runs in has
// a Claude Code SessionStart hook of its own that prints the block.
func (a *app) projectInjects() bool {
	dir := a.dir
	if dir == "" {
		dir = "."
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return false // outside a repository only the user's hook runs
	}
	return agentsetup.ProjectInjects(repo.Root) != ""
}

// coldContextBlock builds the block in a command of its own: the changed
// files from what the last command found while nothing it came from
// changed (branchdiff.Resolver's state file), else from git, and the user
// store opened for the occasion.
//
// repos (names, or "all") adds the memories of those registered
// repositories that the task finds.
func (a *app) coldContextBlock(ctx context.Context, s *contextfs.Store, task string, budget int, repos []string) (*contextblock.Block, error) {
	diff := branchdiff.NewResolver(s.Repo.Root, s.Repo.GitDir, s.Repo.CommonDir)
	state := filepath.Join(s.CacheDir(), "branchdiff.json")
	diff.Load(state)
	set := scope.FromStore(s, scope.Options{Warnings: a.io.ErrOut})
	defer set.Close() // the user store it opens; s stays the caller's
	user, err := set.ExistingUser(ctx)
	if err != nil {
		fmt.Fprintf(a.io.ErrOut, "contextfs: the user store's preferences are left out: %v\n", err)
	}
	o := contextblock.Options{Task: task, Budget: budget, ChangedUnder: changedUnder(diff), User: user}
	if len(repos) > 0 {
		cfg, err := scope.LoadConfig()
		if err != nil {
			return nil, err
		}
		if o.Repos, err = cfg.Pick(repos); err != nil {
			return nil, err
		}
		o.Scopes = set
	}
	b, err := contextblock.Build(ctx, s, o)
	if err != nil {
		return nil, err
	}
	if !s.Cache().ReadOnly() {
		// Only a saving for the next command: git answers if it fails.
		_ = diff.Save(state)
	}
	return b, nil
}

// userContextBlock is the block of the user store alone, for a command
// run outside any repository. With no user store yet, the block is empty
// (its header only) and nothing is created.
func (a *app) userContextBlock(ctx context.Context, task string, budget int) (*contextblock.Block, error) {
	set, err := a.openScopes(ctx)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	user, err := set.ExistingUser(ctx)
	if err != nil {
		return nil, err
	}
	if user == nil {
		return &contextblock.Block{Budget: budget, Estimator: contextblock.Estimator}, nil
	}
	return contextblock.Build(ctx, user, contextblock.Options{Task: task, Budget: budget})
}

// changedUnder asks diff for the files the branch changes below some
// folders; contextblock asks only when some memory has paths:.
func changedUnder(diff *branchdiff.Resolver) func(context.Context, []string) ([]string, error) {
	return func(ctx context.Context, within []string) ([]string, error) {
		ch, err := diff.FilesUnder(ctx, within)
		return ch.Files, err
	}
}

// relevantToRange lists the memories attached to the code (not the memory
// files) that a reviewed range changes.
func relevantToRange(ctx context.Context, s *contextfs.Store, base, head string) ([]review.Relevant, error) {
	files, err := branchdiff.Between(ctx, s.Repo.Root, base, head)
	if err != nil {
		return nil, err
	}
	memFiles := map[string]bool{}
	for _, f := range files {
		if gitstore.IsMemoryPath(f) {
			memFiles[f] = true
		}
	}
	files = slices.DeleteFunc(files, gitstore.IsMemoryPath)
	if len(files) == 0 {
		return nil, nil
	}
	es, err := s.List(ctx, contextfs.ListOptions{Attached: files})
	if err != nil {
		return nil, err
	}
	var out []review.Relevant
	for _, e := range es {
		// The code moved on and the memory about it did not.
		out = append(out, review.Relevant{ID: e.ID, Type: e.Type, Title: e.Title, Path: e.Path, MayBeStale: !memFiles[e.Path]})
	}
	return out, nil
}
