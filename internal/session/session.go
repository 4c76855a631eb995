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
	"unicode"
	"unicode/utf8"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// Outcomes a session may end with (the episodic schema's enum).
var Outcomes = []string{"success", "partial", "failure", "unknown"}

// MaxLog caps a session's raw message log; older messages give way.
const MaxLog = 1 << 20

// MaxLabel caps, in characters, a session's label and the names of its
// tool and model. The label becomes the title of the session's summary,
// which every listing prints on one line: a longer one is refused at
// start (and one recorded before, cut).
const MaxLabel = 200

// Session is an open session, as recorded in the git directory.
type Session struct {
	ID     string `json:"id"`
	Label  string `json:"label,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Model  string `json:"model,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Head is the commit checked out when the session started: the
	// summary End builds lists the commits and files changed since.
	Head    string    `json:"head,omitempty"`
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

// unsavedFile marks the open session id as one that has stamped no save
// yet (see Stamp): Start writes it, the first Stamp removes it. Without
// it, End cannot know that the session saved nothing in the user store
// but by opening that store and asking, on every agent session a hook
// ends. A session without the mark (one whose first save was stamped, or
// one started by an older version) may have saved anything.
func unsavedFile(repo *gitstore.Repo, id string) string {
	return filepath.Join(Dir(repo), id+".unsaved")
}

// Current returns the open session, or nil when there is none.
func Current(repo *gitstore.Repo) (*Session, error) {
	p := currentFile(repo)
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	var s Session
	err = json.Unmarshal(raw, &s)
	if err == nil && !memory.ValidID(s.ID) {
		err = fmt.Errorf("%q is not a session ID", s.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("session: the open session's record %s is damaged (%v); delete that file to start afresh", p, err)
	}
	// A session recorded by an older version, or edited by hand, may hold
	// what StartOptions.Check refuses. It is cleaned, not refused: a
	// session that cannot be ended cannot be replaced either, and would
	// block every session after it.
	s.Label, s.Tool, s.Model = clean(s.Label), clean(s.Tool), clean(s.Model)
	return &s, nil
}

// StartOptions describe a new session.
type StartOptions struct {
	Label, Tool, Model string
	// User, when set, opens the user's own store (package scope), or
	// returns nil when there is none: a session left open that Start
	// closes lists what it saved there too. It is called only then, and
	// as End calls it (see EndOptions.User).
	User func() *contextfs.Store
}

// Check refuses a label, tool or model that the session's summary could
// not carry: one with a control character, which a memory's title
// refuses (and which would reach the terminal of whoever lists the
// sessions), or one longer than MaxLabel characters. Line breaks and runs
// of spaces are fine: they become one space.
func (o StartOptions) Check() error {
	for _, f := range []struct{ name, value string }{{"label", o.Label}, {"tool", o.Tool}, {"model", o.Model}} {
		v := oneLine(f.value)
		if i := strings.IndexFunc(v, unicode.IsControl); i >= 0 {
			r, _ := utf8.DecodeRuneInString(v[i:])
			return fmt.Errorf("the session's %s must not contain control characters; found U+%04X", f.name, r)
		}
		if n := utf8.RuneCountInString(v); n > MaxLabel {
			return fmt.Errorf("the session's %s is %d characters long; at most %d are allowed", f.name, n, MaxLabel)
		}
	}
	return nil
}

// leftOpen is the summary of a session Start closes: the session's own
// words, if an End saved them before it was killed, win over it.
const leftOpen = "Left open; closed when the next session started."

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
	if err := o.Check(); err != nil {
		return nil, err
	}
	var res Started
	prev, err := Current(st.Repo)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		m, err := End(ctx, st, EndOptions{Outcome: "unknown", User: o.User, Summary: leftOpen}, now)
		if err != nil {
			return nil, fmt.Errorf("close the session left open (%s): %w", prev.ID, err)
		}
		res.Closed = m
	}
	s := &Session{ID: memory.NewID(), Label: oneLine(o.Label), Tool: oneLine(o.Tool), Model: oneLine(o.Model),
		Branch: branch(st.Repo), Head: headOf(ctx, st.Repo.Root), Started: now.UTC().Truncate(time.Second)}
	// The mark first: a save stamped once the record exists removes it.
	// One that cannot be written is no error (write says what is wrong):
	// without it, End asks the user store, as for an older session.
	if os.MkdirAll(Dir(st.Repo), 0o700) == nil {
		_ = os.WriteFile(unsavedFile(st.Repo, s.ID), nil, 0o600)
	}
	if err := write(st.Repo, s); err != nil {
		_ = os.Remove(unsavedFile(st.Repo, s.ID))
		return nil, err
	}
	res.Session = s
	return &res, nil
}

