package contextfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/contextfs/contextfs/cache"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
	"github.com/contextfs/contextfs/secrets"
)

// SaveRequest is a new memory.
type SaveRequest struct {
	Type       string
	Title      string
	Summary    string
	Tags       []string
	Links      []string
	Supersedes []string
	Data       map[string]any
	Body       string
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
// the title plus the random ID; it never changes afterwards.
func (s *Store) Save(ctx context.Context, req SaveRequest) (*SaveResult, error) {
	typ, err := memory.CanonicalType(req.Type)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Second)
	m := &memory.Memory{
		ID: memory.NewID(), Type: typ, Title: strings.TrimSpace(req.Title), Summary: strings.TrimSpace(req.Summary),
		Tags: cleanList(req.Tags), Links: cleanList(req.Links), Supersedes: cleanList(req.Supersedes),
		Created: now, Updated: now, Author: s.Repo.Author(), Data: memory.NormalizeData(req.Data),
		Body: normalizeBody(req.Body),
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
	scanner, err := s.secretScanner()
	if err != nil {
		return nil, err
	}
	// The file name is committed too: a title holding a secret must not
	// become its slug.
	slug := memory.Slug(m.Title)
	if len(scanner.Scan("", []byte(m.Title))) > 0 {
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
	if err := gitstore.CreateFileExclusive(s.Repo.Abs(rel), raw); err != nil {
		return nil, err
	}
	if _, err := s.Sync(ctx); err != nil {
		return &SaveResult{Memory: m, Warnings: warn}, fmt.Errorf("saved %s, but indexing failed: %w", rel, err)
	}
	return &SaveResult{Memory: m, Warnings: warn}, nil
}

func (s *Store) secretScanner() (*secrets.Scanner, error) {
	sc, err := secrets.NewScanner(secrets.Allow{
		Patterns: s.Config.Secrets.Allow, Fingerprints: s.Config.Secrets.Fingerprints, Paths: s.Config.Secrets.Paths,
	})
	if err != nil {
		return nil, fmt.Errorf("%s/%s: secrets: %w", gitstore.Dir, gitstore.ConfigFile, err)
	}
	return sc, nil
}

// ScanFile scans a memory file for secrets: its content, and its path,
// which is committed as well (a finding in the path has line 0).
func ScanFile(sc *secrets.Scanner, path string, content []byte) []secrets.Finding {
	out := sc.Scan(path, content)
	for _, f := range sc.Scan(path, []byte(path)) {
		f.Line, f.Column = 0, 0
		f.Description += " in the file name"
		out = append(out, f)
	}
	return out
}

// SecretScanner returns the scanner configured for this repository.
func (s *Store) SecretScanner() (*secrets.Scanner, error) { return s.secretScanner() }

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

func cleanList(xs []string) []string {
	var out []string
	for _, x := range xs {
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
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
	return fmt.Sprintf("%q is ambiguous; it matches:\n  %s", e.Prefix, strings.Join(e.Matches, "\n  "))
}

// Resolve finds the memory whose ID is id or starts with it, and reads it
// from its file (never from the cache).
func (s *Store) Resolve(ctx context.Context, id string) (*memory.Memory, error) {
	if _, err := s.Sync(ctx); err != nil {
		return nil, err
	}
	rows, err := s.cache.ResolveID(ctx, cache.KindMemory, strings.TrimSpace(id))
	if err != nil {
		return nil, err
	}
	switch {
	case id == "" || len(rows) == 0:
		if err := s.brokenMatch(ctx, id); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w %q", ErrNotFound, id)
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
		if qid := strings.ToLower(quickID(p.Path, raw)); qid != "" && strings.HasPrefix(qid, id) {
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
	m, _, err := gitstore.Decode(rel, raw)
	if err != nil {
		return nil, err
	}
	fillDerived(m)
	return m, nil
}

// Update applies edit to the memory id and rewrites its file in place,
// changing only the lines of the fields that changed. If the file changes
// on disk while edit runs, Update fails rather than overwrite it.
func (s *Store) Update(ctx context.Context, id string, edit func(*memory.Memory) error) (*memory.Memory, error) {
	cur, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	rel := cur.Path
	raw, err := s.Repo.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	m, doc, err := gitstore.Decode(rel, raw)
	if err != nil {
		return nil, err
	}
	before := *m
	before.Tags = slices.Clone(m.Tags)
	if err := edit(m); err != nil {
		return nil, err
	}
	if t, err := memory.CanonicalType(m.Type); err != nil {
		return nil, err
	} else {
		m.Type = t
	}
	m.Tags, m.Links, m.Supersedes = cleanList(m.Tags), cleanList(m.Links), cleanList(m.Supersedes)
	m.Data = memory.NormalizeData(m.Data)
	m.Updated = s.now().UTC().Truncate(time.Second)
	if m.Updated.Before(m.Created) {
		m.Updated = m.Created
	}
	if issues := memory.ValidateWith(m, s.Config.Limits); len(issues) > 0 {
		return nil, &InvalidError{Path: rel, Issues: issues}
	}
	out, err := gitstore.Encode(m, doc, false)
	if err != nil {
		return nil, err
	}
	now, err := s.Repo.ReadFile(rel)
	if err != nil || !bytes.Equal(now, raw) {
		return nil, fmt.Errorf("%s changed on disk while it was being updated; nothing was written, try again", rel)
	}
	if err := gitstore.WriteFileAtomic(s.Repo.Abs(rel), out, 0o644); err != nil {
		return nil, err
	}
	if _, err := s.Sync(ctx); err != nil {
		return m, err
	}
	return m, nil
}

// Delete removes the memory's file. Git keeps its history; `git checkout`
// brings it back until the deletion is committed.
func (s *Store) Delete(ctx context.Context, id string) (*memory.Memory, error) {
	m, err := s.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(s.Repo.Abs(m.Path)); err != nil {
		return nil, err
	}
	if _, err := s.Sync(ctx); err != nil {
		return m, err
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
}

// List returns current memories, newest first.
func (s *Store) List(ctx context.Context, o ListOptions) ([]Entry, error) {
	if _, err := s.Sync(ctx); err != nil {
		return nil, err
	}
	f, err := s.filter(o.Types, o.Tags, o.Since, o.All)
	if err != nil {
		return nil, err
	}
	rows, err := s.cache.List(ctx, cache.KindMemory, f, o.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(rows))
	for _, r := range rows {
		out = append(out, entryOf(r))
	}
	return out, nil
}

func entryOf(r cache.Row) Entry {
	return Entry{ID: r.MID, Kind: r.Kind.String(), Type: r.Type, Title: r.Title, Summary: r.Summary, Tags: r.Tags,
		Path: r.Path, Updated: r.Updated, Author: r.Author}
}

func (s *Store) filter(types, tags []string, since time.Time, all bool) (cache.Filter, error) {
	f := cache.Filter{Tags: cleanList(tags), Since: since, All: all}
	for _, t := range cleanList(types) {
		c, err := memory.CanonicalType(t)
		if err != nil {
			return f, err
		}
		f.Types = append(f.Types, c)
	}
	return f, nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
