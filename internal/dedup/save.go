package dedup

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/memory"
)

// Action is what Save did.
type Action string

// The actions of Save.
const (
	Saved   Action = "saved"   // a new file was written
	Skipped Action = "skipped" // nothing was written; Memory is the existing one
	Updated Action = "updated" // the existing memory took the new content and all else the save gave
)

// Outcome is a checked save: what was done, to which memory, and what the
// check found.
type Outcome struct {
	Action Action `json:"action"`
	// Memory is the memory written, updated, or (when skipped) repeated.
	Memory *memory.Memory `json:"memory"`
	// Saved is the store's result when a new file was written.
	Saved *contextfs.SaveResult `json:"-"`
	Report
}

// DuplicateError is a save refused by the error policy.
type DuplicateError struct {
	Similar []Match
}

// Error names the memories the save repeats.
func (e *DuplicateError) Error() string {
	var ids []string
	for _, m := range e.Similar {
		ids = append(ids, fmt.Sprintf("%s (%s, similarity %.2f)", m.ID, m.Path, m.Similarity))
	}
	return "not saved: it repeats " + strings.Join(ids, ", ")
}

// Save checks req and then writes it. A memory it supersedes that a newer
// version already replaces, when req does not supersede that version too,
// is refused (*contextfs.SupersededError): both would be current. Then req
// is compared with the memories of its type, and policy decides when it
// repeats one; identical content is never written twice, whatever the
// policy but Off. Memories req already supersedes (by its entries or its
// links of rel supersedes) are not reported. Off skips every check: it is
// for bulk imports and benchmarks.
func Save(ctx context.Context, s *contextfs.Store, req contextfs.SaveRequest, policy Policy, th Thresholds) (*Outcome, error) {
	// From the checks to the write: two processes saving the same text at
	// once must not both find it new.
	ctx, unlock, err := s.LockWrites(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if policy == Off {
		res, err := s.Save(ctx, req)
		if err != nil {
			return nil, err
		}
		return &Outcome{Action: Saved, Memory: res.Memory, Saved: res, Report: Report{Similar: []Match{}, MaySupersede: []Match{}}}, nil
	}
	links, err := memory.ParseLinks(req.Links)
	if err != nil {
		return nil, err
	}
	// What req supersedes, by its entries (entries) and by its links of rel
	// supersedes too (superseded): the old versions, not duplicates.
	var entries, superseded []string
	var ids []string
	for _, x := range req.Supersedes {
		ids = append(ids, strings.Split(x, ",")...) // "a,b" is two, as Store.Save reads it
	}
	for _, id := range ids {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		m, err := s.Resolve(ctx, id)
		if err != nil {
			// Said here, as s.Save would say it: an update or a skip
			// never reaches s.Save.
			return nil, fmt.Errorf("supersedes %s: %w", id, err)
		}
		entries = append(entries, m.ID)
		superseded = append(superseded, m.ID)
	}
	for _, l := range links {
		if l.Rel != memory.RelSupersedes || !l.IsMemory() {
			continue
		}
		m, err := s.Resolve(ctx, l.ID)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l, err)
		}
		if !slices.Contains(superseded, m.ID) {
			superseded = append(superseded, m.ID)
		}
	}
	if err := checkCurrent(ctx, s, superseded); err != nil {
		return nil, err
	}
	rep, err := Check(ctx, s, Candidate{Type: req.Type, Title: req.Title, Body: req.Body, Data: req.Data}, th)
	if err != nil {
		return nil, err
	}
	drop := func(m Match) bool { return slices.Contains(superseded, m.ID) }
	rep.Similar = slices.DeleteFunc(rep.Similar, drop)
	rep.MaySupersede = slices.DeleteFunc(rep.MaySupersede, drop)
	out := &Outcome{Report: *rep}

	// Newest wins: a contradiction plain enough (Match.Settle) is
	// superseded by the memory written, not only proposed. Should no new
	// file be written (a skip, an update), it stays a proposal; and with
	// the policy allow the person has said to write it as it is beside
	// the others, so it stays a proposal too.
	var settled []Match
	if newestWins(s) && policy != Allow {
		for _, m := range rep.MaySupersede {
			if m.Settle {
				settled = append(settled, m)
			}
		}
	}

	if len(rep.Similar) > 0 {
		top := rep.Similar[0]
		if top.Identical && (policy == Allow || policy == Supersede) {
			policy = Skip
		}
		if policy == Supersede {
			// The new text is the new version of every memory it repeats.
			settled = append(slices.Clone(rep.Similar), settled...)
		}
		switch policy {
		case Error:
			return out, &DuplicateError{Similar: rep.Similar}
		case Skip:
			m, err := s.Resolve(ctx, top.ID)
			if err != nil {
				return nil, err
			}
			if top.Identical && len(superseded) > 0 {
				// The same text again, superseding what the first save said it
				// may: the memory that holds the text takes the supersedes.
				return supersedeWith(ctx, s, out, m.ID, superseded, req.Reason)
			}
			out.Action, out.Memory = Skipped, m
			return out, nil
		case Update:
			m, err := s.Update(ctx, top.ID, func(m *memory.Memory) error {
				if strings.TrimSpace(req.Body) != "" {
					m.Body = strings.TrimSpace(req.Body) + "\n" // a derived title follows (Store.Update)
				}
				// The rest of what the save was given goes with its text;
				// left out, it would be lost without a word.
				m.Tags = append(m.Tags, req.Tags...)
				m.Links = append(m.Links, links...)
				m.Paths = append(m.Paths, req.Paths...)
				for _, id := range entries { // those by links come with the links
					if id != m.ID && !slices.Contains(m.Supersedes, id) {
						m.Supersedes = append(m.Supersedes, id)
					}
				}
				if len(req.Data) > 0 {
					if m.Data == nil {
						m.Data = map[string]any{}
					}
					maps.Copy(m.Data, req.Data)
				}
				if r := strings.TrimSpace(req.Reason); r != "" {
					m.Reason = r
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("update %s: %w", top.ID, err)
			}
			out.Action, out.Memory = Updated, m
			return out, nil
		}
	}
	for _, m := range settled {
		if !slices.Contains(superseded, m.ID) {
			req.Supersedes = append(slices.Clone(req.Supersedes), m.ID)
			superseded = append(superseded, m.ID)
			out.Superseded = append(out.Superseded, m)
		}
	}
	out.MaySupersede = slices.DeleteFunc(out.MaySupersede, func(m Match) bool { return slices.Contains(superseded, m.ID) })
	res, err := s.Save(ctx, req)
	if err != nil {
		return nil, err
	}
	out.Action, out.Memory, out.Saved = Saved, res.Memory, res
	return out, nil
}

// newestWins reports whether s settles plain contradictions at save
// (hygiene.newest_wins, default true).
func newestWins(s *contextfs.Store) bool {
	if s.Config.Hygiene.NewestWins == nil {
		return true
	}
	return *s.Config.Hygiene.NewestWins
}

// supersedeWith adds ids (and reason, when set) to the memory id's
// supersedes, for a save whose text that memory already holds.
func supersedeWith(ctx context.Context, s *contextfs.Store, out *Outcome, id string, ids []string, reason string) (*Outcome, error) {
	m, err := s.Update(ctx, id, func(m *memory.Memory) error {
		for _, x := range ids {
			if x != m.ID && !slices.Contains(m.Supersedes, x) {
				m.Supersedes = append(m.Supersedes, x)
			}
		}
		if reason != "" {
			m.Reason = reason
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", id, err)
	}
	out.Action, out.Memory = Updated, m
	return out, nil
}

// checkCurrent refuses to supersede a memory that newer versions replace
// unless every current version of its chain is superseded too: the new
// memory would be a second current version beside them.
func checkCurrent(ctx context.Context, s *contextfs.Store, ids []string) error {
	for _, id := range ids {
		e, err := s.Superseded(ctx, id)
		if err != nil {
			return err
		}
		if e == nil || !slices.ContainsFunc(e.Current(), func(h string) bool { return !slices.Contains(ids, h) }) {
			continue
		}
		e.Advice = "supersede " + strings.Join(e.Current(), " or ") + " instead"
		return e
	}
	return nil
}
