package workflow

import (
	"context"
	"slices"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// UpdatePatch is a change to a memory: each field given changes the
// memory, each left at its zero value leaves it alone. A pointer tells a
// field left out from one cleared.
type UpdatePatch struct {
	Type, Title, Summary *string
	// Body replaces the body whole; it ends with one newline however it
	// is given. A title derived from the old body is derived again.
	Body *string
	// Tags replaces the tags; then AddTags are added and RemoveTags
	// removed (letter case aside).
	Tags                *[]string
	AddTags, RemoveTags []string
	// Links replaces the links: IDs, unique prefixes, REL:ID or URLs.
	Links *[]string
	// Supersedes replaces the IDs the memory supersedes.
	Supersedes *[]string
	// AddPaths and RemovePaths attach the memory to globs of code, and
	// detach it.
	AddPaths, RemovePaths []string
	// Data is merged into the memory's data as a JSON merge patch merges
	// an object's top level (a nil value deletes a key, memory.PatchData);
	// with ReplaceData it replaces the data whole.
	Data        map[string]any
	ReplaceData bool
}

// apply makes the patch's changes to m.
func (p UpdatePatch) apply(m *memory.Memory) error {
	if p.Type != nil {
		m.Type = *p.Type
	}
	if p.Title != nil {
		m.Title = *p.Title
	}
	if p.Summary != nil {
		m.Summary = *p.Summary
	}
	if p.Body != nil {
		m.Body = strings.TrimRight(*p.Body, "\n") + "\n"
	}
	if p.Tags != nil {
		m.Tags = slices.Clone(*p.Tags)
	}
	m.Tags = append(m.Tags, p.AddTags...)
	for _, t := range p.RemoveTags {
		m.Tags = slices.DeleteFunc(m.Tags, func(x string) bool { return strings.EqualFold(x, t) })
	}
	if p.Links != nil {
		ls, err := memory.ParseLinks(*p.Links)
		if err != nil {
			return &InputError{Field: "links", Err: err}
		}
		m.Links = ls
	}
	if p.Supersedes != nil {
		m.Supersedes = slices.Clone(*p.Supersedes)
	}
	m.Paths = append(m.Paths, p.AddPaths...)
	m.Paths = slices.DeleteFunc(m.Paths, func(x string) bool { return slices.Contains(p.RemovePaths, x) })
	switch {
	case p.ReplaceData:
		m.Data = memory.PatchData(nil, p.Data)
	case len(p.Data) > 0:
		m.Data = memory.PatchData(m.Data, p.Data)
	}
	return nil
}

// UpdateResult is what Update did.
type UpdateResult struct {
	// Memory is the memory as it now is; Scope the store that holds it.
	Memory *memory.Memory
	Scope  scope.Scope
	// Changed is false when the patch asked for nothing new: no byte was
	// written and updated: kept its time.
	Changed bool
	// Warnings are possible secrets in the file as written, as Save
	// reports them: a patch can bring one in as a save can.
	Warnings []secrets.Finding
}

// Update applies p to the memory id of sc (scope.All, or "", finds it in
// either store). The file is rewritten in place, only the lines of the
// fields that changed; a patch that, once cleaned, changes nothing writes
// no byte (contextfs.Store.Edit). A change in the user store is committed
// there.
func (s *Service) Update(ctx context.Context, sc scope.Scope, id string, p UpdatePatch) (*UpdateResult, error) {
	cur, where, st, err := s.set.Resolve(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	m, changed, err := st.Edit(ctx, cur.ID, p.apply)
	if err != nil {
		return nil, err
	}
	if !changed {
		return &UpdateResult{Memory: cur, Scope: where}, nil
	}
	res := &UpdateResult{Memory: m, Scope: where, Changed: true}
	if scan, err := st.SecretScanner(); err == nil {
		if raw, err := st.Repo.ReadFile(m.Path); err == nil {
			res.Warnings = contextfs.ScanFile(scan, m.Path, raw)
		}
	}
	if where == scope.User {
		s.set.CommitUser(ctx, st)
	}
	return res, nil
}
