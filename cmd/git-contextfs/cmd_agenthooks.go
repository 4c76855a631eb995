package main

// The agent hooks: `git contextfs hook user-prompt-submit | stop |
// pre-compact`, which an agent client (Claude Code, Codex) runs with the
// event's JSON on standard input (setup claude installs them). They
// answer on standard output in the client's format and, like the git
// hooks, never fail the client: anything that goes wrong is a warning on
// standard error and exit 0. docs/AGENTS.md, "Capture", describes them.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/workflow"
)

// maxHookInput bounds the event read from standard input: a prompt with
// a pasted log is large, but not this large.
const maxHookInput = 4 << 20

// maxRecallPrompt is how much of a prompt is searched for: its start says
// what it is about.
const maxRecallPrompt = 2000

// agentEvent is the part of an agent client's hook input the handlers
// read (Claude Code's field names; Codex uses the same).
type agentEvent struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Event          string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
	StopHookActive bool   `json:"stop_hook_active"`
}

// readAgentEvent reads the hook input from standard input. A terminal is
// not read (there is no event), and empty input is an empty event.
func (a *app) readAgentEvent() (*agentEvent, error) {
	var ev agentEvent
	if a.io.In == nil || a.io.StdinIsTerminal() {
		return &ev, nil
	}
	raw, err := io.ReadAll(io.LimitReader(a.io.In, maxHookInput+1))
	if err != nil {
		return nil, fmt.Errorf("read the hook input: %w", err)
	}
	if len(raw) > maxHookInput {
		return nil, fmt.Errorf("the hook input is over %d MiB; ignored", maxHookInput>>20)
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return &ev, nil
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("the hook input is not the JSON object a client sends: %w", err)
	}
	return &ev, nil
}

// userPromptSubmit recalls the memories relevant to the prompt, as the
// additionalContext of Claude Code's UserPromptSubmit output; nothing when
// none is relevant. The search runs in the repository's watcher when one
// runs (prompt-context is answered warm), as any search does.
func (a *app) userPromptSubmit(ctx context.Context, _ []string) (hookOutcome, error) {
	ev, err := a.readAgentEvent()
	if err != nil {
		return hookOutcome{}, err
	}
	// A client's hooks installed for every repository (setup claude
	// --user) leave those without memories alone.
	ok, err := workflow.UsesContextfs(a.workDir())
	if err != nil || !ok {
		return hookOutcome{note: "no memories here"}, err
	}
	prompt := ev.Prompt
	if r := []rune(prompt); len(r) > maxRecallPrompt {
		prompt = string(r[:maxRecallPrompt])
	}
	args := []string{"prompt-context", "--session", ev.SessionID}
	if a.dir != "" {
		args = append([]string{"-C", a.dir}, args...)
	}
	ios, _, stdout, stderr := iostreams.Test()
	sub := &app{io: ios, startWatcher: a.startWatcher, askWarm: a.askWarm}
	code := sub.run(ctx, append(args, "--", prompt))
	if code != 0 {
		return hookOutcome{}, fmt.Errorf("recall failed: %s", strings.TrimSpace(stderr.String()))
	}
	return hookOutcome{stdout: stdout.String(), report: nonEmptyLines(stderr.String()), note: fmt.Sprintf("%d bytes of context", stdout.Len())}, nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// promptContextCmd is the hidden `prompt-context`, the recall of the
// UserPromptSubmit hook as a command of its own, so that the watcher can
// answer it warm (warmable).
func (a *app) promptContextCmd() *cobra.Command {
	var (
		sid    string
		budget int
	)
	cmd := &cobra.Command{
		Use:    "prompt-context [--session ID] [--budget TOKENS] -- PROMPT",
		Short:  "Print the memories relevant to a prompt as Claude Code hook output (called by hook user-prompt-submit)",
		Hidden: true,
		Args:   argsRange(1, 1),
		RunE: a.withService(func(cmd *cobra.Command, args []string, svc *workflow.Service) error {
			if budget < 0 {
				return &usageError{fmt.Errorf("--budget must not be negative, got %d", budget)}
			}
			text, err := svc.PromptContext(cmd.Context(), workflow.PromptContextRequest{Prompt: args[0], Session: sid, Budget: budget})
			if err != nil {
				return err
			}
			if text == "" {
				return nil // nothing relevant: no output at all
			}
			return a.printJSON(map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName": "UserPromptSubmit", "additionalContext": text}})
		}),
	}
	cmd.Flags().StringVar(&sid, "session", "", "the agent session's `ID`: memories it was shown are not repeated")
	cmd.Flags().IntVar(&budget, "budget", 0, "at most `TOKENS` (estimated; default context.prompt_budget, else 300)")
	return cmd
}

// stopHook reads the session's transcript and, when it settled things no
// memory records, blocks the stop once with an instruction to save them
// (workflow.StopReminder).
func (a *app) stopHook(ctx context.Context, _ []string) (hookOutcome, error) {
	ev, err := a.readAgentEvent()
	if err != nil {
		return hookOutcome{}, err
	}
	r, err := workflow.StopReminder(a.workDir(), ev.workflow())
	if err != nil || r.Block == "" {
		return hookOutcome{note: r.Note}, err
	}
	raw, err := json.Marshal(map[string]string{"decision": "block", "reason": r.Block})
	if err != nil {
		return hookOutcome{}, err
	}
	return hookOutcome{stdout: string(raw) + "\n", note: r.Note}, nil
}

// preCompact notes the findings not yet raised before the client
// compacts the conversation (workflow.NoteBeforeCompact).
func (a *app) preCompact(ctx context.Context, _ []string) (hookOutcome, error) {
	ev, err := a.readAgentEvent()
	if err != nil {
		return hookOutcome{}, err
	}
	r, err := workflow.NoteBeforeCompact(a.workDir(), ev.workflow())
	if err != nil {
		return hookOutcome{}, err
	}
	return hookOutcome{note: r.Note}, nil
}

// workflow is the event as the capture workflows read it.
func (ev *agentEvent) workflow() workflow.AgentEvent {
	return workflow.AgentEvent{SessionID: ev.SessionID, TranscriptPath: ev.TranscriptPath, StopHookActive: ev.StopHookActive}
}
