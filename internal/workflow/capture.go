package workflow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/capture"
	"github.com/contextfs/contextfs/internal/session"
)

// The capture workflows an agent client's hooks run (docs/AGENTS.md,
// "Capture"): the memories relevant to a prompt, and reminders to save
// what a session settled that no memory records.

// AgentEvent is what the capture workflows read of an agent client's hook
// input (Claude Code's fields; Codex sends the same).
type AgentEvent struct {
	// SessionID is the client's session; TranscriptPath its transcript.
	SessionID, TranscriptPath string
	// StopHookActive says a stop hook already continued this stop.
	StopHookActive bool
}

// UsesContextfs reports whether the repository around dir keeps
// memories: a client's hooks installed for every repository leave the
// others alone. Outside any repository it is gitstore.ErrNotRepo.
func UsesContextfs(dir string) (bool, error) {
	_, ok, err := usesContextfs(dir)
	return ok, err
}

// PromptContextRequest asks for the memories relevant to a prompt.
type PromptContextRequest struct {
	Prompt string
	// Session is the agent session's ID: the memories it was shown
	// already are not repeated; "" keeps no record.
	Session string
	// Budget is at most this many estimated tokens; 0 is the config's
	// context.prompt_budget.
	Budget int
}

// PromptContext notes the person's prompt in the open session (for its
// summary, and to end any capture) and returns the memories of the
// served store relevant to it, as text for the agent's context: "" when
// none is.
func (s *Service) PromptContext(ctx context.Context, req PromptContextRequest) (string, error) {
	if req.Budget < 0 {
		return "", &InputError{Field: "budget", Err: errNegative(req.Budget)}
	}
	st, err := s.served()
	if err != nil {
		return "", err
	}
	budget := req.Budget
	if budget == 0 {
		budget = st.Config.Context.PromptBudget
	}
	if err := session.NotePrompt(st.Repo, req.Prompt); err != nil {
		s.warnf("contextfs: %v", err)
	}
	state := &capture.State{}
	if req.Session != "" {
		state = capture.LoadState(st.Repo, req.Session)
	}
	got, err := capture.Recall(ctx, st, capture.RecallOptions{Prompt: req.Prompt, Budget: budget, Shown: state.Shown})
	if err != nil || got.Text == "" {
		return "", err
	}
	if req.Session != "" {
		for _, it := range got.Items {
			state.Shown = append(state.Shown, it.ID)
		}
		if err := state.Save(st.Repo, req.Session); err != nil {
			return "", err
		}
	}
	return got.Text, nil
}

// Reminder is what a capture workflow decided: Block, when set, is the
// instruction to save what the session settled (the stop is blocked once
// with it); Note says what was done, for the hook's log.
type Reminder struct {
	Block string
	Note  string
}

// StopReminder reads the session's transcript when the agent stops and,
// when it settled things no memory records, returns the reminder to save
// them. It never blocks a stop a stop hook already continued, blocks at
// most capture.MaxReminders times a session, and raises nothing twice.
// What the agent saves after a reminder is marked captured.
func StopReminder(dir string, ev AgentEvent) (Reminder, error) {
	if ev.StopHookActive {
		return Reminder{Note: "a stop hook already continued this stop"}, nil
	}
	repo, ok, err := usesContextfs(dir)
	if err != nil || !ok || ev.TranscriptPath == "" || ev.SessionID == "" {
		return Reminder{Note: "nothing to read"}, err
	}
	st := capture.LoadState(repo, ev.SessionID)
	if st.Reminders >= capture.MaxReminders {
		return Reminder{Note: "reminded enough"}, nil
	}
	t, err := capture.ReadTranscript(ev.TranscriptPath)
	if err != nil {
		return Reminder{}, err
	}
	found := capture.Unrecorded(t, st.Reminded-1, 0)
	found = append(st.Pending, found...)
	if len(found) == 0 {
		return Reminder{Note: fmt.Sprintf("nothing new in %d messages", len(t.Messages))}, nil
	}
	st.Reminded, st.Pending = len(t.Messages), nil
	st.Reminders++
	if err := st.Save(repo, ev.SessionID); err != nil {
		return Reminder{}, err
	}
	// What the agent saves now, a hook asked for: it is captured.
	if err := session.MarkCapturing(repo); err != nil {
		return Reminder{}, err
	}
	return Reminder{Block: capture.Reminder(found), Note: fmt.Sprintf("blocked once for %d finding(s)", len(found))}, nil
}

// NoteBeforeCompact notes the findings not yet raised before the client
// compacts the conversation: the next stop raises them, quoting them,
// though the agent's context no longer holds them.
func NoteBeforeCompact(dir string, ev AgentEvent) (Reminder, error) {
	repo, ok, err := usesContextfs(dir)
	if err != nil || !ok || ev.TranscriptPath == "" || ev.SessionID == "" {
		return Reminder{Note: "nothing to read"}, err
	}
	t, err := capture.ReadTranscript(ev.TranscriptPath)
	if err != nil {
		return Reminder{}, err
	}
	st := capture.LoadState(repo, ev.SessionID)
	found := capture.Unrecorded(t, st.Reminded-1, capture.MaxCited+1)
	if len(found) == 0 {
		return Reminder{Note: "nothing to note"}, nil
	}
	// Their message indexes are of this transcript; as pending they are
	// raised whatever comes after.
	st.Pending = append(st.Pending, found...)
	if n := len(st.Pending); n > capture.MaxCited+1 {
		st.Pending = st.Pending[n-capture.MaxCited-1:]
	}
	st.Reminded = len(t.Messages)
	if err := st.Save(repo, ev.SessionID); err != nil {
		return Reminder{}, err
	}
	return Reminder{Note: fmt.Sprintf("noted %d finding(s)", len(found))}, nil
}

// usesContextfs is UsesContextfs, with the repository found.
func usesContextfs(dir string) (*gitstore.Repo, bool, error) {
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return nil, false, err
	}
	_, err = os.Stat(filepath.Join(repo.Root, gitstore.Dir))
	return repo, err == nil, nil
}
