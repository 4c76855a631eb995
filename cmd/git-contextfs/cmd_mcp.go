package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/sibling"
)

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memories to AI agents over MCP (stdio)",
		Long: `Runs a Model Context Protocol server on standard input and output, so that
coding agents (Claude Code, Cursor, Codex, ...) can save, search, recall,
list, update and delete memories with tool calls. The agent starts it; it
serves the repository around the directory it is started in (or --repo).

Tools: save_memory, search_memory, recall_memory, list_memories,
update_memory, delete_memory, memory_status, list_repos (and the setup
tools). save, search, recall, list, update and delete take a scope (repo,
user or all; see docs/SCOPES.md), search takes repos. The server reads the
files before every call, so memories edited by people or the CLI meanwhile
are seen. Standard output carries only the protocol; notices go to stderr.

The server is a program of its own, git-contextfs-mcp, installed beside
git-contextfs (make install puts both there); this command runs it.

For Cursor and other clients configured with JSON (.cursor/mcp.json,
.mcp.json, ...); a client may start servers outside the project, so name it:

  {
    "mcpServers": {
      "contextfs": {
        "command": "git",
        "args": ["contextfs", "mcp", "--repo", "/absolute/path/to/your/repo"]
      }
    }
  }

See docs/MCP.md for Codex and the tools' arguments.`,
		Example: `  claude mcp add contextfs -- git contextfs mcp
  codex mcp add contextfs -- git contextfs mcp
  git contextfs mcp --repo ~/src/shop`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runMCP(cmd) },
	}
}

// mcpProgram is the MCP server, a program of its own installed beside
// git-contextfs: linked in, the MCP SDK's initialisation would cost every
// run of git-contextfs, each git hook included (docs/DESIGN.md, Start-up).
const mcpProgram = "git-contextfs-mcp"

// findMCPProgram returns the MCP server program's path, or an error that
// says where it was looked for and how to install it.
func findMCPProgram() (string, error) {
	path, err := sibling.Find(mcpProgram)
	var nf *sibling.NotFoundError
	if errors.As(err, &nf) {
		return "", fmt.Errorf("the MCP server is a program of its own, and %w.\n%s", err, sibling.InstallHint(mcpProgram, "sqlite_fts5", version()))
	}
	return path, err
}

// runMCP runs the MCP server program in place of this process, with the
// same streams and --repo (runSibling).
func (a *app) runMCP(cmd *cobra.Command) error {
	return a.runSibling(cmd, mcpProgram, "the MCP server", nil)
}
