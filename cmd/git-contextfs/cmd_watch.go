package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/warm"
)

func (a *app) watchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Run or control the change watcher that spares commands a check of every file",
		Long: `Every command first brings the cache up to date with the memory files. By
itself it checks every file (a stat each: about 20 ms at 10,000 files, 170 ms
at 100,000 on a 2-core machine). A change watcher, a background process
watching .contextfs/ with inotify (Linux), tells a command which files
changed instead; the check then costs well under a millisecond. It is the
idea of git's fsmonitor.

With watch.mode: auto (the default in .contextfs/config.yaml, or
CONTEXTFS_WATCH=auto|on|off), a command starts a watcher by itself in a
repository of 10,000 memory files or more; with on, always. A watcher exits
after watch.idle (default 30m) without a command, when the work tree or its
git dir is removed or moved, or on "watch stop". Commands never depend on
it: without a watcher, or when it cannot vouch for its answer, they check
every file. A watcher that does not answer (stopped, stuck) is named by
"watch status", and "watch stop" stops it with a signal.`,
		Example: `  git contextfs watch status
  git contextfs watch start
  git contextfs watch stop
  CONTEXTFS_WATCH=off git contextfs search "retry policy"`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.watchRunCmd(), a.watchStartCmd(), a.watchStopCmd(), a.watchStatusCmd())
	return cmd
}

// watchStore opens the store only to read where and how its watcher
// runs: a watcher must not hold the cache open for its whole life.
func (a *app) watchStore(cmd *cobra.Command) (*contextfs.Store, error) {
	s, err := a.open(cmd)
	if err != nil {
		return nil, err
	}
	s.Close()
	return s, nil
}

func (a *app) watchRunCmd() *cobra.Command {
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the change watcher in the foreground (what commands start in the background)",
		Example: `  git contextfs watch run
  git contextfs watch run --idle 8h`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("idle") && idle <= 0 {
				return &usageError{fmt.Errorf("--idle must be a positive duration such as 30m, not %s", idle)}
			}
			s, err := a.watchStore(cmd)
			if err != nil {
				return err
			}
			if s.WatchMode() == contextfs.WatchOff {
				fmt.Fprintln(a.io.ErrOut, "note: watch.mode is off, so commands will not ask this watcher")
			}
			// Every path from here on is absolute. A current folder in
			// the work tree would keep its directory entry alive, and the
			// kernel would not say the tree was deleted (a worktree's: its
			// git dir, socket and cache are elsewhere); the watcher's
			// checks see it soon anyway (watch.Serve).
			os.Chdir("/")
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return warm.RunWatcher(ctx, s, idle, version(), warmRunner{})
		},
	}
	cmd.Flags().DurationVar(&idle, "idle", 0, "exit after this long without a command (default: watch.idle, 30m)")
	return cmd
}

func (a *app) watchStartCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "start",
		Short:   "Start the change watcher in the background, whatever watch.mode says",
		Example: "  git contextfs watch start",
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.watchStore(cmd)
			if err != nil {
				return err
			}
			pid, already, err := warm.StartWatcher(cmd.Context(), s)
			switch {
			case err != nil:
				return err
			case already:
				fmt.Fprintf(a.io.Out, "a watcher is already running (pid %d)\n", pid)
			default:
				fmt.Fprintf(a.io.Out, "watcher started (pid %d)\n", pid)
			}
			return nil
		},
	}
}

func (a *app) watchStopCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "stop",
		Short:   "Stop the change watcher",
		Example: "  git contextfs watch stop",
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.watchStore(cmd)
			if err != nil {
				return err
			}
			stopped, err := warm.StopWatcher(cmd.Context(), s)
			switch {
			case err != nil:
				return err
			case stopped.NotRunning:
				fmt.Fprintln(a.io.Out, "no watcher is running")
			case stopped.Signalled > 0:
				fmt.Fprintf(a.io.Out, "watcher (pid %d) did not answer; stopped it with a signal\n", stopped.Signalled)
			default:
				fmt.Fprintln(a.io.Out, "watcher stopped")
			}
			return nil
		},
	}
}

func (a *app) watchStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "status",
		Short:   "Show whether a change watcher is running, and the watch mode",
		Example: "  git contextfs watch status\n  git contextfs watch status --json",
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.watchStore(cmd)
			if err != nil {
				return err
			}
			w := s.WatcherStatus(cmd.Context())
			if asJSON {
				return a.printJSON(w)
			}
			fmt.Fprintln(a.io.Out, describeWatcher(w))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// describeWatcher is a watcher's state in words.
func describeWatcher(w contextfs.WatcherStatus) string {
	s := "not running"
	switch {
	case w.NotAnswering:
		s = fmt.Sprintf("running (pid %d) but not answering (stopped or stuck: %s)", w.PID, warm.HungFix)
	case w.Running:
		s = fmt.Sprintf("running (pid %d, since %s)", w.PID, w.Started.Local().Format("2006-01-02 15:04"))
	}
	s += ", mode " + w.Mode
	if w.Degraded != "" {
		s += "; degraded: " + w.Degraded + " (every command checks every file)"
	}
	return s
}
