package contextfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/search"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// SaveRequest is a new memory.
type SaveRequest struct {
	Type       string
	Title      string
	Summary    string
	Tags       []string
	Links      []string // "ID", "rel:ID" (see memory.ParseLink) or a URL; an ID names a memory, or a unique prefix of one
	Supersedes []string
	Reason     string // why it supersedes them: one of memory.Reasons()
	Data       map[string]any
	Body       string
	// Paths are globs of the code the memory bears on (see package pathglob).
	Paths []string
	// Source and Session record who saved the memory (see package session).
	Source  *memory.Source
	Session string
}

// SaveResult is the saved memory and what the secret scanner thought of it.
type SaveResult struct {
	Memory   *memory.Memory
	Warnings []secrets.Finding
}

// InvalidError is a memory that fails validation; nothing was written.
type InvalidError struct {
	Path   string
	Issues []memory.Issue
}

// Error lists every validation issue, one per line.
func (e *InvalidError) Error() string {
	var b strings.Builder
	what := e.Path
	if what == "" {
		what = "memory"
	}
	fmt.Fprintf(&b, "%s is invalid:", what)
	for _, i := range e.Issues {
		b.WriteString("\n  " + i.String())
	}
	return b.String()
}

// MemoryFolder is where new memories are written, inside .contextfs/.
const MemoryFolder = "memories"

// Save writes a new memory file and indexes it. The file name is a slug of
// the title plus the random ID; it never changes afterwards. The memory is
// validated first, its links included: each ID is resolved to the one
// memory it names, and one that names none or several is refused, as
// validate would refuse the file.
func (s *Store) Save(ctx context.Context, req SaveRequest) (*SaveResult, error) {
	typ, err := memory.CanonicalType(req.Type)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Second)
	m := &memory.Memory{
		ID: memory.NewID(), Type: typ, Title: strings.TrimSpace(req.Title), Summary: strings.TrimSpace(req.Summary),
		Tags: memory.CleanList(req.Tags), Supersedes: memory.CleanList(req.Supersedes), Reason: strings.TrimSpace(req.Reason),
		Created: now, Updated: now, Author: s.Repo.Author(), Data: memory.NormalizeData(req.Data),
		Body: normalizeBody(req.Body), Paths: cleanPaths(req.Paths), Session: strings.TrimSpace(req.Session),
	}
	if !req.Source.IsZero() {
		src := *req.Source
		m.Source = &src
	}
	if m.Links, err = memory.ParseLinks(req.Links); err != nil {
		return nil, err
	}
	if strings.TrimSpace(m.Body) == "" && m.Title == "" {
		return nil, errors.New("a memory needs content or a title")
	}
	if m.Title == "" {
		t, _ := deriveTitle(m.Body)
		m.Title = t
	}
	for i, id := range m.Supersedes {
		r, err := s.Resolve(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("supersedes %s: %w", id, err)
		}
		m.Supersedes[i] = r.ID
	}
	if m.Links, err = s.resolveLinks(ctx, m.Links, nil); err != nil {
		return nil, err
	}
	scanner, err := s.SecretScanner()
	if err != nil {
		return nil, err
	}
	// The file name is committed too: a title holding a secret must not
	// become its slug. A rule may miss a token for want of context (no
	// vendor prefix, no name such as API_KEY in the title), so a slug
	// with a word that merely looks random is not used either.
	slug := memory.Slug(m.Title)
	if len(scanner.Scan("", []byte(m.Title))) > 0 || secrets.MayHoldSecret(slug) {
		slug = memory.Slug(m.Type)
	}
	rel := path.Join(gitstore.Dir, MemoryFolder, slug+"-"+m.ID+".md")
	m.Path = rel
	if issues := memory.ValidateWith(m, s.Config.Limits); len(issues) > 0 {
		return nil, &InvalidError{Issues: issues}
	}
	raw, err := gitstore.Encode(m, nil, true)
	if err != nil {
		return nil, err
	}
	warn := ScanFile(scanner, rel, raw)
	if err := s.Repo.CreateMemoryFile(rel, raw); err != nil {
		return nil, err
	}
	if err := s.syncWritten(ctx, rel); err != nil {
		return &SaveResult{Memory: m, Warnings: warn}, fmt.Errorf("saved %s, but indexing failed: %w", rel, err)
	}
	return &SaveResult{Memory: m, Warnings: warn}, nil
}

