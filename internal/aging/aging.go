// Package aging keeps a memory store from piling up: the latest progress
// replaces the previous one, session summaries beyond a cap are proposed
// for condensing, and memories past their expires: date are removed. Every
// change is an ordinary change of files, to review and commit; files that
// validate rejects are left as they are.
package aging

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/links"
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
	// Kind is supersede-progress, expired, condense-sessions, or invalid
	// for a file prune leaves alone because validate rejects it.
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
//
// Files that validate rejects (check.CheckFilesWith: a bad ID, an unknown
// type, a malformed expires:, a supersedes cycle, a repeated ID...) are
// never changed or deleted, as docs/FORMAT.md promises: each gets a step
// of kind "invalid" saying so, and the rules apply to the other memories.
// Every file of a repeated ID is left alone, since prune finds what it
// changes by ID and could reach the wrong file.
func Plan(ctx context.Context, s *contextfs.Store, r Rules, now time.Time) ([]Step, error) {
	entries, err := s.Repo.List()
	if err != nil {
		return nil, fmt.Errorf("aging: list memories: %w", err)
	}
	var files []check.File
	invalid := map[string][]check.Problem{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		raw, err := s.Repo.ReadFile(e.Path)
		if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
			invalid[e.Path] = []check.Problem{{Path: e.Path, Rule: "size", Message: tl.Reason()}}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("aging: read %s: %w", e.Path, err)
		}
		files = append(files, check.File{Path: e.Path, Content: raw})
	}
	for _, p := range check.CheckFilesWith(files, nil, s.Config.Limits) {
		invalid[p.Path] = append(invalid[p.Path], p)
	}
	var ms []*memory.Memory
	docs := map[string]*frontmatter.Document{}
	byID := map[string][]string{} // lower-case ID → paths
	for _, f := range files {
		m, doc, err := gitstore.Decode(f.Path, f.Content)
		if err != nil {
			continue // a syntax problem, among invalid
		}
		ms = append(ms, m)
		docs[m.Path] = doc
		id := strings.ToLower(m.ID)
		byID[id] = append(byID[id], m.Path)
	}
	// validate reports a repeated ID on the later file only, but prune
	// finds what it deletes or updates by ID, which could reach either.
	for id, paths := range byID {
		for _, p := range paths {
			if len(paths) > 1 && invalid[p] == nil {
				others := slices.DeleteFunc(slices.Clone(paths), func(q string) bool { return q == p })
				invalid[p] = []check.Problem{{Path: p, Rule: "duplicate-id",
					Message: fmt.Sprintf("id %s is also used by %s", id, strings.Join(others, ", "))}}
			}
		}
	}
	// Every memory still counts for what supersedes what: an invalid file
	// that supersedes a memory hides it as it did before.
	g := links.New(ms)
	var progress, sessions []*memory.Memory
	var steps []Step
	for _, p := range slices.Sorted(maps.Keys(invalid)) {
		steps = append(steps, invalidStep(p, invalid[p]))
	}
	for _, id := range g.IDs() {
		m := g.Memory(id)
		if len(g.SupersededBy(id)) > 0 || m.Superseded() {
			continue
		}
		if invalid[m.Path] != nil {
			continue
		}
		if exp, ok, _ := check.Expires(docs[m.Path]); ok && memory.Expired(exp.At, now) {
			steps = append(steps, Step{Kind: "expired", ID: m.ID, Path: m.Path,
				Message: fmt.Sprintf("remove %s (%s): %s", m.ID, m.Title, expiredOn(exp))})
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
		// merge keeps the episodic type, so it would not bring the count
		// under the cap: the advice is a save of the learned-pattern that
		// supersedes them (save joins a comma-separated --supersedes).
		noun := "session summaries"
		if len(old) == 1 {
			noun = "session summary"
		}
		steps = append(steps, Step{Kind: "condense-sessions", IDs: old, Proposal: true,
			Message: fmt.Sprintf("%d %s beyond the cap of %d: condense %s into a learned-pattern: git contextfs save --type learned-pattern --supersedes %s \"WHAT THEY TEACH\"",
				len(old), noun, r.SessionCap, strings.Join(old, ", "), strings.Join(old, ","))})
	}
	return steps, nil
}

// invalidStep is the step that says prune leaves the invalid file at path
// alone, with the first of its problems.
func invalidStep(path string, probs []check.Problem) Step {
	p := probs[0]
	what := p.Rule + ": " + p.Message
	if strings.HasPrefix(p.Message, p.Rule+": ") {
		what = p.Message
	}
	if p.Line > 0 {
		what = fmt.Sprintf("line %d: %s", p.Line, what)
	}
	if n := len(probs) - 1; n > 0 {
		what += fmt.Sprintf(" (and %d more; git contextfs validate lists them)", n)
	}
	return Step{Kind: "invalid", Path: path,
		Message: fmt.Sprintf("%s is invalid, so prune leaves it alone: %s", path, what)}
}

// expiredOn says when an expiry passed: a date by its day, a time as
// written.
func expiredOn(e check.Expiry) string {
	if len(e.Value) == len(time.DateOnly) {
		return "it expired at the end of " + e.Value
	}
	return "it expired at " + e.Value
}

// Apply carries out the steps of a plan that are not proposals; invalid
// steps only report.
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
