// Package lineage changes knowledge by writing new versions rather than
// editing old ones: evolve, merge and split each write new memory files
// that supersede the old ones, so the history is in the files and in git.
// It also walks a memory's supersedes chain and its files' git history.
package lineage

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/contextfs/contextfs/internal/git"
	"slices"
	"strings"
	"time"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/links"
	"github.com/contextfs/contextfs/internal/session"
	"github.com/contextfs/contextfs/memory"
)

// ErrReason is a reason outside memory.Reasons.
var ErrReason = errors.New("unknown reason")

// CheckReason returns nil for "" or a known reason.
func CheckReason(r string) error {
	if r == "" || slices.Contains(memory.Reasons(), r) {
		return nil
	}
	return fmt.Errorf("%w %q: use one of %s", ErrReason, r, strings.Join(memory.Reasons(), ", "))
}

// ErrNoContent is a new version or a merge given blank content: a memory
// needs content, and quietly keeping the old body would write a copy.
var ErrNoContent = errors.New("a memory needs content")

// RequestError is a request that is wrong in itself, whatever the store
// holds: fewer than two memories or parts, a memory named twice, a blank
// or repeated part. The CLI reports it as a usage mistake (exit 2).
type RequestError struct{ msg string }

// Error says what is wrong with the request.
func (e *RequestError) Error() string { return e.msg }

func requestErrorf(format string, args ...any) error {
	return &RequestError{fmt.Sprintf(format, args...)}
}

// checkCurrent returns a *contextfs.SupersededError when other memories
// supersede the memory id (a full ID, as Resolve gives it), advising to
// verb its current version instead ("evolve Y instead"). It reads the
// cache as the last sync left it; Resolve syncs.
func checkCurrent(ctx context.Context, s *contextfs.Store, id, verb string) error {
	e, err := s.Superseded(ctx, id)
	if e == nil || err != nil {
		return err
	}
	e.Advice = fmt.Sprintf("%s %s instead", verb, strings.Join(e.Current(), " or "))
	return e
}

// Change is what a new version changes: its body (required), its title
// and why it replaces the old version (one of memory.Reasons, or blank).
// A blank title keeps the old one, unless the old one was derived from the
// old body (contextfs.DerivedTitle): then the new title is derived from
// the new body, so that title and body agree.
//
// Data is merged into the old version's data (a nil value deletes a key;
// memory.PatchData). Data carried into a new text that no longer states
// its figures is refused (*StaleDataError) unless KeepData: the new
// version's data would contradict its body.
type Change struct {
	Body, Title, Reason string
	Data                map[string]any
	KeepData            bool
}

// StaleDataError is a new version whose carried data restates figures its
// new text dropped (memory.StaleData): nothing was written.
type StaleDataError struct {
	ID   string         // the memory the new version replaces
	Keys []string       // the data keys that restate the old figures
	Data map[string]any // the data the new version would carry
}

