package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/lineage"
	"github.com/contextfs/contextfs/links"
	"github.com/contextfs/contextfs/memory"
	"github.com/contextfs/contextfs/scope"
	"github.com/contextfs/contextfs/workflow"
)

// HygieneInput are save_memory's arguments for links and duplicates.
type HygieneInput struct {
	Links []string `json:"links,omitempty" jsonschema:"links to other memories: an ID, or relation:ID such as depends_on:k3x9 (relations: related, references, depends_on, contradicts, supersedes, derived_from, part_of, implements, extends, example_of, caused_by, fixes)"`
	Dedup string   `json:"dedup,omitempty" jsonschema:"when the memory repeats one of its type: skip (default: nothing is written and the existing memory is returned), update (the existing memory takes the new content, tags, links, paths, supersedes and data), error, or allow (write it anyway)"`
}

// HygieneOutput is what save_memory found and did about duplicates.
type HygieneOutput struct {
	Action       workflow.Action  `json:"action" jsonschema:"saved, skipped (an existing memory already holds this; its ID is returned) or updated"`
	Similar      []workflow.Match `json:"similar" jsonschema:"existing memories of the same type that this one repeats"`
	MaySupersede []workflow.Match `json:"may_supersede" jsonschema:"existing memories on the same subject that this one contradicts: save again with supersedes to retire them, after checking"`
	Unchecked    string           `json:"unchecked,omitempty" jsonschema:"set when the embedding server was unavailable: the memory was compared for identical content only"`
	// SupersededProgress is what the CLI's save --json reports too.
	SupersededProgress []string `json:"superseded_progress,omitempty" jsonschema:"the progress memories this new progress replaced: one progress is current"`
}

// checkedSave saves in through the service (workflow.Service.Save), as the
// CLI's save does, and says what it found.
func (sv *server) checkedSave(ctx context.Context, in SaveInput) (SaveOutput, string, error) {
	sc, err := parseScope(in.Scope)
	if err != nil {
		return SaveOutput{}, "", err
	}
	req := workflow.SaveRequest{Scope: sc, Dedup: in.Dedup, SaveRequest: contextfs.SaveRequest{Type: in.Type, Title: in.Title,
		Tags: in.Tags, Links: in.Links, Supersedes: in.Supersedes, Data: in.Data, Body: in.Content, Paths: in.Paths}}
	if src := clientSource(ctx); src != "" {
		req.Source = &memory.Source{Tool: src}
	}
	res, err := sv.svc.Save(ctx, req)
	if err != nil {
		return SaveOutput{}, "", err
	}
	out := SaveOutput{MemoryRef: refOf(res.Memory, res.Scope), HygieneOutput: HygieneOutput{Action: res.Action, Similar: res.Similar,
		MaySupersede: res.MaySupersede, Unchecked: res.Unchecked, SupersededProgress: res.SupersededProgress}}
	var text string
	switch res.Action {
	case workflow.Skipped:
		text = fmt.Sprintf("not saved: %s %s already holds this", out.ID, out.Path)
	case workflow.Updated:
		text = fmt.Sprintf("updated %s %s with the new content instead of saving a copy", out.ID, out.Path)
	default:
		text = fmt.Sprintf("saved %s %s (%s: %s)", out.ID, out.Path, out.Type, out.Title)
	}
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, w.String())
		text += "\nwarning: possible secret: " + w.String()
	}
	if len(res.SupersededProgress) > 0 {
		text += "\nsuperseding the progress " + strings.Join(res.SupersededProgress, ", ")
	}
	for _, m := range res.Similar {
		text += fmt.Sprintf("\nsimilar: %s %q (similarity %.2f)", m.ID, m.Title, m.Similarity)
	}
	for _, m := range res.MaySupersede {
		text += fmt.Sprintf("\nmay supersede: %s %q (%s)", m.ID, m.Title, m.Why)
	}
	if res.Unchecked != "" {
		text += "\nwarning: " + res.Unchecked
	}
	return out, text, nil
}

// LinkInput is the argument of link_memories.
type LinkInput struct {
	From string `json:"from" jsonschema:"ID or unique prefix of the memory that links"`
	To   string `json:"to" jsonschema:"ID or unique prefix of the memory linked to, or a URL"`
	Rel  string `json:"rel,omitempty" jsonschema:"the relation (default related): related, references, depends_on, contradicts, supersedes, derived_from, part_of, implements, extends, example_of, caused_by, fixes"`
}

// RelatedInput is the argument of related_memories.
type RelatedInput struct {
	ID    string `json:"id" jsonschema:"the memory's ID or a unique prefix of it"`
	Depth int    `json:"depth,omitempty" jsonschema:"how many links away to go (default 1)"`
	Rel   string `json:"rel,omitempty" jsonschema:"follow only links of this relation"`
}

// RelatedOutput lists the memories reached.
type RelatedOutput struct {
	Related []links.Neighbour `json:"related"`
}