// Resume returns the open session, or nil when none is open. It is how a
// second party joins the session a first one started: the hook of an
// agent starts one as the agent starts, then the agent asks for one (MCP
// session with action start, or session start --resume); both are one session, with
// one summary. A label, tool or model the open session lacks is taken
// from o; what it has is kept.
func Resume(repo *gitstore.Repo, o StartOptions) (*Session, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	s, err := Current(repo)
	if err != nil || s == nil {
		return nil, err
	}
	changed := false
	fill := func(have *string, give string) {
		if *have == "" && oneLine(give) != "" {
			*have, changed = oneLine(give), true
		}
	}
	fill(&s.Label, o.Label)
	fill(&s.Tool, o.Tool)
	fill(&s.Model, o.Model)
	if changed {
		if err := write(repo, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// write records s as the open session.
func write(repo *gitstore.Repo, s *Session) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(Dir(repo), 0o700); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if err := gitstore.WriteFileAtomic(currentFile(repo), append(raw, '\n'), 0o600); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// EndOptions describe how a session ended.
type EndOptions struct {
	Summary string
	Outcome string // one of Outcomes; "" means success
	// User, when set, opens the user's own store (package scope), or
	// returns nil when there is none: the memories saved there in the
	// session are listed in saved too. End calls it at most once, and
	// only when it will save a summary, or (a hook's end without one)
	// when the session may have saved there: a hook ends every agent
	// session, and most leave nothing to list.
	User func() *contextfs.Store
	// Hook says a hook ends the session, one that may be installed for
	// every repository (setup claude --user). A session it ends without
	// a summary that saved nothing, in either store, is closed without
	// saving one, and End returns nil: a repository that never used
	// contextfs does not get a .contextfs folder because an agent ran in
	// it, and an agent session that left nothing does not become the
	// "Last session" of the next one's context block. A session that did
	// save, even only in the user store, gets its summary, in the
	// repository as always: it is the record of what the session saved.
	Hook bool
}

// End closes the open session and saves its summary: one episodic memory
// whose data records the session's ID, tool, model, branch, start and end,
// outcome and the IDs of the memories saved in it, in the repository's
// store and the user's.
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
	said := strings.TrimSpace(o.Summary) != ""
	var ids []string
	var prior *memory.Memory // a summary an End killed before closeRecord saved
	add := func(store *contextfs.Store) error {
		saved, err := store.List(ctx, contextfs.ListOptions{Session: s.ID, All: true})
		if err != nil {
			return err
		}
		for _, e := range saved {
			if store == st && e.Type == "episodic" && prior == nil {
				if m, err := store.Resolve(ctx, e.ID); err == nil && m.Data["session_id"] == s.ID {
					prior = m
					continue
				}
			}
			ids = append(ids, e.ID)
		}
		return nil
	}
	// A repository without a .contextfs folder holds no memory: its store
	// is not asked (its sync would find nothing).
	if _, err := os.Stat(filepath.Join(st.Repo.Root, gitstore.Dir)); err == nil {
		if err := add(st); err != nil {
			return nil, err
		}
	}
	// A hook's end without a summary saves one only for a session that
	// saved something: the user store is asked only when the repository's
	// says nothing and the session stamped a save.
	_, markErr := os.Stat(unsavedFile(st.Repo, s.ID))
	unsaved := markErr == nil
	if o.User != nil && (!o.Hook || said || len(ids) > 0 || !unsaved) {
		if user := o.User(); user != nil {
			if err := add(user); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if prior != nil {
		return endAgain(ctx, st, s, prior, o.Summary, outcome, said && o.Summary != leftOpen)
	}
	if o.Hook && !said && len(ids) == 0 {
		// Nothing saved and nothing said: "saved 0 memories" would only
		// push the last session that did something out of the context
		// block, once for every agent session the hooks end.
		if err := closeRecord(st.Repo, s.ID); err != nil {
			return nil, err
		}
		return nil, nil
	}
	title := "Session " + s.ID
	if s.Label != "" {
		title = "Session: " + s.Label
	} else if ps := prompts(st.Repo, s.ID); len(ps) > 0 {
		// What the person first asked says what the session was about.
		title = "Session: " + firstLine(ps[0], 80)
	}
	body := strings.TrimSpace(o.Summary)
	src := s.Source()
	if body == "" {
		// Nobody wrote one: contextfs builds it, and marks it captured,
		// for a person to read (and edit) before it is committed.
		body = digest(ctx, st, s, ids)
		src.Captured = true
	}
	savedIDs := make([]any, 0, len(ids))
	for _, id := range ids {
		savedIDs = append(savedIDs, id)
	}
	data := map[string]any{
		"session_id": s.ID, "branch": s.Branch, "outcome": outcome,
		"started": s.Started.Format(time.RFC3339), "ended": now.UTC().Truncate(time.Second).Format(time.RFC3339),
		"saved": savedIDs,
	}
	if s.Tool != "" {
		data["tool"] = s.Tool
	}
	if s.Model != "" {
		data["model"] = s.Model
	}
	res, err := st.Save(ctx, contextfs.SaveRequest{Type: "episodic", Title: title, Body: body, Data: data,
		Source: src, Session: s.ID})
	if err != nil {
		return nil, fmt.Errorf("save the session summary: %w", err)
	}
	if err := closeRecord(st.Repo, s.ID); err != nil {
		return res.Memory, err
	}
	return res.Memory, nil
}

// endAgain ends session s whose summary prior is already saved: an End
// was killed between saving it and closing the record. The session keeps
// that one summary. An end without a summary of its own (the next
// session's start, a hook) only closes the record: a second, "left open"
// summary would hide the real one. An end that says something else
// (the user ran session end again with other words or outcome) updates
// the summary in place.
func endAgain(ctx context.Context, st *contextfs.Store, s *Session, prior *memory.Memory, summary, outcome string, said bool) (*memory.Memory, error) {
	m := prior
	if said && (strings.TrimSpace(summary) != strings.TrimSpace(prior.Body) || prior.Data["outcome"] != outcome) {
		var err error
		m, err = st.Update(ctx, prior.ID, func(m *memory.Memory) error {
			m.Body = strings.TrimSpace(summary)
			if m.Data == nil {
				m.Data = map[string]any{}
			}
			m.Data["outcome"] = outcome
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("update the session summary %s: %w", prior.ID, err)
		}
	}
	if err := closeRecord(st.Repo, s.ID); err != nil {
		return m, err
	}
	return m, nil
}

// closeRecord removes the open session id's record and its marks.
func closeRecord(repo *gitstore.Repo, id string) error {
	for _, p := range []string{currentFile(repo), unsavedFile(repo, id), promptsFile(repo, id), capturingFile(repo, id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("session: %w", err)
		}
	}
	return nil
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

// List returns ended sessions, the latest ended first (see Latest), at
// most limit (0: all). With a limit it reads only as many summaries as
// LatestEpisodes does.
func List(ctx context.Context, st *contextfs.Store, limit int) ([]Summary, error) {
	if _, err := st.Sync(ctx); err != nil {
		return nil, err
	}
	eps, err := latest(ctx, st, limit, true, func(m *memory.Memory) bool { _, ok := summaryOf(m); return ok })
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, ep := range eps {
		sum, _ := summaryOf(ep.Memory)
		out = append(out, sum)
	}
	return out, nil
}

// Episode is an episodic memory as LatestEpisodes read it: its entry in
// the index, the content of its file and the memory in it.
type Episode struct {
	contextfs.Entry
	Raw    []byte
	Memory *memory.Memory
}

// LatestEpisodes returns the need current episodic memories of st that
// ended latest (see Latest), the latest first, from st's index as last
// synced (the caller syncs): the context block's "Last session", which
// also takes a summary written by hand. need <= 0 means all of them.
//
// The index orders by updated, which a tag added to an old summary moves,
// so the order is read from the files; but a session ends before its
// summary is written (End writes it), so the files are read newest-updated
// first only until the next one was updated before the need-th latest end
// found. That is usually need files, not every summary. (A summary written
// by hand with an end after its own time may be passed over.) The listing
// is read a page at a time, each twice the one before, so that a page
// that does not settle it costs a little more, not every summary.
func LatestEpisodes(ctx context.Context, st *contextfs.Store, need int) ([]Episode, error) {
	return latest(ctx, st, need, false, nil)
}

// latest is LatestEpisodes with superseded memories too when all, and only
// the memories keep keeps (nil: all).
func latest(ctx context.Context, st *contextfs.Store, need int, all bool, keep func(*memory.Memory) bool) ([]Episode, error) {
	byEnd := func(a, b Episode) int { return Latest(a.Memory, b.Memory) }
	var top []Episode // in Latest order; at most need of them when need > 0
	seen := map[string]bool{}
	page := 0 // all
	if need > 0 {
		page = 4 * need
	}
	for {
		entries, err := st.ListIndexed(ctx, contextfs.ListOptions{Types: []string{"episodic"}, All: all, Limit: page})
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			// A longer page starts with the shorter one (the index
			// orders by updated, then ID): those were read.
			if seen[e.Path] {
				continue
			}
			seen[e.Path] = true
			// The index keeps whole seconds; an end may be within the second.
			if need > 0 && len(top) == need && e.Updated.Add(time.Second).Before(Ended(top[need-1].Memory)) {
				return top, nil
			}
			raw, err := st.Repo.ReadFile(e.Path)
			if err != nil {
				continue // reported by validate; a list goes on
			}
			m, err := contextfs.DecodeMemory(e.Path, raw)
			if err != nil || keep != nil && !keep(m) {
				continue
			}
			ep := Episode{Entry: e, Raw: raw, Memory: m}
			if need <= 0 {
				top = append(top, ep)
				continue
			}
			if i, _ := slices.BinarySearchFunc(top, ep, byEnd); i < need {
				top = slices.Insert(top, i, ep)
				top = top[:min(len(top), need)]
			}
		}
		if page == 0 || len(entries) < page {
			break
		}
		page *= 2
	}
	if need <= 0 {
		slices.SortStableFunc(top, byEnd)
	}
	return top, nil
}

// Ended is when the session that an episodic memory summarises ended: its
// data.ended, else (a summary written by hand) when the memory was
// created.
func Ended(m *memory.Memory) time.Time {
	switch v := m.Data["ended"].(type) {
	case string:
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
	case time.Time: // written by hand, unquoted
		return v
	}
	return m.Created
}

// Latest orders episodic memories the latest ended first (see Ended), then
// the latest started, then by ID, so that the order is total. It is not
// the order of updated, which a tag or an edit moves: a summary touched
// today does not make an old session the last one.
func Latest(a, b *memory.Memory) int {
	if c := Ended(b).Compare(Ended(a)); c != 0 {
		return c
	}
	started := func(m *memory.Memory) string { s, _ := m.Data["started"].(string); return s }
	if c := strings.Compare(started(b), started(a)); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// Show returns the ended session id (or a unique prefix of it), which may
// also name the session's summary memory, as session end prints it.
func Show(ctx context.Context, st *contextfs.Store, id string) (*Summary, error) {
	all, err := List(ctx, st, 0)
	if err != nil {
		return nil, err
	}
	var found []Summary
	for _, s := range all {
		if s.ID == id || s.Memory == id {
			return &s, nil
		}
		if id != "" && (strings.HasPrefix(s.ID, strings.ToLower(id)) || strings.HasPrefix(s.Memory, strings.ToLower(id))) {
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
// The open session may have logged nothing yet; a session named that has
// no log is an error, so that a mistyped ID is not taken for an empty log.
func ReadLog(repo *gitstore.Repo, id string) ([]byte, error) {
	open := id == ""
	if open {
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
		if open {
			return nil, nil // nothing logged yet
		}
		return nil, fmt.Errorf("no log for session %q: it logged nothing, or is no session of this work tree (git contextfs session list shows them)", id)
	}
	return b, err
}

// Stamp fills in what a memory about to be saved records of the open
// session: its ID, and the session's tool and model where the request
// gives no source of its own, and that the session has saved, or tried to
// (see EndOptions.User). Without an open session it changes nothing.
func Stamp(repo *gitstore.Repo, req *contextfs.SaveRequest) error {
	s, err := Current(repo)
	if err != nil || s == nil {
		return err
	}
	// The session may now save, in either store: its end asks both.
	if err := os.Remove(unsavedFile(repo, s.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session: %w", err)
	}
	if req.Session == "" {
		req.Session = s.ID
	}
	src := s.Source()
	if req.Source != nil {
		src = &memory.Source{Tool: req.Source.Tool, Model: req.Source.Model, Session: s.ID}
		if src.Tool == "" {
			// A model alone (CONTEXTFS_SOURCE_MODEL) is the model behind
			// the session's tool: it is kept, with that tool.
			src.Tool = s.Tool
			if src.Model == "" {
				src.Model = s.Model
			}
		}
	}
	src.Captured = src.Captured || capturing(repo, s.ID)
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

// clean makes s what StartOptions.Check accepts: one line, without control
// characters, at most MaxLabel characters.
func clean(s string) string {
	s = oneLine(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s))
	if r := []rune(s); len(r) > MaxLabel {
		s = strings.TrimSpace(string(r[:MaxLabel]))
	}
	return s
}
