// Package session keeps an agent's working session: one open session per
// work tree, recorded in the git directory (never committed), that the
// memories saved meanwhile point to (`session: ID`), and that ends in one
// `episodic` memory summarising it, which teammates see in the pull
// request. Raw messages may be logged beside the open session, capped in
// size, and never leave the git directory.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// Outcomes a session may end with (the episodic schema's enum).
var Outcomes = []string{"success", "partial", "failure", "unknown"}

// MaxLog caps a session's raw message log; older messages give way.
const MaxLog = 1 << 20

// Session is an open session, as recorded in the git directory.
type Session struct {
	ID      string    `json:"id"`
	Label   string    `json:"label,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Model   string    `json:"model,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Started time.Time `json:"started"`
}

// Source is the provenance that memories saved in s carry.
func (s *Session) Source() *memory.Source {
	return &memory.Source{Tool: s.Tool, Model: s.Model, Session: s.ID}
}

// ErrNoSession is returned by operations that need an open session.
var ErrNoSession = errors.New("no session is open (start one with: git contextfs session start)")

// Dir is where a repository's session state lives: in this work tree's
// git directory, so each worktree has its own open session.
func Dir(repo *gitstore.Repo) string { return filepath.Join(repo.GitDir, "contextfs", "session") }

func currentFile(repo *gitstore.Repo) string { return filepath.Join(Dir(repo), "current.json") }

func logFile(repo *gitstore.Repo, id string) string { return filepath.Join(Dir(repo), id+".log") }

// Current returns the open session, or nil when there is none.
func Current(repo *gitstore.Repo) (*Session, error) {
	raw, err := os.ReadFile(currentFile(repo))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	var s Session
	if err := json.Unmarshal(raw, &s); err != nil || !memory.ValidID(s.ID) {
		return nil, fmt.Errorf("session: %s is damaged (delete it to start afresh): %v", currentFile(repo), err)
	}
	return &s, nil
}

// StartOptions describe a new session.
type StartOptions struct {
	Label, Tool, Model string
}

// Started is the result of Start: the new session, and the summary of the
// one left open before it, if any, which Start closed.
type Started struct {
	Session *Session
	Closed  *memory.Memory
}

