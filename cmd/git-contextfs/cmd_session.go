package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

func (a *app) sessionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Start, end and list working sessions",
		Long: `A session groups what an agent (or a person) does in one sitting. The open
session is recorded in this work tree's git directory, never committed;
memories saved while it is open carry "session: ID" and its tool in
"source:". "session end" saves one episodic memory that summarises the
session and lists the IDs saved in it: that memory is what teammates see
in the pull request.`,
		Example: `  git contextfs session start --label "refresh tokens" --tool claude-code
  git contextfs session end --summary "Added refresh tokens; tests pass."
  git contextfs session list`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return &usageError{fmt.Errorf("session needs a subcommand: start, end, list, show or log\nSee '%s -h'.", cmd.CommandPath())}
		},
	}
	cmd.AddCommand(a.sessionStartCmd(), a.sessionEndCmd(), a.sessionListCmd(), a.sessionShowCmd(), a.sessionLogCmd())
	return cmd
}

func (a *app) sessionStartCmd() *cobra.Command {
	var (
		o              workflow.SessionStartRequest
		asJSON, resume bool
	)
	cmd := &cobra.Command{
		Use:   "start [--label TEXT] [--tool NAME] [--model NAME]",
		Short: "Open a session and print its ID",
		Long: fmt.Sprintf(`Opens a session for this work tree and prints its ID. A session still open
is ended first (outcome unknown), and a notice says so; with --resume it is
kept instead, and given the label, tool and model it lacks. The label, tool
and model must be at most %d characters, without control characters.`, workflow.MaxSessionLabel),
		Example: `  git contextfs session start
  git contextfs session start --label "fix rounding" --tool claude-code --model opus`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Check(); err != nil {
				return &usageError{err}
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				o.Resume = resume
				res, err := svc.SessionStart(cmd.Context(), o)
				if err != nil {
					return err
				}
				if res.Resumed {
					if asJSON {
						return a.printJSON(map[string]any{"session": res.Session, "resumed": true})
					}
					fmt.Fprintln(a.io.Out, res.Session.ID)
					return nil
				}
				if res.Closed != nil {
					fmt.Fprintf(a.io.ErrOut, "notice: session %v was still open; it is closed now (summary %s)\n", res.Closed.Data["session_id"], res.Closed.ID)
				}
				if asJSON {
					out := map[string]any{"session": res.Session}
					if res.Closed != nil {
						out["closed"] = res.Closed
					}
					return a.printJSON(out)
				}
				fmt.Fprintln(a.io.Out, res.Session.ID)
				return nil
			})(cmd, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Label, "label", "", "what the session is about")
	f.StringVar(&o.Tool, "tool", "", "the assistant, such as claude-code, cursor or codex")
	f.StringVar(&o.Model, "model", "", "the model behind the assistant")
	f.BoolVar(&asJSON, "json", false, "print the session (and the one closed) as JSON")
	f.BoolVar(&resume, "resume", false, "keep the open session if there is one (for hooks that also run on resume)")
	return cmd
}

func (a *app) sessionEndCmd() *cobra.Command {
	var (
		summary, outcome string
		quiet, asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "end [--summary TEXT|-] [--outcome success|partial|failure|unknown]",
		Short: "End the open session and save its summary as an episodic memory",
		Long: `Ends the open session and saves one episodic memory whose data records the
session ID, tool, model, branch, start, end, outcome and the IDs of the
memories saved in it, in this repository and in your user store.
--summary - reads the summary from standard input.

--if-open is for hooks: with no session open it does nothing, successfully
(--json prints null). It closes a session that saved nothing (in either
store) and has no summary without saving one, so that hooks installed for
every repository (setup claude --user) leave those that never used
contextfs alone. A session that saved, even only in the user store, gets
its summary.`,
		Example: `  git contextfs session end --summary "Refresh tokens work; docs pending." --outcome partial
  echo "Fixed the flaky test" | git contextfs session end --summary -`,
		Args: argsRange(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outcome != "" && !slices.Contains(workflow.SessionOutcomes, outcome) {
				return &usageError{fmt.Errorf("--outcome must be one of %s, not %q", strings.Join(workflow.SessionOutcomes, ", "), outcome)}
			}
			if summary == "-" {
				b, err := a.readContent([]string{"-"})
				if err != nil {
					return err
				}
				summary = b
			}
			return a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
				m, err := svc.SessionEnd(cmd.Context(), workflow.SessionEndRequest{Summary: summary, Outcome: outcome, IfOpen: quiet})
				if err != nil {
					return err
				}
				if m == nil { // --if-open, and nothing to end or to save
					if asJSON {
						return a.printJSON(nil)
					}
					return nil
				}
				if asJSON {
					return a.printJSON(m)
				}
				fmt.Fprintf(a.io.Out, "%s %s\n", m.ID, m.Path)
				return nil
			})(cmd, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&summary, "summary", "", "what the session did (\"-\" reads standard input)")
	f.StringVar(&outcome, "outcome", "", "success (default), partial, failure or unknown")
	f.BoolVar(&quiet, "if-open", false, "do nothing, successfully, when no session is open (for hooks)")
	f.BoolVar(&asJSON, "json", false, "print the summary memory as JSON")
	return cmd
}

