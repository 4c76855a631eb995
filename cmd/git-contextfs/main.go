// Command git-contextfs is the contextfs CLI. Installed on PATH it is also
// `git contextfs`, because git runs git-NAME for an unknown command NAME.
//
// Exit codes: 0 success; 1 the command ran but found a problem (invalid
// memories, secrets, not found) or failed; 2 the command line was wrong;
// 130 it was interrupted (Ctrl-C), as a shell reports such a command.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	// exitInterrupted is 128 + SIGINT: scripts and shells tell a command
	// stopped by Ctrl-C from one that failed by this code.
	exitInterrupted = 130
)

// exitError carries an exit code with an error already reported.
type exitError struct{ code int }

// Error names the exit code; the message itself was already printed.
func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError marks a command-line mistake (exit 2).
type usageError struct{ err error }

// Error is the underlying message.
func (e *usageError) Error() string { return e.err.Error() }

func main() {
	a := newApp(iostreams.System())
	a.execve = syscall.Exec
	code := a.runInterruptible(os.Args[1:])
	if os.Getenv("CONTEXTFS_PEAK_RSS") == "1" {
		reportPeakRSS()
	}
	os.Exit(code)
}

// runInterruptible runs args as run does, with Ctrl-C cancelling the
// command's context, so that it stops cleanly and exits 130. The handler
// is armed before anything runs, except where args only print the
// version or help (runsACommand).
func (a *app) runInterruptible(args []string) int {
	if !runsACommand(args) {
		return a.run(context.Background(), args)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return a.run(ctx, args)
}

// runsACommand reports whether args run a command rather than only print
// the version or help, which have nothing to stop cleanly. They arm no
// interrupt handler because one costs every process two more threads
// (signal.Notify's loop and NotifyContext's goroutine each wake an idle
// processor): a sixth of --version's CPU (docs/DESIGN.md, Start-up).
func runsACommand(args []string) bool {
	if len(args) == 0 {
		return false // the root's help
	}
	switch args[len(args)-1] {
	case "--version", "-h", "--help":
		return false
	}
	return true
}

// run runs the command line args and returns the exit code; an error is
// reported on the app's standard error. Tests call it in-process.
func (a *app) run(ctx context.Context, args []string) int {
	return a.execute(ctx, a.root(a.commandsFor(args)), args)
}

// execute runs args on root and returns the exit code.
func (a *app) execute(ctx context.Context, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// An error found before the command ran (an unknown command, bad
	// arguments) comes before setColor: --color, if it was read, applies.
	_ = a.colorFlag(root)
	fmt.Fprintln(a.io.ErrOut, "git-contextfs: "+err.Error())
	if ctx.Err() != nil {
		return exitInterrupted // whatever the error says, the interrupt caused it
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFail
}

// reportPeakRSS prints the process's peak resident set size (VmHWM) to
// stderr, for benchmarks: the rusage a parent gets from wait4 also counts
// the parent's own memory, which the child's address space started as.
func reportPeakRSS() {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Fprintln(os.Stderr, "contextfs: peak RSS "+strings.TrimSpace(v))
		}
	}
}