// Start opens a new session. A session still open is ended first, with
// outcome "unknown", and reported in Started.Closed: a forgotten session
// is closed, never silently replaced.
func Start(ctx context.Context, st *contextfs.Store, o StartOptions, now time.Time) (*Started, error) {
	var res Started
	prev, err := Current(st.Repo)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		m, err := End(ctx, st, EndOptions{Outcome: "unknown",
			Summary: "Left open; closed when the next session started."}, now)
		if err != nil {
			return nil, fmt.Errorf("close the session left open (%s): %w", prev.ID, err)
		}
		res.Closed = m
	}
	s := &Session{ID: memory.NewID(), Label: oneLine(o.Label), Tool: oneLine(o.Tool), Model: oneLine(o.Model),
		Branch: branch(st.Repo), Started: now.UTC().Truncate(time.Second)}
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(Dir(st.Repo), 0o755); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := gitstore.WriteFileAtomic(currentFile(st.Repo), append(raw, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	res.Session = s
	return &res, nil
}

// EndOptions describe how a session ended.
type EndOptions struct {
	Summary string
	Outcome string // one of Outcomes; "" means success
}

// End closes the open session and saves its summary: one episodic memory
// whose data records the session's ID, tool, model, branch, start and end,
// outcome and the IDs of the memories saved in it.
func End(ctx context.Context, st *contextfs.Store, o EndOptions, now time.Time) (*memory.Memory, error) {
	s, err := Current(st.Repo)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, ErrNoSession
	}
	outcome := o.Outcome
	if outcome == "" {
		outcome = "success"
	}
	if !slices.Contains(Outcomes, outcome) {
		return nil, fmt.Errorf("outcome must be one of %s, not %q", strings.Join(Outcomes, ", "), outcome)
	}
	saved, err := st.List(ctx, contextfs.ListOptions{Session: s.ID, All: true})
	if err != nil {
		return nil, err
	}
	ids := make([]any, 0, len(saved))
	for _, e := range saved {
		ids = append(ids, e.ID)
	}
	slices.SortFunc(ids, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	title := "Session " + s.ID
	if s.Label != "" {
		title = "Session: " + s.Label
	}
	body := strings.TrimSpace(o.Summary)
	if body == "" {
		body = fmt.Sprintf("Session %s saved %d memories.", s.ID, len(ids))
	}
	data := map[string]any{
		"session_id": s.ID, "branch": s.Branch, "outcome": outcome,
		"started": s.Started.Format(time.RFC3339), "ended": now.UTC().Truncate(time.Second).Format(time.RFC3339),
		"saved": ids,
	}
	if s.Tool != "" {
		data["tool"] = s.Tool
	}
	if s.Model != "" {
		data["model"] = s.Model
	}
	res, err := st.Save(ctx, contextfs.SaveRequest{Type: "episodic", Title: title, Body: body, Data: data,
		Source: s.Source(), Session: s.ID})
	if err != nil {
		return nil, fmt.Errorf("save the session summary: %w", err)
	}
	if err := os.Remove(currentFile(st.Repo)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res.Memory, fmt.Errorf("session: %w", err)
	}
	return res.Memory, nil
}

// Summary is an ended session as its episodic memory records it.
type Summary struct {
	ID      string   `json:"session_id"`
	Memory  string   `json:"memory"`
	Title   string   `json:"title"`
	Tool    string   `json:"tool,omitempty"`
	Model   string   `json:"model,omitempty"`
	Branch  string   `json:"branch,omitempty"`
	Started string   `json:"started,omitempty"`
	Ended   string   `json:"ended,omitempty"`
	Outcome string   `json:"outcome,omitempty"`
	Saved   []string `json:"saved"`
	Body    string   `json:"body,omitempty"`
}

// List returns ended sessions, newest first, at most limit (0: all).
func List(ctx context.Context, st *contextfs.Store, limit int) ([]Summary, error) {
	es, err := st.List(ctx, contextfs.ListOptions{Types: []string{"episodic"}, All: true})
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, e := range es {
		if limit > 0 && len(out) == limit {
			break
		}
		m, err := st.Read(e.Path)
		if err != nil {
			continue // reported by validate; a list goes on
		}
		if sum, ok := summaryOf(m); ok {
			out = append(out, sum)
		}
	}
	return out, nil
}

// Show returns the ended session id (or a unique prefix of it).
func Show(ctx context.Context, st *contextfs.Store, id string) (*Summary, error) {
	all, err := List(ctx, st, 0)
	if err != nil {
		return nil, err
	}
	var found []Summary
	for _, s := range all {
		if s.ID == id {
			return &s, nil
		}
		if id != "" && strings.HasPrefix(s.ID, strings.ToLower(id)) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no ended session %q (git contextfs session list shows them)", id)
	case 1:
		return &found[0], nil
	}
	return nil, fmt.Errorf("%q is ambiguous: it matches %d sessions", id, len(found))
}

func summaryOf(m *memory.Memory) (Summary, bool) {
	str := func(k string) string { s, _ := m.Data[k].(string); return s }
	id := str("session_id")
	if id == "" {
		return Summary{}, false
	}
	s := Summary{ID: id, Memory: m.ID, Title: m.Title, Tool: str("tool"), Model: str("model"), Branch: str("branch"),
		Started: str("started"), Ended: str("ended"), Outcome: str("outcome"), Saved: []string{}, Body: strings.TrimSpace(m.Body)}
	if xs, ok := m.Data["saved"].([]any); ok {
		for _, x := range xs {
			if v, ok := x.(string); ok {
				s.Saved = append(s.Saved, v)
			}
		}
	}
	return s, true
}

// Log appends a raw message to the open session's log in the git
// directory. When the log would pass MaxLog, the oldest bytes give way (at
// a line boundary).
func Log(repo *gitstore.Repo, msg string) error {
	s, err := Current(repo)
	if err != nil {
		return err
	}
	if s == nil {
		return ErrNoSession
	}
	p := logFile(repo, s.ID)
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session log: %w", err)
	}
	entry := strings.TrimRight(msg, "\n") + "\n"
	buf := append(old, entry...)
	if len(buf) > MaxLog {
		buf = buf[len(buf)-MaxLog:]
		if i := strings.IndexByte(string(buf), '\n'); i >= 0 && i+1 < len(buf) {
			buf = buf[i+1:]
		}
	}
	if err := gitstore.WriteFileAtomic(p, buf, 0o600); err != nil {
		return fmt.Errorf("session log: %w", err)
	}
	return nil
}

// ReadLog returns the raw message log of session id ("" for the open one).
func ReadLog(repo *gitstore.Repo, id string) ([]byte, error) {
	if id == "" {
		s, err := Current(repo)
		if err != nil {
			return nil, err
		}
		if s == nil {
			return nil, ErrNoSession
		}
		id = s.ID
	}
	if !memory.ValidID(id) {
		return nil, fmt.Errorf("%q is not a session ID", id)
	}
	b, err := os.ReadFile(logFile(repo, id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Stamp fills in what a memory about to be saved records of the open
// session: its ID, and the session's tool and model where the request
// gives no source of its own. Without an open session it changes nothing.
func Stamp(repo *gitstore.Repo, req *contextfs.SaveRequest) error {
	s, err := Current(repo)
	if err != nil || s == nil {
		return err
	}
	if req.Session == "" {
		req.Session = s.ID
	}
	src := s.Source()
	if req.Source != nil {
		src = &memory.Source{Tool: req.Source.Tool, Model: req.Source.Model, Session: s.ID}
		if src.Tool == "" {
			src.Tool, src.Model = s.Tool, s.Model
		}
	}
	req.Source = src
	return nil
}

// branch names the branch checked out in repo, read from HEAD ("" when
// detached).
func branch(repo *gitstore.Repo) string {
	b, err := os.ReadFile(filepath.Join(repo.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return ref
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
