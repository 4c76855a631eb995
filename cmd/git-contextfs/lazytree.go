package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// commandsFor returns the subcommands that running args needs. Building
// all of them, with their flags and help texts, is about a twentieth of
// what a process start costs (docs/DESIGN.md, "Start-up"), and most runs
// are one of a few commands that git hooks, agents and scripts start
// again and again: for those only that command is built. Anything else
// (help, completion, man, an alias, a mistyped name, flags before the
// command other than -C) gets the whole tree, so help listings,
// suggestions and generated pages see every command.
func (a *app) commandsFor(args []string) []*cobra.Command {
	if len(args) == 1 && args[0] == "--version" {
		return nil
	}
	if c := a.hotCommand(commandName(args)); c != nil {
		return []*cobra.Command{c}
	}
	return a.commands()
}

// hotCommand builds the command named name if it is one of those built
// alone, or returns nil.
func (a *app) hotCommand(name string) *cobra.Command {
	switch name {
	case "hook":
		return a.hookCmd()
	case "search":
		return a.searchCmd()
	case "save":
		return a.saveCmd()
	case "recall":
		return a.recallCmd()
	case "list":
		return a.listCmd()
	case "status":
		return a.statusCmd()
	case "context":
		return a.contextCmd()
	case "session":
		return a.sessionCmd()
	case "update":
		return a.updateCmd()
	case "delete":
		return a.deleteCmd()
	case "mcp":
		return a.mcpCmd()
	case "watch":
		return a.watchCmd()
	case "version":
		return a.versionCmd()
	}
	return nil
}

// commandName is the first argument that is not a flag, skipping the
// global -C/--repo and its value; "" when a different flag comes first,
// since only the whole tree knows what that flag takes.
func commandName(args []string) string {
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "-C" || arg == "--repo":
			i++
		case strings.HasPrefix(arg, "--repo=") || strings.HasPrefix(arg, "-C"):
		case strings.HasPrefix(arg, "-"):
			return ""
		default:
			return arg
		}
	}
	return ""
}
