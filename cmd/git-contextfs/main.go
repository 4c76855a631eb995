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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := newApp(iostreams.System()).run(ctx, os.Args[1:])
	stop()
	if os.Getenv("CONTEXTFS_PEAK_RSS") == "1" {
		reportPeakRSS()
	}
	os.Exit(code)
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
