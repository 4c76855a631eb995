package main

// Warm answers: a command that only reads (search, context, a page of
// list) or saves from its command line asks the repository's watcher to
// run it, through package warm, which keeps the stores open between
// calls; see docs/DESIGN.md, "Warm answers". This file decides which
// command lines are sent, and runs them when the watcher asks (warmRunner).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/warm"
)

// warmListMax is the longest listing list asks the watcher for. A warm
// answer comes back whole, in one frame, where a cold listing is written
// as it goes; and past a page the answer's transfer costs what it saves
// (see docs/DESIGN.md, "Warm answers": at 10K memories, --all warm costs
// the command and the watcher together more than it does cold).
const warmListMax = 1000

// warmable reports whether c, run with args, may be answered by the
// watcher: commands whose output depends only on the repository, the
// user's files and the environment, not on the terminal, standard input
// or the current directory. save writes through the same code as a cold
// save (atomic file, cache update, duplicate check), one call at a time.
// tty says whether standard output is a terminal: list's text then goes
// through a pager, which only the command itself can start.
func warmable(c *cobra.Command, args []string, tty bool) bool {
	if c.Parent() == nil || c.Parent().Parent() != nil {
		return false
	}
	switch c.Name() {
	case "search":
		// --path names files relative to where the command runs; --repos
		// reads other repositories, whose watchers are their own.
		return len(args) > 0 && !c.Flags().Changed("path") && !c.Flags().Changed("repos")
	case "context", "prompt-context":
		return true
	case "list":
		// --path names files relative to where the command runs.
		all, _ := c.Flags().GetBool("all")
		n, _ := c.Flags().GetInt("limit")
		asJSON, _ := c.Flags().GetBool("json")
		return (asJSON || !tty) && !all && n <= warmListMax && !c.Flags().Changed("path")
	case "save":
		// The content on the command line, not on standard input, which
		// the watcher does not have.
		return len(args) > 0 && !(len(args) == 1 && args[0] == "-")
	}
	return false
}

// tryWarm asks the repository's watcher to run c with args. It returns
// the exit code and true when the watcher answered (its output is then
// written), false when the command must run itself. CONTEXTFS_WARM=off
// never asks; CONTEXTFS_WARM=only fails rather than run cold, to check
// that a watcher answers: a command never sent to the watcher fails too,
// since a benchmark or test that set it must not time or check a cold
// run believing it warm.
func (a *app) tryWarm(c *cobra.Command, args []string) (int, bool) {
	if !a.askWarm || a.warm != nil {
		return 0, false
	}
	mode := os.Getenv("CONTEXTFS_WARM")
	if !warmable(c, args, a.io.StdoutIsTerminal()) {
		if mode == "only" && !onlyExempt(c) {
			fmt.Fprintf(a.io.ErrOut, "git-contextfs: no warm answer (CONTEXTFS_WARM=only): %s; unset CONTEXTFS_WARM to run it cold\n", notSentReason(c))
			return exitFail, true
		}
		return 0, false
	}
	if mode == "off" || os.Getenv("CONTEXTFS_WATCH") == contextfs.WatchOff && mode != "only" {
		return 0, false
	}
	ans, err := a.askWatcher(c, args)
	if err != nil {
		if mode == "only" {
			fmt.Fprintf(a.io.ErrOut, "git-contextfs: no warm answer (CONTEXTFS_WARM=only): %v\n", err)
			return exitFail, true
		}
		var hung *warm.NotAnsweringError
		if errors.As(err, &hung) {
			// One line; then the command runs cold, and its query of
			// changes gives up on the watcher silently (0.2 s).
			fmt.Fprintln(a.io.ErrOut, hung.Notice())
		}
		return 0, false
	}
	a.io.Out.Write(ans.Stdout)
	a.io.ErrOut.Write(ans.Stderr)
	return ans.Code, true
}

// onlyExempt reports whether c is left alone by CONTEXTFS_WARM=only,
// which is about the commands a benchmark or test runs: help and
// completions (nothing to run cold), and what git or contextfs itself
// starts with the environment it was given (a hook, the merge driver,
// the watcher), which must not fail a commit, a merge or the watcher;
// nor the session commands an agent's hooks run (setup claude), which a
// CONTEXTFS_WARM=only left in a shell profile would fail at every start
// and end of an agent session.
func onlyExempt(c *cobra.Command) bool {
	switch c.Name() {
	case "help", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "hook", "merge-driver":
		return c.Parent() == c.Root()
	case "run":
		return c.Parent() != nil && c.Parent().Name() == "watch"
	case "start", "end":
		return c.Parent() != nil && c.Parent().Name() == "session"
	}
	return c == c.Root()
}

// notSentReason says why c, which warmable refused, is not sent to the
// watcher, naming the command as typed after git-contextfs.
func notSentReason(c *cobra.Command) string {
	name := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	switch c.Name() {
	case "search", "context", "prompt-context", "list", "save":
		if c.Parent() == c.Root() {
			return fmt.Sprintf("%s is not sent to the watcher with these arguments or this output (see docs/DESIGN.md, \"Warm answers\")", name)
		}
	}
	return fmt.Sprintf("%s is never sent to the watcher", name)
}

// askWatcher sends c's command line to the watcher of the repository
// around --repo and returns its answer.
func (a *app) askWatcher(c *cobra.Command, args []string) (warm.Answer, error) {
	root, socket, err := warm.Locate(a.workDir())
	if err != nil {
		return warm.Answer{}, err
	}
	build, err := warm.BuildID(version())
	if err != nil {
		return warm.Answer{}, err
	}
	req := warm.Request{Build: build, Env: os.Environ(), Args: warmArgs(root, c, args),
		Color: a.io.ColorEnabled(), Width: a.io.TerminalWidth()}
	return warm.Ask(c.Context(), socket, req)
}

// warmArgs rebuilds the command line of c: -C root, the command's name,
// each flag set (as --name=value, repeated for lists), then the
// positional arguments after "--".
func warmArgs(root string, c *cobra.Command, args []string) []string {
	out := []string{"-C", root, c.Name()}
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Changed || f.Name == "repo" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	out = append(out, "--")
	return append(out, args...)
}

// warmRunner runs command lines inside the watcher (warm.Runner), over
// the stores the watcher keeps open.
type warmRunner struct{}

// Run runs req's command line as the caller would have, writing what it
// would have written.
func (warmRunner) Run(ctx context.Context, s *warm.Session, req *warm.Request, stdout, stderr io.Writer) int {
	ios, _, out, errOut := iostreams.Test()
	ios.SetColor(req.Color, false)
	ios.SetTerminalWidth(req.Width)
	s.SetNotes(errOut)
	a := &app{io: ios, warm: s}
	code := a.run(ctx, req.Args)
	stdout.Write(out.Bytes())
	stderr.Write(errOut.Bytes())
	return code
}