// LineageOutput is a memory's supersedes chain.
type LineageOutput struct {
	Versions []lineage.Version `json:"versions" jsonschema:"oldest first; current is false for superseded versions"`
}

// EvolveInput is the argument of evolve_memory.
type EvolveInput struct {
	ID       string         `json:"id" jsonschema:"the memory to replace with a new version"`
	Content  string         `json:"content" jsonschema:"the new version's body"`
	Title    string         `json:"title,omitempty" jsonschema:"a new title (default: the old one, or derived from content when the old one was derived from the old body)"`
	Reason   string         `json:"reason,omitempty" jsonschema:"why: observation, inference, correction or decay"`
	Data     map[string]any `json:"data,omitempty" jsonschema:"fields merged into the memory's data (null deletes one); needed when the new content changes a figure the data states"`
	KeepData bool           `json:"keep_data,omitempty" jsonschema:"keep data whose figures the new content no longer states"`
}

// MergeInput is the argument of merge_memories.
type MergeInput struct {
	IDs     []string       `json:"ids" jsonschema:"two or more memories of one type to merge"`
	Content string         `json:"content,omitempty" jsonschema:"the merged memory's body (default: the bodies joined)"`
	Data    map[string]any `json:"data,omitempty" jsonschema:"fields merged into the first memory's data (null deletes one)"`
}

// SplitInput is the argument of split_memory.
type SplitInput struct {
	ID    string         `json:"id" jsonschema:"the memory to split"`
	Parts []string       `json:"parts" jsonschema:"the text of each part, two or more"`
	Data  map[string]any `json:"data,omitempty" jsonschema:"fields merged into each part's data (null deletes one)"`
}

// SplitOutput names the parts written.
type SplitOutput struct {
	Parts []MemoryRef `json:"parts"`
}

// registerHygiene adds the tools for links and lineage.
func (sv *server) registerHygiene(srv *mcp.Server) {
	addTool(sv, srv, &mcp.Tool{
		Name:        "link_memories",
		Description: "Link one memory to another with a typed relation (default related). The link is written to the first memory's file.",
		Annotations: &mcp.ToolAnnotations{Title: "Link memories", DestructiveHint: new(false), IdempotentHint: true},
	}, sv.link)
	addTool(sv, srv, &mcp.Tool{
		Name:        "related_memories",
		Description: "List the memories linked to a memory, in both directions, up to depth links away, with the relation of each link.",
		Annotations: &mcp.ToolAnnotations{Title: "Related memories", ReadOnlyHint: true, IdempotentHint: true},
	}, sv.related)
	addTool(sv, srv, &mcp.Tool{
		Name:        "memory_lineage",
		Description: "Show a memory's versions: what it superseded and what superseded it, with reasons and each file's git history.",
		Annotations: &mcp.ToolAnnotations{Title: "Memory lineage", ReadOnlyHint: true, IdempotentHint: true},
	}, sv.lineage)
	addTool(sv, srv, &mcp.Tool{
		Name:        "evolve_memory",
		Description: "Write a new version of a memory that supersedes it, keeping its type, tags, links and data, and recording why (observation, inference, correction or decay). Prefer this to update_memory when the knowledge itself changed.",
		Annotations: &mcp.ToolAnnotations{Title: "Evolve a memory", DestructiveHint: new(false)},
	}, sv.evolve)
	addTool(sv, srv, &mcp.Tool{
		Name:        "merge_memories",
		Description: "Merge memories of one type into one new memory that supersedes them all; tags and links are unioned.",
		Annotations: &mcp.ToolAnnotations{Title: "Merge memories", DestructiveHint: new(false)},
	}, sv.merge)
	addTool(sv, srv, &mcp.Tool{
		Name:        "split_memory",
		Description: "Split a memory into parts: each part is a new memory derived from it, and together they supersede it.",
		Annotations: &mcp.ToolAnnotations{Title: "Split a memory", DestructiveHint: new(false)},
	}, sv.split)
}

func (sv *server) link(ctx context.Context, in LinkInput) (MemoryRef, string, error) {
	st, where, err := sv.storeOf(ctx, scope.All, in.From)
	if err != nil {
		return MemoryRef{}, "", err
	}
	m, err := links.Add(ctx, st, in.From, in.To, in.Rel)
	if err != nil {
		return MemoryRef{}, "", err
	}
	sv.committed(ctx, st, where)
	var ls []string
	for _, l := range m.Links {
		ls = append(ls, l.String())
	}
	return refOf(m, where), fmt.Sprintf("%s now links to %s", m.ID, strings.Join(ls, ", ")), nil
}