// resolveLinks gives each link that names a memory (memory.Link.IsMemory)
// the full ID of the one memory its ID or prefix matches, as `link` does,
// and refuses one that matches none or several: validate would reject the
// file. URLs, other links and the links in keep (those a memory already
// had: a dangling one is validate's to report, and must not block an
// unrelated edit) are kept as they are.
func (s *Store) resolveLinks(ctx context.Context, ls, keep []memory.Link) ([]memory.Link, error) {
	for i, l := range ls {
		if !l.IsMemory() || slices.Contains(keep, l) {
			continue
		}
		r, err := s.Resolve(ctx, l.ID)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l, err)
		}
		ls[i].ID = r.ID
	}
	// A prefix and the full ID are now one link.
	return memory.CleanLinks(ls), nil
}

// SupersededError is a memory that newer versions already replace:
// evolving, merging, splitting or superseding it again would fork its
// chain into several current versions. It names what replaces it and, in
// Advice, what to do instead.
type SupersededError struct {
	ID string
	// By are the memories that supersede it; Heads, the current versions
	// its chain leads to (none when the chain is a cycle).
	By, Heads []string
	// Advice is what the caller should do instead ("evolve Y instead").
	Advice string
}

// Error names what supersedes the memory and what to do instead.
func (e *SupersededError) Error() string {
	msg := e.ID + " is superseded by " + strings.Join(e.By, ", ")
	if len(e.Heads) > 0 && !slices.Equal(e.Heads, e.By) {
		if len(e.Heads) == 1 {
			msg += ", whose current version is " + e.Heads[0]
		} else {
			msg += ", whose current versions are " + strings.Join(e.Heads, ", ")
		}
	}
	if e.Advice == "" {
		return msg
	}
	return msg + "; " + e.Advice
}

// Current returns the versions to change instead of the memory: its
// chain's heads, or, in a cycle, which has none, what supersedes it.
func (e *SupersededError) Current() []string {
	if len(e.Heads) == 0 {
		return e.By
	}
	return e.Heads
}

// Superseded returns a *SupersededError, without advice, when other
// memories supersede the memory id (a full ID, as Resolve gives it), and
// nil when none does. Both ways of saying so count: a supersedes: entry and
// a link of rel supersedes. It reads the cache as the last sync left it
// (Resolve syncs).
func (s *Store) Superseded(ctx context.Context, id string) (*SupersededError, error) {
	by, err := s.SupersededBy(ctx, id)
	if err != nil || len(by) == 0 {
		return nil, err
	}
	e := &SupersededError{ID: id, By: by}
	seen := map[string]bool{id: true}
	for queue := slices.Clone(by); len(queue) > 0; queue = queue[1:] {
		cur := queue[0]
		if seen[cur] {
			continue // a cycle, which only hand edits make
		}
		seen[cur] = true
		next, err := s.SupersededBy(ctx, cur)
		if err != nil {
			return nil, err
		}
		if len(next) == 0 {
			e.Heads = append(e.Heads, cur)
		}
		queue = append(queue, next...)
	}
	slices.Sort(e.Heads)
	return e, nil
}

// SupersedesCycleError is an edit that would make a memory supersede a
// memory that already supersedes it, directly or through other versions:
// a cycle, in which every memory is superseded by another and so hidden
// from list and search. Nothing was written.
type SupersedesCycleError struct {
	// Chain is the cycle the edit would close: Chain[0], the memory
	// edited, would supersede Chain[1], which supersedes Chain[2], and so
	// on back to Chain[0], the last.
	Chain []string
}

