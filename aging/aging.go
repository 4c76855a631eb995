// Package aging keeps a memory store from piling up: the latest progress
// replaces the previous one, session summaries beyond a cap are proposed
// for condensing, and memories past their expires: date are removed. Every
// change is an ordinary change of files, to review and commit.
package aging

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/links"
	"github.com/contextfs/contextfs/memory"
)

// DefaultSessionCap is how many session summaries (episodic memories) stay
// before older ones are proposed for condensing into a learned-pattern.
const DefaultSessionCap = 3

// Rules are the aging rules, from the hygiene section of the config.
type Rules struct {
	SupersedeProgress bool
	SessionCap        int
}

// RulesOf reads the rules from a store's config, with their defaults.
func RulesOf(c contextfs.HygieneConfig) Rules {
	r := Rules{SupersedeProgress: c.SupersedeProgress == nil || *c.SupersedeProgress, SessionCap: c.SessionCap}
	if r.SessionCap <= 0 {
		r.SessionCap = DefaultSessionCap
	}
	return r
}

// SupersedeProgress makes a new progress memory supersede the current
// ones, so that there is one current progress. It returns the IDs added
// to req.Supersedes; other types are left alone.
func SupersedeProgress(ctx context.Context, s *contextfs.Store, req *contextfs.SaveRequest, r Rules) ([]string, error) {
	typ, err := memory.CanonicalType(req.Type)
	if err != nil || typ != "progress" || !r.SupersedeProgress {
		return nil, nil
	}
	es, err := s.List(ctx, contextfs.ListOptions{Types: []string{"progress"}})
	if err != nil {
		return nil, fmt.Errorf("aging: list progress: %w", err)
	}
	var added []string
	for _, e := range es {
		if !slices.Contains(req.Supersedes, e.ID) {
			req.Supersedes = append(req.Supersedes, e.ID)
			added = append(added, e.ID)
		}
	}
	return added, nil
}

// Step is one change prune makes or proposes.
type Step struct {
	// Kind is supersede-progress, expired or condense-sessions.
	Kind string `json:"kind"`
	// ID is the memory changed or removed; for condense-sessions, empty.
	ID   string `json:"id,omitempty"`
	Path string `json:"path,omitempty"`
	// IDs are the memories involved: the progress superseded, or the
	// session summaries to condense.
	IDs     []string `json:"ids,omitempty"`
	Message string   `json:"message"`
	// Proposal is set for steps prune never applies itself (condensing
	// needs someone to write the learned-pattern).
	Proposal bool `json:"proposal,omitempty"`
}

// Plan works out what prune would do at time now, changing nothing.
func Plan(ctx context.Context, s *contextfs.Store, r Rules, now time.Time) ([]Step, error) {
	g, err := links.Load(ctx, s)
	if err != nil {
		return nil, err
	}
	var progress, sessions []*memory.Memory
	var steps []Step
	for _, id := range g.IDs() {
		m := g.Memory(id)
		if len(g.SupersededBy(id)) > 0 || m.Superseded() {
			continue
		}
		if exp, ok, err := expires(s, m); err != nil {
			return nil, err
		} else if ok && !now.Before(exp) {
			steps = append(steps, Step{Kind: "expired", ID: m.ID, Path: m.Path,
				Message: fmt.Sprintf("remove %s (%s): it expired on %s", m.ID, m.Title, exp.Format(time.DateOnly))})
			continue
		}
		switch m.Type {
		case "progress":
			progress = append(progress, m)
		case "episodic":
			sessions = append(sessions, m)
		}
	}
	newestFirst := func(a, b *memory.Memory) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	}
	slices.SortFunc(progress, newestFirst)
	slices.SortFunc(sessions, newestFirst)
	if r.SupersedeProgress && len(progress) > 1 {
		var old []string
		for _, m := range progress[1:] {
			old = append(old, m.ID)
		}
		steps = append(steps, Step{Kind: "supersede-progress", ID: progress[0].ID, Path: progress[0].Path, IDs: old,
			Message: fmt.Sprintf("%s, the latest progress, supersedes %s", progress[0].ID, strings.Join(old, ", "))})
	}
	if len(sessions) > r.SessionCap {
		var old []string
		for _, m := range sessions[r.SessionCap:] {
			old = append(old, m.ID)
		}
		steps = append(steps, Step{Kind: "condense-sessions", IDs: old, Proposal: true,
			Message: fmt.Sprintf("%d session summaries beyond the cap of %d: condense %s into a learned-pattern (git contextfs merge, or save one with --supersedes)",
				len(old), r.SessionCap, strings.Join(old, ", "))})
	}
	return steps, nil
}

// Apply carries out the steps of a plan that are not proposals.
func Apply(ctx context.Context, s *contextfs.Store, steps []Step) error {
	for _, st := range steps {
		switch st.Kind {
		case "supersede-progress":
			if _, err := s.Update(ctx, st.ID, func(m *memory.Memory) error {
				m.Supersedes = append(m.Supersedes, st.IDs...)
				return nil
			}); err != nil {
				return fmt.Errorf("prune: %s: %w", st.Path, err)
			}
		case "expired":
			if _, err := s.Delete(ctx, st.ID); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("prune: %s: %w", st.Path, err)
			}
		}
	}
	return nil
}

// expires reads a memory's expires: date (a frontmatter key kept beside
// the known ones), reporting a malformed one with its file.
func expires(s *contextfs.Store, m *memory.Memory) (time.Time, bool, error) {
	raw, err := s.Repo.ReadFile(m.Path)
	if err != nil {
		return time.Time{}, false, err
	}
	_, doc, err := gitstore.Decode(m.Path, raw)
	if err != nil {
		return time.Time{}, false, err
	}
	n := doc.Get("expires")
	if n == nil || n.Value == "" {
		return time.Time{}, false, nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, n.Value); err == nil {
			return t, true, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("%s:%d: expires: must be a date like 2025-01-31; got %q", m.Path, doc.KeyLine("expires"), n.Value)
}