func (sv *server) related(ctx context.Context, in RelatedInput) (RelatedOutput, string, error) {
	if in.Rel != "" {
		if err := links.CheckRel(in.Rel); err != nil {
			return RelatedOutput{}, "", err
		}
	}
	m, _, st, err := sv.set.Resolve(ctx, scope.All, in.ID)
	if err != nil {
		return RelatedOutput{}, "", err
	}
	ns, err := links.WalkIndexed(ctx, st, m.ID, max(in.Depth, 1), in.Rel)
	if err != nil {
		return RelatedOutput{}, "", err
	}
	if ns == nil {
		ns = []links.Neighbour{}
	}
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%d %s %s->%s %s %q\n", n.Depth, n.ID, n.Via.From, n.Via.To, n.Via.Rel, n.Title)
	}
	if len(ns) == 0 {
		b.WriteString("no linked memories")
	}
	return RelatedOutput{Related: ns}, strings.TrimRight(b.String(), "\n"), nil
}

func (sv *server) lineage(ctx context.Context, in IDInput) (LineageOutput, string, error) {
	sc, err := parseScope(in.Scope)
	if err != nil {
		return LineageOutput{}, "", err
	}
	st, _, err := sv.storeOf(ctx, sc, in.ID)
	if err != nil {
		return LineageOutput{}, "", err
	}
	vs, err := lineage.Lineage(ctx, st, in.ID)
	if err != nil {
		return LineageOutput{}, "", err
	}
	var b strings.Builder
	for _, v := range vs {
		state := "current"
		if !v.Current {
			state = "superseded by " + strings.Join(v.SupersededBy, ", ")
		}
		fmt.Fprintf(&b, "%s %q (%s; %d commits)\n", v.ID, v.Title, state, len(v.Commits))
	}
	return LineageOutput{Versions: vs}, strings.TrimRight(b.String(), "\n"), nil
}

func (sv *server) evolve(ctx context.Context, in EvolveInput) (MemoryRef, string, error) {
	st, where, err := sv.storeOf(ctx, scope.All, in.ID)
	if err != nil {
		return MemoryRef{}, "", err
	}
	res, err := lineage.Evolve(ctx, st, in.ID, lineage.Change{Body: in.Content, Title: in.Title, Reason: in.Reason, Data: in.Data, KeepData: in.KeepData})
	if err != nil {
		return MemoryRef{}, "", err
	}
	sv.committed(ctx, st, where)
	return refOf(res.Memory, where), fmt.Sprintf("saved %s %s, superseding %s", res.Memory.ID, res.Memory.Path, strings.Join(res.Memory.Supersedes, ", ")), nil
}

func (sv *server) merge(ctx context.Context, in MergeInput) (MemoryRef, string, error) {
	var content *string // none joins the bodies
	if in.Content != "" {
		content = &in.Content
	}
	if len(in.IDs) == 0 {
		_, err := lineage.Merge(ctx, sv.store, in.IDs, content, in.Data) // says what a merge needs
		return MemoryRef{}, "", err
	}
	// One store holds them all: the first one's.
	st, where, err := sv.storeOf(ctx, scope.All, in.IDs[0])
	if err != nil {
		return MemoryRef{}, "", err
	}
	res, err := lineage.Merge(ctx, st, in.IDs, content, in.Data)
	if err != nil {
		return MemoryRef{}, "", err
	}
	sv.committed(ctx, st, where)
	return refOf(res.Memory, where), fmt.Sprintf("saved %s %s, superseding %s", res.Memory.ID, res.Memory.Path, strings.Join(res.Memory.Supersedes, ", ")), nil
}

func (sv *server) split(ctx context.Context, in SplitInput) (SplitOutput, string, error) {
	st, where, err := sv.storeOf(ctx, scope.All, in.ID)
	if err != nil {
		return SplitOutput{}, "", err
	}
	ms, err := lineage.Split(ctx, st, in.ID, in.Parts, in.Data)
	if len(ms) > 0 {
		sv.committed(ctx, st, where)
	}
	if err != nil {
		return SplitOutput{}, "", err
	}
	out := SplitOutput{Parts: []MemoryRef{}}
	var ids []string
	for _, m := range ms {
		out.Parts = append(out.Parts, refOf(m, where))
		ids = append(ids, m.ID)
	}
	return out, "saved " + strings.Join(ids, ", "), nil
}

// storeOf returns the store of sc that holds the memory id (All: the
// repository's first, then the user's), as recall_memory finds it: the
// tools that change or walk a memory work where it is.
func (sv *server) storeOf(ctx context.Context, sc scope.Scope, id string) (*contextfs.Store, scope.Scope, error) {
	_, where, st, err := sv.set.Resolve(ctx, sc, id)
	if err != nil {
		return nil, "", err
	}
	return st, where, nil
}

// committed commits what a tool wrote to the user store, which commits
// every change at once (the repository's are the user's to commit).
func (sv *server) committed(ctx context.Context, st *contextfs.Store, where scope.Scope) {
	if where == scope.User {
		sv.set.CommitUser(ctx, st)
	}
}
