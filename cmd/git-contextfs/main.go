// Command git-contextfs is the contextfs CLI. Installed on PATH it is also
// `git contextfs`, because git runs git-NAME for an unknown command NAME.
//
// Exit codes: 0 success; 1 the command ran but found a problem (invalid
// memories, secrets, not found) or failed; 2 the command line was wrong.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
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
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if os.Getenv("CONTEXTFS_PEAK_RSS") == "1" {
		defer reportPeakRSS()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := &app{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin}
	root := app.rootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "git-contextfs: "+err.Error())
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
