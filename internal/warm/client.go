package warm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/contextfs/contextfs/internal/watch"
)

// Timeout is how long a command waits for a warm answer before doing the
// work itself. The first call of a daemon opens the store (what a cold
// command does anyway); later ones take milliseconds. A daemon that does
// not answer at all (stopped, stuck) is given up on far sooner: see
// watch.CallDaemon and NotAnsweringError.
const Timeout = 10 * time.Second

// Ask sends req to the watcher listening on socket and returns its
// answer. A declined request is an error: the command runs cold.
func Ask(ctx context.Context, socket string, req Request) (Answer, error) {
	var ans Answer
	payload, err := json.Marshal(req)
	if err != nil {
		return ans, err
	}
	data, err := watch.CallDaemon(ctx, socket, CallName, payload, Timeout)
	if errors.Is(err, watch.ErrNotAnswering) {
		pid, _ := watch.Holder(socket)
		return ans, &NotAnsweringError{PID: pid, Err: err}
	}
	if err != nil {
		return ans, err
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return ans, fmt.Errorf("malformed answer: %w", err)
	}
	return ans, nil
}

// NotAnsweringError is Ask's error for a watcher that accepts requests
// but answers none, not even a status request (watch.ErrNotAnswering):
// stopped (SIGSTOP, a debugger) or stuck. PID is 0 when unknown.
type NotAnsweringError struct {
	PID int
	Err error
}

func (h *NotAnsweringError) Error() string { return h.what() + "; " + HungFix }

// Unwrap returns watch.ErrNotAnswering.
func (h *NotAnsweringError) Unwrap() error { return h.Err }

// Notice is the line a command prints before it runs without the watcher.
func (h *NotAnsweringError) Notice() string {
	return "git-contextfs: " + h.what() + ", so this command runs without it; " + HungFix
}

func (h *NotAnsweringError) what() string {
	who := "the change watcher"
	if h.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", h.PID)
	}
	return who + " is not answering (stopped or stuck)"
}

// HungFix is what to do about a watcher that does not answer, in words.
const HungFix = "`git contextfs watch stop` stops it"