func (a *app) sessionListCmd() *cobra.Command {
	var (
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List ended sessions, newest first, and the open one",
		Example: "  git contextfs session list\n  git contextfs session list --json --limit 5",
		Args:    argsRange(0, 0),
		RunE: a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
			if limit < 0 {
				return &usageError{fmt.Errorf("--limit must not be negative, got %d", limit)}
			}
			cur, list, err := svc.Sessions(cmd.Context(), limit)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"open": cur, "ended": list})
			}
			if cur != nil {
				fmt.Fprintf(a.io.Out, "%s  open since %s  %s %s\n", cur.ID, cur.Started.Format(time.RFC3339), cur.Tool, cur.Label)
			}
			for _, x := range list {
				fmt.Fprintf(a.io.Out, "%s  %s  %-8s %d saved  %s\n", x.ID, x.Ended, x.Outcome, len(x.Saved), x.Title)
			}
			return nil
		}),
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "at most N sessions (default: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON: {open, ended}")
	return cmd
}

func (a *app) sessionShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Show an ended session (by its ID or its summary's) and the memories saved in it",
		Example: "  git contextfs session show 7hq2",
		Args:    argsRange(1, 1),
		RunE: a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
			x, err := svc.SessionShow(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(x)
			}
			fmt.Fprintf(a.io.Out, "session %s  (memory %s)\n%s\n", x.ID, x.Memory, x.Title)
			fmt.Fprintf(a.io.Out, "tool %s  model %s  branch %s\n%s → %s  %s\n", x.Tool, x.Model, x.Branch, x.Started, x.Ended, x.Outcome)
			for _, id := range x.Saved {
				fmt.Fprintln(a.io.Out, "saved "+id)
			}
			if x.Body != "" {
				fmt.Fprintln(a.io.Out, "\n"+x.Body)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) sessionLogCmd() *cobra.Command {
	var show string
	var print bool
	cmd := &cobra.Command{
		Use:   "log [MESSAGE|-]",
		Short: "Append a raw message to the open session's log (kept in the git directory)",
		Long: fmt.Sprintf(`Appends a message to the open session's log, which stays in the git
directory, is never committed, and keeps its newest %d KiB. --print prints
the open session's log; --show ID prints an ended session's.`, workflow.MaxSessionLog>>10),
		Example: `  git contextfs session log "user: please add refresh tokens"
  git contextfs session log --print`,
		Args: argsRange(0, -1),
		RunE: a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
			if print || show != "" {
				b, err := svc.SessionReadLog(show)
				if err != nil {
					return err
				}
				_, err = a.io.Out.Write(b)
				return err
			}
			msg, err := a.readContent(args)
			if err != nil {
				return err
			}
			if strings.TrimSpace(msg) == "" {
				return &usageError{errors.New("session log needs a MESSAGE (or - for standard input)")}
			}
			return svc.SessionLog(msg)
		}),
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the open session's log")
	cmd.Flags().StringVar(&show, "show", "", "print the log of session `ID`")
	return cmd
}
