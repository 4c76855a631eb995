package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/sibling"
)

// serveProgram is the memory viewer, a program of its own installed beside
// git-contextfs: git-contextfs links no HTTP server (docs/DESIGN.md,
// Start-up).
const serveProgram = "git-contextfs-serve"

func (a *app) serveCmd() *cobra.Command {
	var addr string
	var open bool
	var repos []string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Browse the memories in a local, read-only web viewer",
		Long: `Serves a read-only web viewer of this repository's memories and your user
store: counts by type and the context block an agent gets, search with the
filters of search, each memory rendered with its fields, links both ways,
supersedes chain, git history and attached paths, a graph of links, what
the branch changes (as review reports it) and the working sessions.

It listens on 127.0.0.1:7766, the loopback interface only, unless --addr
says otherwise (and warns when that is not loopback); it answers only
requests addressed to that host or localhost, and writes nothing. The URL
is the first line it prints. Stop it with Ctrl-C.

The viewer is a program of its own, git-contextfs-serve, installed beside
git-contextfs (make install puts both there); this command runs it. See
docs/VIEWER.md.`,
		Example: `  git contextfs serve
  git contextfs serve --open
  git contextfs serve --addr 127.0.0.1:0 --repos all`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			argv := []string{"--addr", addr}
			if open {
				argv = append(argv, "--open")
			}
			if len(repos) > 0 {
				argv = append(argv, "--repos", strings.Join(repos, ","))
			}
			return a.runSibling(cmd, serveProgram, "the viewer", argv)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:7766", "listen on `HOST:PORT` (port 0: any free port)")
	f.BoolVar(&open, "open", false, "open the viewer in the web browser")
	stringArrayVar(f, &repos, "repos", "", "search registered repositories too: all, or `NAME,...`")
	return cmd
}

// runSibling runs the program name installed beside git-contextfs in
// place of this process, with the same streams, --repo and args; an app
// without execve (tests in-process) runs it as a child and waits. what
// names the program in the error that it is missing.
func (a *app) runSibling(cmd *cobra.Command, name, what string, args []string) error {
	path, err := sibling.Find(name)
	var nf *sibling.NotFoundError
	if errors.As(err, &nf) {
		return fmt.Errorf("%s is a program of its own, and %w.\n%s", what, err, sibling.InstallHint(name, "sqlite_fts5", version()))
	}
	if err != nil {
		return err
	}
	argv := []string{path}
	if a.dir != "" {
		argv = append(argv, "--repo", a.dir)
	}
	argv = append(argv, args...)
	env := append(os.Environ(), sibling.VersionEnv+"="+version())
	if a.execve != nil {
		return fmt.Errorf("run %s: %w", path, a.execve(path, argv, env)) // returns only if it failed
	}
	c := exec.CommandContext(cmd.Context(), path, argv[1:]...)
	c.Env, c.Stdin, c.Stdout, c.Stderr = env, a.io.In, a.io.Out, a.io.ErrOut
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return &exitError{ee.ExitCode()} // the program reported it
		}
		return fmt.Errorf("run %s: %w", path, err)
	}
	return nil
}
