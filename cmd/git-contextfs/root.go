package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/buildinfo"
)

// version is this build's version (package buildinfo): what make set
// with -ldflags, else what go install recorded, else "dev". Doctor, the
// manual pages and the MCP server's start compare or print it. A function,
// not a variable, so that no process pays for reading it at start.
func version() string { return buildinfo.Version() }

// rootCmd is git-contextfs itself, with every subcommand below it.
func (a *app) rootCmd() *cobra.Command { return a.root(a.commands()) }

// root is the root command with the subcommands cmds.
func (a *app) root(cmds []*cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "git-contextfs",
		Short: "A git-native memory for AI coding assistants",
		Long: `contextfs gives a repository a memory that people and agents share.

Memories are Markdown files with YAML frontmatter under .contextfs/: typed
(decision, fact, error, procedural, ...), tagged and linked. They are
committed, branched, merged and reviewed like code. A disposable cache in
the git directory makes them searchable by keyword and by meaning.

Run it as "git contextfs COMMAND" or as "git-contextfs COMMAND". git turns
"git contextfs --help" into "git help contextfs", which shows the manual
page that make install puts where man finds it; -h works everywhere.

On a terminal, as git and gh do, output is in colour (memory types, IDs,
scores, review headings, errors and warnings) and long lines of list and
search are cut to its width. --color=never, NO_COLOR=1 or git config
color.ui never (or color.contextfs) turn colour off; --color=always or
CLICOLOR_FORCE=1 colour a pipe too. Hooks and --json are never coloured,
and nothing is cut in a pipe.`,
		Example: `  git contextfs init
  git contextfs save --type decision --tag db "Use pgx with a pool of 20 connections"
  git contextfs search "how do we pool db connections"
  git contextfs recall k3x9`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate(buildinfo.Read().String() + "\n")
	root.SetOut(a.io.Out)
	root.SetIn(a.io.In)
	root.SetErr(a.io.ErrOut)
	root.PersistentFlags().StringVarP(&a.dir, "repo", "C", "", "run as if started in `DIR` (relative paths are taken from it)")
	root.PersistentFlags().String("color", "auto", colorUsage)
	root.RegisterFlagCompletionFunc("color", fixed("auto\ton a terminal (the default)", "always\tin a pipe too", "never"))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w\nSee '%s -h'.", err, c.CommandPath())}
	})
	// With no subcommand, print help; with an unknown one, say so and
	// exit 2, since it is a command-line mistake.
	root.SuggestionsMinimumDistance = 2
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\nDid you mean " + strings.Join(s, " or ") + "?"
		}
		return &usageError{fmt.Errorf("%s\nSee '%s -h'.", msg, c.CommandPath())}
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		// -C DIR first, as git changes to it before anything: a path
		// argument would otherwise be the one said to be missing.
		if a.dir != "" {
			if fi, err := os.Stat(a.dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("%s: no such folder", a.dir)
			}
		}
		if err := a.setColor(c); err != nil {
			return err
		}
		if code, ok := a.tryWarm(c, args); ok {
			return &exitError{code} // the watcher ran it; its output is written
		}
		return nil
	}
	root.AddCommand(cmds...)
	a.addCompletions(root)
	return root
}

// commands are the subcommands, in the order help lists them. Each lives
// in its own file, cmd_<name>.go; adding one is one line here.
func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{
		// Memories.
		a.initCmd(),
		a.saveCmd(),
		a.searchCmd(),
		a.recallCmd(),
		a.listCmd(),
		a.updateCmd(),
		a.deleteCmd(),
		a.statusCmd(),
		a.reindexCmd(),
		a.schemaCmd(),
		a.validateCmd(),
		// Agents.
		a.contextCmd(),
		a.promptContextCmd(),
		a.sessionCmd(),
		a.setupCmd(),
		a.importCmd(),
		a.exportCmd(),
		// Knowledge hygiene: links, lineage, aging, the graph.
		a.linkCmd(),
		a.unlinkCmd(),
		a.relatedCmd(),
		a.evolveCmd(),
		a.mergeCmd(),
		a.splitCmd(),
		a.lineageCmd(),
		a.pruneCmd(),
		a.graphCmd(),
		// Scopes: your own store, other repositories.
		a.userCmd(),
		a.reposCmd(),
		// Code and history.
		a.indexCmd(),
		// The git workflow.
		a.hooksCmd(),
		a.hookCmd(),
		a.doctorCmd(),
		a.fmtCmd(),
		a.mergeDriverCmd(),
		a.reviewCmd(),
		a.commitCmd(),
		// Serving.
		a.mcpCmd(),
		a.serveCmd(),
		a.watchCmd(),
		// Your toolbox.
		a.installCmd(),
		a.uninstallCmd(),
		a.manCmd(),
		a.versionCmd(),
	}
}