func (e *StaleDataError) Error() string {
	var parts []string
	for _, k := range e.Keys {
		parts = append(parts, fmt.Sprintf("data.%s (%q)", k, fmt.Sprint(e.Data[k])))
	}
	return fmt.Sprintf("%s would keep %s from %s, which the new text contradicts: update it with --data '{\"%s\": \"...\"}' (MCP: data), or keep it as it is with --keep-data",
		strings.Join(parts, " and "), plural(len(e.Keys), "its value", "their values"), e.ID, e.Keys[0])
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkData refuses data whose figures the new text dropped, unless the
// change gives those keys anew or keeps the data on purpose.
func checkData(id string, data, patch map[string]any, oldBody, newBody string, keep bool) error {
	if keep {
		return nil
	}
	stale := slices.DeleteFunc(memory.StaleData(data, oldBody, newBody), func(k string) bool {
		_, given := patch[k]
		return given
	})
	if len(stale) == 0 {
		return nil
	}
	return &StaleDataError{ID: id, Keys: stale, Data: data}
}

// Evolve writes a new version of the memory id, superseding it. The new
// version keeps the old one's type, tags, links (but those of rel
// supersedes, see carried) and data, and records the reason. A memory that
// is already superseded is refused (*contextfs.SupersededError): its
// current version is the one to evolve.
func Evolve(ctx context.Context, s *contextfs.Store, id string, c Change) (*contextfs.SaveResult, error) {
	if err := CheckReason(c.Reason); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Body) == "" {
		return nil, fmt.Errorf("evolve: %w: give the new version's text", ErrNoContent)
	}
	// From the check that it is current to the write: two evolves of one
	// memory at once would both pass the check.
	ctx, unlock, err := s.LockWrites(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := checkCurrent(ctx, s, old.ID, "evolve"); err != nil {
		return nil, err
	}
	title := strings.TrimSpace(c.Title)
	if title == "" && old.Title != contextfs.DerivedTitle(old.Body) {
		title = old.Title // written by hand, so it still holds
	}
	data := memory.PatchData(old.Data, c.Data)
	if err := checkData(old.ID, data, c.Data, old.Body, c.Body, c.KeepData); err != nil {
		return nil, err
	}
	return save(ctx, s, contextfs.SaveRequest{Type: old.Type, Title: title, Tags: old.Tags, Links: linkArgs(carried(old.Links)),
		Supersedes: []string{old.ID}, Reason: c.Reason, Data: data, Body: strings.TrimSpace(c.Body), Paths: old.Paths})
}

// Merge writes one memory that supersedes all of ids: the first memory's
// type, title and data (with data merged in, as Change.Data is); every
// memory's tags, paths and links (less links among the merged ones and
// those of rel supersedes); and body, or the bodies joined in order when
// body is nil. A blank body is refused (ErrNoContent), as is a memory
// named twice (*RequestError), one already superseded
// (*contextfs.SupersededError), and a body that contradicts the data it
// would carry (*StaleDataError, as for Evolve).
func Merge(ctx context.Context, s *contextfs.Store, ids []string, body *string, data map[string]any) (*contextfs.SaveResult, error) {
	if len(ids) < 2 {
		return nil, requestErrorf("merge needs at least two memories, got %d", len(ids))
	}
	if body != nil && strings.TrimSpace(*body) == "" {
		return nil, fmt.Errorf("merge: %w: the content given is blank (give no content to join the bodies)", ErrNoContent)
	}
	// From the check that it is current to the write: two merges of one
	// memory at once would both pass the check.
	ctx, unlock, err := s.LockWrites(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var ms []*memory.Memory
	for _, id := range ids {
		m, err := s.Resolve(ctx, id)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(ms, func(x *memory.Memory) bool { return x.ID == m.ID }) {
			return nil, requestErrorf("%s is named twice", m.ID)
		}
		ms = append(ms, m)
	}
	merged := func(id string) bool {
		return slices.ContainsFunc(ms, func(x *memory.Memory) bool { return x.ID == id })
	}
	for _, m := range ms {
		e, err := s.Superseded(ctx, m.ID)
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue
		}
		if heads := e.Current(); !slices.ContainsFunc(heads, func(h string) bool { return !merged(h) }) {
			// Merging it with what replaced it would bring its stale body back.
			e.Advice = "this merge includes " + strings.Join(heads, " and ") + ", so leave " + m.ID + " out"
		} else {
			e.Advice = fmt.Sprintf("merge %s instead", strings.Join(heads, " or "))
		}
		return nil, e
	}
	var tags, sup, paths []string
	var ls []memory.Link
	var bodies []string
	for _, m := range ms {
		for _, p := range m.Paths {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
		if m.Type != ms[0].Type {
			return nil, fmt.Errorf("cannot merge %s (%s) with %s (%s): merge memories of one type", article(m.Type), m.ID, article(ms[0].Type), ms[0].ID)
		}
		tags = append(tags, m.Tags...)
		for _, l := range carried(m.Links) {
			if !merged(l.ID) {
				ls = append(ls, l)
			}
		}
		sup = append(sup, m.ID)
		bodies = append(bodies, strings.TrimSpace(m.Body))
	}
	text := strings.Join(bodies, "\n\n")
	newData := memory.PatchData(ms[0].Data, data)
	if body != nil {
		text = *body
		if err := checkData(ms[0].ID, newData, data, ms[0].Body, text, false); err != nil {
			return nil, err
		}
	}
	return save(ctx, s, contextfs.SaveRequest{Type: ms[0].Type, Title: ms[0].Title, Tags: tags,
		Links: linkArgs(memory.CleanLinks(ls)), Supersedes: sup, Data: newData, Body: text, Paths: paths})
}

// Split writes one memory per part, each derived from id (a typed link)
// and superseding it; the parts keep its type, tags, paths and data (with
// data merged in, as Change.Data is). Titles derive from each part's text. Fewer than two parts, a blank part or two identical
// ones are refused (*RequestError), as is a memory already superseded
// (*contextfs.SupersededError).
func Split(ctx context.Context, s *contextfs.Store, id string, parts []string, data map[string]any) ([]*memory.Memory, error) {
	if len(parts) < 2 {
		return nil, requestErrorf("split needs at least two parts, got %d", len(parts))
	}
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, requestErrorf("part %d is empty", i+1)
		}
		for j, q := range parts[:i] {
			if strings.TrimSpace(p) == strings.TrimSpace(q) {
				return nil, requestErrorf("parts %d and %d are the same text: each part must say something of its own", j+1, i+1)
			}
		}
	}
	// From the check that it is current to the last part's write.
	ctx, unlock, err := s.LockWrites(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := checkCurrent(ctx, s, old.ID, "split"); err != nil {
		return nil, err
	}
	var out []*memory.Memory
	for _, p := range parts {
		res, err := save(ctx, s, contextfs.SaveRequest{Type: old.Type, Tags: old.Tags, Paths: old.Paths,
			Links: []string{"derived_from:" + old.ID}, Supersedes: []string{old.ID}, Data: memory.PatchData(old.Data, data), Body: p})
		if err != nil {
			return out, fmt.Errorf("part %d: %w", len(out)+1, err)
		}
		out = append(out, res.Memory)
	}
	return out, nil
}

// save saves req in s stamped with the session open in s's work tree, as
// every other save is (session.Stamp): a new version written in a session
// is one of the session's saves, listed in its summary.
func save(ctx context.Context, s *contextfs.Store, req contextfs.SaveRequest) (*contextfs.SaveResult, error) {
	if err := session.Stamp(s.Repo, &req); err != nil {
		return nil, err
	}
	return s.Save(ctx, req)
}

// carried returns the links a new version takes from the one it replaces:
// all but those of rel supersedes, which stay with the old version. The new
// version supersedes the old one only, so that the chain keeps its order
// (a → b → c, not also a → c).
func carried(ls []memory.Link) []memory.Link {
	var out []memory.Link
	for _, l := range ls {
		if l.Rel != memory.RelSupersedes {
			out = append(out, l)
		}
	}
	return out
}

// linkArgs writes links as SaveRequest takes them.
func linkArgs(ls []memory.Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

// Version is one memory in a supersedes chain, with its file's history.
type Version struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Title  string `json:"title"`
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
	// Supersedes and SupersededBy are its neighbours in the chain, by
	// supersedes: entries and by links of rel supersedes alike.
	Supersedes   []string `json:"supersedes,omitempty"`
	SupersededBy []string `json:"superseded_by,omitempty"`
	// Current is false when another memory supersedes it.
	Current bool     `json:"current"`
	Commits []Commit `json:"commits"`
}

// Commit is one commit that touched a memory's file.
type Commit struct {
	SHA     string    `json:"sha"`
	Author  string    `json:"author"`
	Date    time.Time `json:"date"`
	Subject string    `json:"subject"`
}

// Lineage returns the supersedes chain through id, both ways, oldest
// first (each version after what it replaced, then by creation time): what it replaced, transitively, and
// what replaced it. Each version carries its file's git history.
func Lineage(ctx context.Context, s *contextfs.Store, id string) ([]Version, error) {
	start, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	g, err := links.Load(ctx, s)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{start.ID: true}
	queue := []string{start.ID}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		// Both ways of superseding: supersedes: entries and links of rel
		// supersedes (links.Graph.Supersedes).
		next := append(g.Supersedes(cur), g.SupersededBy(cur)...)
		for _, n := range next {
			if !seen[n] && g.Memory(n) != nil {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	var out []Version
	for _, vid := range g.IDs() {
		if !seen[vid] {
			continue
		}
		m := g.Memory(vid)
		by := g.SupersededBy(vid)
		cs, err := History(ctx, s.Repo.Root, m.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, Version{ID: m.ID, Type: m.Type, Title: m.Title, Path: m.Path, Reason: m.Reason,
			Supersedes: g.Supersedes(vid), SupersededBy: by, Current: len(by) == 0, Commits: cs})
	}
	gen := generations(g, seen)
	slices.SortStableFunc(out, func(a, b Version) int {
		ma, mb := g.Memory(a.ID), g.Memory(b.ID)
		return cmp.Or(cmp.Compare(gen[a.ID], gen[b.ID]), ma.Created.Compare(mb.Created), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// generations numbers the versions in a chain: 0 for one that supersedes
// nothing in it, else one more than the highest it supersedes, so that a
// version always comes after what it replaced (times may tie to the
// second). A cycle, which only hand edits make, is cut where it closes.
func generations(g *links.Graph, in map[string]bool) map[string]int {
	gen := map[string]int{}
	visiting := map[string]bool{}
	var walk func(id string) int
	walk = func(id string) int {
		if n, ok := gen[id]; ok {
			return n
		}
		if visiting[id] {
			return 0
		}
		visiting[id] = true
		n := 0
		for _, s := range g.Supersedes(id) {
			if in[s] && g.Memory(s) != nil {
				n = max(n, walk(s)+1)
			}
		}
		gen[id] = n
		return n
	}
	for id := range in {
		walk(id)
	}
	return gen
}

// History returns the commits that touched the file at rel, newest first.
// Renames are not followed: memory files never move, and --follow would
// take a new version, whose text is close to the old one's, for a copy of
// it. A file never committed has none.
func History(ctx context.Context, root, rel string) ([]Commit, error) {
	out, err := git.Run(ctx, root, "log", "--format=%H%x09%an%x09%aI%x09%s", "--", rel)
	if err != nil {
		var ge *git.Error
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "does not have any commits") {
			return []Commit{}, nil
		}
		return nil, err
	}
	cs := []Commit{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 4)
		if len(f) < 4 {
			continue
		}
		t, _ := time.Parse(time.RFC3339, f[2])
		cs = append(cs, Commit{SHA: f[0], Author: f[1], Date: t, Subject: f[3]})
	}
	return cs, nil
}

// SupersededBy returns the IDs of the memories that supersede id (in
// supersedes: or by a link of rel supersedes), sorted, for recall to say
// what replaced an old version: Store.SupersededBy, from the cache as the
// last sync left it (recall resolves the ID, which syncs, first).
func SupersededBy(ctx context.Context, s *contextfs.Store, id string) ([]string, error) {
	return s.SupersededBy(ctx, id)
}

// Superseders returns, for each memory that current memories supersede,
// the IDs of those memories, sorted; from the cache as the last sync left
// it, like SupersededBy (Store.Superseders).
func Superseders(ctx context.Context, s *contextfs.Store) (map[string][]string, error) {
	return s.Superseders(ctx)
}

// article puts "a" or "an" before a type name, as it is read aloud (no
// type starts with a "u" read as a vowel: "a user").
func article(typ string) string {
	if typ != "" && strings.ContainsRune("aeio", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}