// Error names the cycle and the supersedes to remove first to reverse it.
func (e *SupersedesCycleError) Error() string {
	n := len(e.Chain)
	if n < 3 {
		return "that would make a supersedes cycle, " + strings.Join(e.Chain, " → ")
	}
	from, to := e.Chain[0], e.Chain[1]
	via := ""
	if n > 3 {
		via = " through " + strings.Join(e.Chain[2:n-1], ", ")
	}
	return fmt.Sprintf("%s cannot supersede %s: %s already supersedes %s%s, so that would make a supersedes cycle, %s, "+
		"and every memory in it would be hidden from list and search; to reverse which replaces which, first remove %s's supersedes of %s "+
		"(git contextfs unlink %s %s --rel supersedes)",
		from, to, to, from, via, strings.Join(e.Chain, " → "), e.Chain[n-2], from, e.Chain[n-2], from)
}

// checkNoCycle returns a *SupersedesCycleError when m, edited from
// before, supersedes a memory it did not supersede before (either way,
// Memory.SupersededIDs) that already supersedes m. It reads the cache as the
// last sync left it (Update resolves, which syncs, under the write lock).
func (s *Store) checkNoCycle(ctx context.Context, m, before *memory.Memory) error {
	old := before.SupersededIDs()
	var added []string
	for _, id := range m.SupersededIDs() {
		if id != m.ID && !slices.Contains(old, id) {
			added = append(added, id)
		}
	}
	if len(added) == 0 {
		return nil
	}
	chain, err := s.supersedesCycle(ctx, m.ID, added)
	if err != nil || chain == nil {
		return err
	}
	return &SupersedesCycleError{Chain: chain}
}

// supersedesCycle returns the shortest cycle that id superseding one of
// targets would close (id, the target, the memories through which the
// target supersedes id, and id again), or nil when no target supersedes
// id, directly or through others. It walks up from id through the
// memories that supersede it, one indexed look-up each.
func (s *Store) supersedesCycle(ctx context.Context, id string, targets []string) ([]string, error) {
	down := map[string]string{id: ""} // a memory reached → the one it supersedes on the way to id
	for queue := []string{id}; len(queue) > 0; queue = queue[1:] {
		by, err := s.SupersededBy(ctx, queue[0])
		if err != nil {
			return nil, err
		}
		for _, b := range by {
			if _, seen := down[b]; seen {
				continue
			}
			down[b] = queue[0]
			if slices.Contains(targets, b) {
				chain := []string{id}
				for v := b; v != ""; v = down[v] {
					chain = append(chain, v)
				}
				return chain, nil
			}
			queue = append(queue, b)
		}
	}
	return nil, nil
}

