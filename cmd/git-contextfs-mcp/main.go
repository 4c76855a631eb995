// Command git-contextfs-mcp is the contextfs MCP server, the program that
// `git contextfs mcp` runs. It is a program of its own so that the MCP SDK,
// and what it brings (encoding/gob, a JSON Schema library), is not linked
// into git-contextfs: Go initialises every linked package at start, and
// git-contextfs starts for every command and every git hook, while this
// server starts once per agent session (docs/DESIGN.md, "Start-up").
//
// Exit codes, as git-contextfs's: 0 when the client closes the connection
// or the server is interrupted; 1 when it fails; 2 when the command line is
// wrong.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/buildinfo"
	"github.com/contextfs/contextfs/internal/mcpserver"
	"github.com/contextfs/contextfs/internal/sibling"
	"github.com/contextfs/contextfs/internal/warm"
	"github.com/contextfs/contextfs/internal/workflow"
)

// version is this build's version, as git-contextfs's is (package
// buildinfo): the Makefile sets it for all three programs at once.
var version = buildinfo.Version()

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError marks a command-line mistake (exit 2).
type usageError struct{ error }

// run runs the server with the command line args and returns the exit
// code.
func run(args []string, in io.Reader, out, errOut io.Writer) int {
	var dir string
	cmd := &cobra.Command{
		Use:   "git-contextfs-mcp",
		Short: "The contextfs MCP server; agents start it as git contextfs mcp",
		Long: `Serves the memories of the repository around the current directory (or
--repo) to an AI agent over the Model Context Protocol, on standard input and
output. "git contextfs mcp" runs this program, which is installed beside
git-contextfs; "git contextfs mcp -h" and docs/MCP.md describe the tools
and how to configure agents.`,
		Example: `  git contextfs mcp
  git-contextfs-mcp --repo ~/src/shop`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("takes no arguments, got %q\nUsage: %s", args[0], c.UseLine())}
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			if dir != "" {
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
					return fmt.Errorf("%s: no such folder", dir)
				}
			}
			if v := os.Getenv(sibling.VersionEnv); v != "" && v != version {
				fmt.Fprintf(errOut, "warning: git-contextfs %s started git-contextfs-mcp %s; install both from one build (make install)\n", v, version)
			}
			return serve(c.Context(), dir, in, out, errOut)
		},
	}
	cmd.SetVersionTemplate(buildinfo.Read().String() + "\n")
	cmd.SetArgs(args)
	cmd.SetIn(in)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.Flags().StringVarP(&dir, "repo", "C", "", "serve the repository around `DIR`")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nSee '%s -h'.", err, c.CommandPath())}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(errOut, "git-contextfs mcp: "+err.Error())
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// serve opens the store around dir, as git-contextfs opens it, and serves
// it over in and out until the client closes the connection or ctx ends.
// Outside any repository it serves the person's own store alone
// (workflow.OpenServed).
func serve(ctx context.Context, dir string, in io.Reader, out, errOut io.Writer) error {
	sv, err := workflow.OpenServed(ctx, contextfs.Options{Dir: dir, Notices: errOut, StartWatcher: warm.SpawnSiblingWatcher, LongLived: true}, errOut)
	if err != nil {
		return err
	}
	defer sv.Close()
	if sv.Outside {
		fmt.Fprintln(errOut, "git-contextfs mcp: not in a git repository: serving your own memories (the user store) alone")
	}
	srv := mcpserver.New(sv.Store, mcpserver.Options{Version: version, Log: errOut, Service: sv.Service})
	err = srv.Run(ctx, &mcpserver.Transport{In: in, Out: out})
	// The client closing stdin, or an interrupt, is how a stdio server is
	// meant to stop.
	if err == nil || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("mcp server: %w", err)
}
