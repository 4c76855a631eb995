package workflow

import (
	"context"
	"errors"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// Session is the open session of a work tree.
type Session = session.Session

// SessionSummary is an ended session, read from its summary memory.
type SessionSummary = session.Summary

// ErrNoSession is SessionEnd's answer when no session is open.
var ErrNoSession = session.ErrNoSession

// The limits of a session: its label, tool and model (in characters) and
// its raw log (in bytes).
const (
	MaxSessionLabel = session.MaxLabel
	MaxSessionLog   = session.MaxLog
)

// SessionOutcomes are the outcomes a session ends with.
var SessionOutcomes = session.Outcomes

// SessionStartRequest opens a session.
type SessionStartRequest struct {
	Label, Tool, Model string
	// Resume joins the open session instead (given the label, tool and
	// model it lacks), when there is one.
	Resume bool
}

// Check refuses a label, tool or model a session's summary could not
// carry (a control character, more than MaxSessionLabel characters).
func (r SessionStartRequest) Check() error {
	return session.StartOptions{Label: r.Label, Tool: r.Tool, Model: r.Model}.Check()
}

// SessionStarted is what SessionStart did.
type SessionStarted struct {
	Session *Session
	// Resumed says the session was open already and is kept.
	Resumed bool
	// Closed is the summary of a session left open, which starting a new
	// one closed.
	Closed *memory.Memory
}

// SessionStart opens a session in the served store's work tree (or joins
// the open one, with Resume). A session left open is closed first, its
// summary saved.
func (s *Service) SessionStart(ctx context.Context, req SessionStartRequest) (*SessionStarted, error) {
	st, err := s.served()
	if err != nil {
		return nil, err
	}
	o := session.StartOptions{Label: req.Label, Tool: req.Tool, Model: req.Model}
	if req.Resume {
		cur, err := session.Resume(st.Repo, o)
		if err != nil {
			return nil, err
		}
		if cur != nil {
			return &SessionStarted{Session: cur, Resumed: true}, nil
		}
	}
	o.User = s.sessionUser(ctx)
	res, err := session.Start(ctx, st, o, time.Now())
	if err != nil {
		return nil, err
	}
	return &SessionStarted{Session: res.Session, Closed: res.Closed}, nil
}

// SessionEndRequest ends the open session.
type SessionEndRequest struct {
	Summary string
	// Outcome is one of SessionOutcomes; "" is success.
	Outcome string
	// IfOpen is a hook's end: with no session open it does nothing, and a
	// session that saved nothing, in either store, and has no summary is
	// closed without saving one. Either way the memory returned is nil.
	IfOpen bool
}

// SessionEnd closes the open session and saves its summary, an episodic
// memory listing the memories saved in it, in either store.
func (s *Service) SessionEnd(ctx context.Context, req SessionEndRequest) (*memory.Memory, error) {
	st, err := s.served()
	if err != nil {
		return nil, err
	}
	m, err := session.End(ctx, st, session.EndOptions{Summary: req.Summary, Outcome: req.Outcome, User: s.sessionUser(ctx), Hook: req.IfOpen}, time.Now())
	if req.IfOpen && errors.Is(err, session.ErrNoSession) {
		return nil, nil
	}
	return m, err
}

// Sessions are the open session (nil when none) and the ended ones,
// newest first, at most limit of them (0: all); never a nil list.
func (s *Service) Sessions(ctx context.Context, limit int) (open *Session, ended []SessionSummary, err error) {
	st, err := s.served()
	if err != nil {
		return nil, nil, err
	}
	if open, err = session.Current(st.Repo); err != nil {
		return nil, nil, err
	}
	if ended, err = session.List(ctx, st, limit); err != nil {
		return nil, nil, err
	}
	if ended == nil {
		ended = []SessionSummary{}
	}
	return open, ended, nil
}

// SessionShow is the ended session id (its ID or its summary's).
func (s *Service) SessionShow(ctx context.Context, id string) (*SessionSummary, error) {
	st, err := s.served()
	if err != nil {
		return nil, err
	}
	return session.Show(ctx, st, id)
}

// SessionLog appends msg to the open session's log, which stays in the
// git directory.
func (s *Service) SessionLog(msg string) error {
	st, err := s.served()
	if err != nil {
		return err
	}
	return session.Log(st.Repo, msg)
}

// SessionReadLog is the log of session id, or of the open one when id is
// "".
func (s *Service) SessionReadLog(id string) ([]byte, error) {
	st, err := s.served()
	if err != nil {
		return nil, err
	}
	return session.ReadLog(st.Repo, id)
}

// served is Home, or the reason there is none.
func (s *Service) served() (*contextfs.Store, error) {
	if st := s.Home(); st != nil {
		return st, nil
	}
	return nil, errNoHome
}

// errNoHome is a workflow of the served store run with none.
var errNoHome = errors.New("not in a git repository")

// sessionUser is how a session reaches the person's own store, where its
// saves of type user go: called, it opens the store when one has been
// written (nil otherwise: nothing is created), so that the hooks, which
// start and end every agent session, open it only for a session that
// saved. One that cannot be opened is warned about, and the session goes
// on without it.
func (s *Service) sessionUser(ctx context.Context) func() *contextfs.Store {
	return func() *contextfs.Store {
		u, err := s.set.ExistingUser(ctx)
		if err != nil {
			s.warnf("contextfs: the session's saves in the user store are left out: %v", err)
			return nil
		}
		return u
	}
}