// LinkedFrom returns the IDs of the memories, superseded or not, that
// link to id by any relation but supersedes, sorted: deleting id leaves
// their links naming no memory, which validate and the pre-commit hook
// then report. (A supersedes entry naming a deleted version is history.)
// It reads the cache as the last sync left it.
func (s *Store) LinkedFrom(ctx context.Context, id string) ([]string, error) {
	var out []string
	for _, rel := range memory.Relations() {
		if rel == memory.RelSupersedes {
			continue
		}
		from, err := s.linkers(ctx, id, rel)
		if err != nil {
			return nil, err
		}
		out = append(out, slices.DeleteFunc(from, func(x string) bool { return x == id })...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// linkers returns the IDs of the memories, superseded or not, with an edge
// of relation rel to id: one indexed look-up of the edges the cache keeps
// as attributes.
func (s *Store) linkers(ctx context.Context, id, rel string) ([]string, error) {
	rows, err := s.cache.List(ctx, cache.KindMemory, cache.Filter{
		Attrs: []cache.Attr{{Key: search.AttrLink, Value: id + " " + rel}},
		All:   true,
	}, 0)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.MID)
	}
	return out, nil
}

// SupersededBy returns the IDs of the memories, superseded or not, that
// supersede id (in supersedes: or by a link of rel supersedes), sorted. It
// reads the cache as the last sync left it: one indexed look-up, where
// reading every memory file into a graph cost recall half a second at 10K
// memories.
func (s *Store) SupersededBy(ctx context.Context, id string) ([]string, error) {
	out, err := s.linkers(ctx, id, "supersedes")
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// DerivedTitle is the title Save gives a memory saved without one, taken
// from the head of its body: what a check before the save compares.
func DerivedTitle(body string) string {
	t, _ := deriveTitle(normalizeBody(body))
	return t
}

func deriveTitle(body string) (string, string) {
	m := &memory.Memory{Body: body}
	fillDerived(m)
	return m.Title, m.Summary
}

// normalizeBody makes sure a body ends with exactly one newline, so files
// end the way editors and git expect.
func normalizeBody(b string) string {
	b = strings.TrimRight(b, " \t\r\n")
	if b == "" {
		return ""
	}
	return b + "\n"
}

// cleanPaths trims globs and drops repeats and a leading "./".
func cleanPaths(xs []string) []string {
	var out []string
	for _, x := range memory.CleanList(xs) {
		if x = strings.TrimPrefix(x, "./"); !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// AmbiguousError is a prefix that matches several memories.
type AmbiguousError struct {
	Prefix  string
	Matches []string // "ID path"
}

// Error lists the memories the prefix matches.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s is ambiguous; it matches:\n  %s", QuoteID(e.Prefix), strings.Join(e.Matches, "\n  "))
}

// maxQuotedID is how much of an ID a message repeats.
const maxQuotedID = 60

// QuoteID quotes an ID as the user gave it, for a message. One longer
// than any ID is cut to its first 60 characters, with its length: an
// argument of thousands of characters is a mistake, and echoing it in
// full would bury the message.
func QuoteID(id string) string {
	if utf8.RuneCountInString(id) <= maxQuotedID {
		return strconv.Quote(id)
	}
	return fmt.Sprintf("%q… (%d characters)", string([]rune(id)[:maxQuotedID]), utf8.RuneCountInString(id))
}

// Resolve finds the memory whose ID is id or starts with it, and reads it
// from its file (never from the cache).
func (s *Store) Resolve(ctx context.Context, id string) (*memory.Memory, error) {
	// A blank ID is no prefix of every ID: it names nothing, and must
	// never select a memory to update or delete.
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, fmt.Errorf("%w: the ID is empty", ErrNotFound)
	}
	var rows []cache.Row
	for attempt := 1; ; attempt++ {
		db := s.cache.ID(ctx)
		if _, err := s.Sync(ctx); err != nil {
			return nil, err
		}
		var err error
		rows, err = s.cache.ResolveID(ctx, cache.KindMemory, id)
		again, err := s.rebuildIfCorrupt(ctx, err)
		if again {
			rows, err = s.cache.ResolveID(ctx, cache.KindMemory, id)
		}
		if err != nil {
			return nil, err
		}
		// A reindex that replaced the cache after the sync may have
		// built it before the memory's file was written: sync again.
		if len(rows) > 0 || attempt == replacedRetries || s.cache.ID(ctx) == db {
			break
		}
	}
	switch {
	case len(rows) == 0:
		if err := s.brokenMatch(ctx, id); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w %s", ErrNotFound, QuoteID(id))
	case len(rows) > 1 && strings.EqualFold(rows[0].MID, id):
		// Several files hold this very ID (a copy, a merge gone wrong):
		// picking one would silently hide the others.
		var paths []string
		for _, r := range rows {
			paths = append(paths, r.Path)
		}
		return nil, fmt.Errorf("%s is the ID of %d files (%s): give each its own ID, then run git contextfs validate", rows[0].MID, len(rows), strings.Join(paths, ", "))
	case len(rows) > 1:
		e := &AmbiguousError{Prefix: id}
		for _, r := range rows {
			e.Matches = append(e.Matches, r.MID+"  "+r.Path)
		}
		return nil, e
	}
	return s.Read(rows[0].Path)
}

// brokenMatch explains a lookup that failed because the memory's file
// cannot be read: broken files are not indexed, so without this the user
// would be told the memory does not exist.
func (s *Store) brokenMatch(ctx context.Context, id string) error {
	probs, err := s.cache.Problems(ctx, cache.KindMemory)
	if err != nil || id == "" {
		return nil
	}
	id = strings.ToLower(id)
	for _, p := range probs {
		if p.Msg == "" {
			continue // indexed with a note, not broken
		}
		raw, err := s.Repo.ReadFile(p.Path)
		if err != nil {
			continue
		}
		if qid := strings.ToLower(check.QuickID(p.Path, raw)); qid != "" && strings.HasPrefix(qid, id) {
			loc := p.Path
			if p.Line > 0 {
				loc = fmt.Sprintf("%s:%d", p.Path, p.Line)
			}
			return fmt.Errorf("memory %s is in %s, which cannot be read: %s (run git contextfs validate)", qid, loc, p.Msg)
		}
	}
	return nil
}

// Read reads and decodes the memory file at a work-tree-relative path.
func (s *Store) Read(rel string) (*memory.Memory, error) {
	raw, err := s.Repo.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return DecodeMemory(rel, raw)
}

// DecodeMemory is the memory in raw, the content of the memory file rel,
// as Read gives it (the title and summary derived from the body when the
// file has none), for callers that read the file for more than the memory.
func DecodeMemory(rel string, raw []byte) (*memory.Memory, error) {
	m, _, err := gitstore.Decode(rel, raw)
	if err != nil {
		return nil, err
	}
	fillDerived(m)
	return m, nil
}

// Update applies edit to the memory id and rewrites its file in place,
// changing only the lines of the fields that changed. A title that Save
// derived from the body is derived again when edit changes the body. If
// the file changes on disk while edit runs, Update fails rather than
// overwrite it. An edit that changes nothing writes nothing (see Edit).
func (s *Store) Update(ctx context.Context, id string, edit func(*memory.Memory) error) (*memory.Memory, error) {
	m, _, err := s.Edit(ctx, id, edit)
	return m, err
}

// Edit is Update, reporting whether the file was written. An edit that,
// once cleaned as Update cleans it (repeated tags dropped, links resolved,
// data normalized), leaves every byte of the file but updated: as it was
// is no change: no byte is written, updated: keeps its time, and changed
// is false. So adding a tag the memory has already leaves the file, and
// git, alone.
func (s *Store) Edit(ctx context.Context, id string, edit func(*memory.Memory) error) (m *memory.Memory, changed bool, err error) {
	cur, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, false, err
	}
	// From the read to the write: two processes adding a tag each must
	// both be kept, not both edit the same old file.
	ctx, unlock, err := s.LockWrites(ctx)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	rel := cur.Path
	raw, err := s.Repo.ReadFile(rel)
	if err != nil {
		return nil, false, err
	}
	m, doc, err := gitstore.Decode(rel, raw)
	if err != nil {
		return nil, false, err
	}
	before := *m
	before.Tags, before.Links, before.Supersedes = slices.Clone(m.Tags), slices.Clone(m.Links), slices.Clone(m.Supersedes)
	if err := edit(m); err != nil {
		return nil, false, err
	}
	// A title Save derived from the old body would contradict the new one;
	// one written by hand, or set by this edit, stays (as evolve does).
	if m.Body != before.Body && m.Title == before.Title && before.Title == DerivedTitle(before.Body) {
		if t := DerivedTitle(m.Body); t != "" {
			m.Title = t
		}
	}
	if t, err := memory.CanonicalType(m.Type); err != nil {
		return nil, false, err
	} else {
		m.Type = t
	}
	m.Tags, m.Links, m.Supersedes = memory.CleanList(m.Tags), memory.CleanLinks(m.Links), memory.CleanList(m.Supersedes)
	// The links the edit brings are checked as save checks them.
	if m.Links, err = s.resolveLinks(ctx, m.Links, before.Links); err != nil {
		return nil, false, err
	}
	// A memory that newly supersedes one of those that supersede it would
	// close a cycle and hide every memory in it: refused, as validate and
	// the pre-commit hook would refuse the file.
	if err := s.checkNoCycle(ctx, m, &before); err != nil {
		return nil, false, err
	}
	m.Paths = cleanPaths(m.Paths)
	m.Data = memory.NormalizeData(m.Data)
	// No change: the file encoded with its old updated: is the file as
	// it is. Encoding with the document kept leaves unchanged fields'
	// lines as they are, so this compares exactly what would be written.
	m.Updated = before.Updated
	if same, err := gitstore.Encode(m, doc, false); err == nil && bytes.Equal(same, raw) {
		return m, false, nil
	}
	m.Updated = s.now().UTC().Truncate(time.Second)
	if m.Updated.Before(m.Created) {
		m.Updated = m.Created
	}
	if issues := memory.ValidateWith(m, s.Config.Limits); len(issues) > 0 {
		return nil, false, &InvalidError{Path: rel, Issues: issues}
	}
	out, err := gitstore.Encode(m, doc, false)
	if err != nil {
		return nil, false, err
	}
	now, err := s.Repo.ReadFile(rel)
	if err != nil || !bytes.Equal(now, raw) {
		return nil, false, fmt.Errorf("%s changed on disk while it was being updated; nothing was written, try again", rel)
	}
	if err := s.Repo.WriteMemoryFile(rel, out, 0o644); err != nil {
		return nil, false, err
	}
	if err := s.syncWritten(ctx, rel); err != nil {
		// Say it was written: an error that reads as a failed update
		// would have the caller retry an edit already applied.
		return m, true, fmt.Errorf("updated %s, but indexing failed: %w", rel, err)
	}
	return m, true, nil
}

// Delete removes the memory's file. Git keeps its history; `git checkout`
// brings it back until the deletion is committed.
func (s *Store) Delete(ctx context.Context, id string) (*memory.Memory, error) {
	m, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.Repo.RemoveMemoryFile(m.Path); err != nil {
		return nil, err
	}
	if err := s.syncWritten(ctx, m.Path); err != nil {
		return m, fmt.Errorf("deleted %s, but indexing failed: %w", m.Path, err)
	}
	return m, nil
}

// ListOptions filter List.
type ListOptions struct {
	Types []string
	Tags  []string
	Since time.Time
	All   bool // include superseded memories
	Limit int
	// Attached keeps memories whose paths cover any of these files.
	Attached []string
	// Source keeps memories written by this tool; Session, in this session.
	Source, Session string
	// Status, when not nil, keeps memories whose data.status is one of
	// these ("" stands for a memory without one).
	Status []string
}

// Entry is a memory as listed and searched: what the cache knows.
type Entry struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	Type    string    `json:"type"`
	Title   string    `json:"title"`
	Summary string    `json:"summary,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Path    string    `json:"path"`
	Updated time.Time `json:"updated,omitzero"`
	Author  string    `json:"author,omitempty"`
	// Status is the memory's data.status, if any.
	Status string `json:"status,omitempty"`
}

// List returns current memories, newest first.
func (s *Store) List(ctx context.Context, o ListOptions) ([]Entry, error) {
	for attempt := 1; ; attempt++ {
		db := s.cache.ID(ctx)
		if _, err := s.Sync(ctx); err != nil {
			return nil, err
		}
		es, err := s.ListIndexed(ctx, o)
		// A reindex that replaced the cache after the sync may have built
		// it before some files were written: sync and list again.
		if err != nil || attempt == replacedRetries || s.cache.ID(ctx) == db {
			return es, err
		}
	}
}

// replacedRetries bounds how many times a read syncs again because a
// reindex replaced the cache under it (see Reindex).
const replacedRetries = 4

// ListIndexed lists without syncing first: for callers that just synced
// and list several times (the context block).
func (s *Store) ListIndexed(ctx context.Context, o ListOptions) ([]Entry, error) {
	out := []Entry{}
	for e, err := range s.listIndexed(ctx, o) {
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// recoverSeq is seq, restarted once on a rebuilt cache when it fails with
// a corrupt cache before yielding anything (see rebuildIfCorrupt). An
// error after the first entry ends the sequence as before: the entries
// already handed out cannot be taken back.
func (s *Store) recoverSeq(ctx context.Context, seq func() iter.Seq2[Entry, error]) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		yielded, again := false, false
		for e, err := range seq() {
			if err != nil && !yielded {
				if again, err = s.rebuildIfCorrupt(ctx, err); again {
					break
				}
			}
			yielded = true
			if !yield(e, err) || err != nil {
				return
			}
		}
		if !again {
			return
		}
		for e, err := range seq() {
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// ListSeq is List one memory at a time, as the cache reads them: a
// listing of every memory (list --all) is written as it goes instead of
// being held whole. It syncs first; an error ends the sequence.
func (s *Store) ListSeq(ctx context.Context, o ListOptions) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if _, err := s.Sync(ctx); err != nil {
			yield(Entry{}, err)
			return
		}
		for e, err := range s.listIndexed(ctx, o) {
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// listIndexed yields the entries o asks for, without syncing.
func (s *Store) listIndexed(ctx context.Context, o ListOptions) iter.Seq2[Entry, error] {
	return s.recoverSeq(ctx, func() iter.Seq2[Entry, error] { return s.listRows(ctx, o) })
}

// listRows is listIndexed on the cache as it is.
func (s *Store) listRows(ctx context.Context, o ListOptions) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		f, err := search.Filter(o.Types, o.Tags, o.Since, o.All)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		if err := search.Narrow(ctx, s.cache, &f, o.Attached, o.Source, o.Session); err != nil {
			yield(Entry{}, err)
			return
		}
		f.Statuses = o.Status
		for r, err := range s.cache.ListRows(ctx, cache.KindMemory, f, o.Limit) {
			if err != nil {
				yield(Entry{}, err)
				return
			}
			if !yield(entryOf(r), nil) {
				return
			}
		}
	}
}

// AttachedGlobsIndexed returns the paths: globs of the memories in the
// work tree (superseded ones too), sorted and without repeats, as last
// synced: every glob the files a branch changes can be matched against.
// The context block asks git for those files only when there are some.
func (s *Store) AttachedGlobsIndexed(ctx context.Context) ([]string, error) {
	byID, err := s.cache.CurrentAttrs(ctx, cache.KindMemory, search.AttrPath)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, gs := range byID {
		out = append(out, gs...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// IndexGeneration names the set of memories the index holds (see
// cache.Generation): equal values, read after a Sync, mean the same
// memory files, so what was computed from them (a context block) still
// holds. "" matches nothing.
func (s *Store) IndexGeneration(ctx context.Context) string {
	return s.cache.Generation(ctx, cache.KindMemory)
}

func entryOf(r cache.Row) Entry {
	return Entry{ID: r.MID, Kind: r.Kind.String(), Type: r.Type, Title: r.Title, Summary: r.Summary, Tags: r.Tags,
		Path: r.Path, Updated: r.Updated, Author: r.Author, Status: r.Status}
}

// memoryAttrs are the cache attributes of m: its globs, source tool and
// session (the one in source when the key is absent).
func memoryAttrs(m *memory.Memory) []cache.Attr {
	var out []cache.Attr
	for _, p := range m.Paths {
		out = append(out, cache.Attr{Key: search.AttrPath, Value: p})
	}
	sess := m.Session
	if m.Source != nil {
		if t := m.Source.Tool; t != "" {
			out = append(out, cache.Attr{Key: search.AttrSource, Value: t})
			// An MCP client is recorded as name/version; its name alone
			// matches too.
			if name, _, ok := strings.Cut(t, "/"); ok && name != "" {
				out = append(out, cache.Attr{Key: search.AttrSource, Value: name})
			}
		}
		if sess == "" {
			sess = m.Source.Session
		}
	}
	if sess != "" {
		out = append(out, cache.Attr{Key: search.AttrSession, Value: sess})
	}
	// The edges as links.Graph.Out lists them: the links to memories in
	// file order, then each superseded ID not already linked so.
	var edges []string
	for _, l := range m.Links {
		if l.IsMemory() {
			edges = append(edges, l.ID+" "+l.Rel)
		}
	}
	for _, id := range m.Supersedes {
		if e := id + " supersedes"; !slices.Contains(edges, e) {
			edges = append(edges, e)
		}
	}
	for _, e := range edges {
		out = append(out, cache.Attr{Key: search.AttrLink, Value: e})
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
