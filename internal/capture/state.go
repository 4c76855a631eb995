package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/session"
)

// State is what the hooks remember of one agent session (the client's
// session ID, not contextfs's): the memories already shown to it, and how
// far into its transcript a reminder has already gone. It lives beside
// the open session's record in the git directory, never committed.
type State struct {
	// Shown are the IDs of the memories Recall has given the session.
	Shown []string `json:"shown,omitempty"`
	// Reminded is the number of transcript messages when the last
	// reminder was given: findings before it are not raised again.
	Reminded int `json:"reminded,omitempty"`
	// Reminders counts the reminders given, at most MaxReminders.
	Reminders int `json:"reminders,omitempty"`
	// Pending are findings a PreCompact hook noted before the client
	// compacted the conversation, for the next Stop to raise.
	Pending []Finding `json:"pending,omitempty"`
}

// MaxReminders bounds the reminders of one agent session: a session that
// settles many things gets a few reminders, never one at every stop.
const MaxReminders = 3

// maxShown bounds State.Shown; the oldest give way.
const maxShown = 500

// stateMaxAge is how long an agent session's state is kept unused.
const stateMaxAge = 7 * 24 * time.Hour

// statePath is where agent session sid's state lives. The client's ID is
// hashed: it is the client's to choose, and must not name a path.
func statePath(repo *gitstore.Repo, sid string) string {
	sum := sha256.Sum256([]byte(sid))
	return filepath.Join(session.Dir(repo), "agent-"+hex.EncodeToString(sum[:8])+".json")
}

// LoadState reads agent session sid's state; a missing or damaged one is
// empty (it only avoids repeats).
func LoadState(repo *gitstore.Repo, sid string) *State {
	var st State
	raw, err := os.ReadFile(statePath(repo, sid))
	if err == nil {
		_ = json.Unmarshal(raw, &st)
	}
	return &st
}

// Save writes the state of agent session sid, and removes the states of
// sessions unused for a week.
func (st *State) Save(repo *gitstore.Repo, sid string) error {
	if len(st.Shown) > maxShown {
		st.Shown = st.Shown[len(st.Shown)-maxShown:]
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	dir := session.Dir(repo)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("capture state: %w", err)
	}
	if err := gitstore.WriteFileAtomic(statePath(repo, sid), raw, 0o600); err != nil {
		return fmt.Errorf("capture state: %w", err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "agent-*.json"))
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > stateMaxAge {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("capture state: %w", err)
			}
		}
	}
	return nil
}
