package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

func (a *app) setupCmd() *cobra.Command {
	var project, user, dryRun, remove, asJSON bool
	cmd := &cobra.Command{
		Use:   "setup claude|cursor|codex [--project|--user] [--dry-run] [--remove]",
		Short: "Connect an agent client to contextfs (MCP server, and Claude Code's and Codex's hooks)",
		Long: `Writes the client's MCP configuration so that it starts "git contextfs mcp",
and for Claude Code its hooks: SessionStart opens a session and prints the
context block (which Claude Code adds to the session), UserPromptSubmit
recalls the memories relevant to each prompt, Stop reminds the agent to
save what the session settled, SessionEnd ends the session. Codex gets the
UserPromptSubmit and Stop hooks. --project (the default) writes the
repository's files, to commit and share; --user writes your own.

  claude  --project: .mcp.json, .claude/settings.json
          --user:    ~/.claude.json, ~/.claude/settings.json
  cursor  --project: .cursor/mcp.json      --user: ~/.cursor/mcp.json
  codex   --project: .codex/config.toml, .codex/hooks.json
          --user:    $CODEX_HOME/config.toml, $CODEX_HOME/hooks.json (~/.codex)

Entries are merged into existing files; an entry of your own named
contextfs is never replaced, and a hook of yours that already runs
"git contextfs context" (or "session end") gets no second one beside it.
The user's SessionStart hook prints nothing in a repository whose own
settings print the block (context --unless-project-hook): the block is
injected once whichever setup ran first.
A file that is a symbolic link is written through and stays a link
(the report names the file it leads to); in the project's files a link
that leads out of the repository, or into .git, is refused.
A file that needs nothing (the user's own file has every hook) and does
not exist is not created: "nothing to do". Running it twice changes
nothing. --remove takes out only our entries,
from each file as it is now: a file that holds nothing else since setup
is restored byte for byte (less any entry of ours it already had), or
deleted if setup created it.
docs/AGENTS.md describes every file.`,
		Example: `  git contextfs setup claude
  git contextfs setup cursor --user --dry-run
  git contextfs setup codex --user
  git contextfs setup claude --remove`,
		Args: argsRange(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(workflow.SetupClients, args[0]) {
				return &usageError{fmt.Errorf("unknown client %q (want %s)", args[0], strings.Join(workflow.SetupClients, ", "))}
			}
			if project && user {
				return &usageError{fmt.Errorf("--project and --user exclude each other")}
			}
			chs, err := workflow.Setup(workflow.SetupRequest{Client: args[0], User: user, Dir: a.workDir(), Remove: remove, DryRun: dryRun})
			if err != nil {
				return err
			}
			for _, c := range chs {
				for _, n := range c.Notes {
					fmt.Fprintf(a.io.ErrOut, "note: %s\n", n)
				}
			}
			if !remove {
				// The client will start `git contextfs mcp`: say now,
				// not in the agent's logs, that it cannot run.
				if _, err := findMCPProgram(); err != nil {
					fmt.Fprintf(a.io.ErrOut, "warning: the agent starts git contextfs mcp, but %v\n", err)
				}
			}
			if asJSON {
				return a.printJSON(chs)
			}
			for _, c := range chs {
				verb := c.Action
				switch {
				case c.Action == workflow.SetupAbsent:
					// Nothing was (or would be) written, and the file is
					// not there: "unchanged" would say it is.
					fmt.Fprintf(a.io.Out, "nothing to do: %s does not exist%s\n", c.Path, absentWhy(remove))
					continue
				case dryRun && c.Action != "unchanged":
					verb = "would " + c.Action
				}
				if c.Target != "" {
					fmt.Fprintf(a.io.Out, "%s %s (link to %s)\n", verb, c.Path, c.Target)
				} else {
					fmt.Fprintf(a.io.Out, "%s %s\n", verb, c.Path)
				}
				if dryRun && c.Action != "unchanged" && c.After != nil {
					for _, line := range strings.SplitAfter(string(c.After), "\n") {
						if line != "" {
							fmt.Fprint(a.io.Out, "  | "+line)
						}
					}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&project, "project", false, "write the repository's files (the default)")
	f.BoolVar(&user, "user", false, "write your own files in your home directory")
	f.BoolVar(&dryRun, "dry-run", false, "print what would change, write nothing")
	f.BoolVar(&remove, "remove", false, "take contextfs out of the client's configuration again")
	f.BoolVar(&asJSON, "json", false, "print the files and what happened to each as JSON")
	return cmd
}

// absentWhy says why setup leaves a missing file missing.
func absentWhy(remove bool) string {
	if remove {
		return ", so there is nothing to remove"
	}
	return " and needs nothing (see the notes), so it is not created"
}
