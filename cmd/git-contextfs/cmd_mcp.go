package main

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/mcpserver"
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
		RunE: a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
			srv := mcpserver.New(s, mcpserver.Options{Version: version, Log: a.io.ErrOut})
			err := srv.Run(cmd.Context(), mcpserver.NewStdioTransport())
			// The client closing stdin, or an interrupt, is how a stdio
			// server is meant to stop.
			if err == nil || errors.Is(err, mcp.ErrConnectionClosed) || cmd.Context().Err() != nil {
				return nil
			}
			return fmt.Errorf("mcp server: %w", err)
		}),
	}
}
