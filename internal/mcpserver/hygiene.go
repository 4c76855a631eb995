package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// HygieneInput are save_memory's arguments for links and duplicates.
type HygieneInput struct {
	Links []string `json:"link,omitempty" jsonschema:"an ID, relation:ID (such as depends_on:k3x9) or a URL"`
	Dedup string   `json:"dedup,omitempty" jsonschema:"when it repeats a memory: skip (default), update, error, allow or supersede"`
}

// HygieneOutput is what save_memory found and did about duplicates.
type HygieneOutput struct {
	Action       workflow.Action  `json:"action" jsonschema:"saved, skipped (an existing memory already holds this; its ID is returned) or updated"`
	Similar      []workflow.Match `json:"similar" jsonschema:"existing memories of the same type that this one repeats"`
	MaySupersede []workflow.Match `json:"may_supersede" jsonschema:"existing memories on the same subject that this one contradicts: save again with supersedes to retire them, after checking"`
	Superseded   []workflow.Match `json:"superseded,omitempty" jsonschema:"memories this one superseded: newest wins"`
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
		MaySupersede: res.MaySupersede, Superseded: res.Superseded, Unchecked: res.Unchecked, SupersededProgress: res.SupersededProgress}}
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
	for _, m := range res.Superseded {
		text += fmt.Sprintf("\nsupersedes: %s %q (newest wins)", m.ID, m.Title)
	}
	if res.Unchecked != "" {
		text += "\nwarning: " + res.Unchecked
	}
	return out, text, nil
}

// LinkInput is the argument of link_memories.
type LinkInput struct {
	From string `json:"from" jsonschema:"the memory that links"`
	To   string `json:"to" jsonschema:"a memory or a URL"`
	Rel  string `json:"rel,omitempty" jsonschema:"related (default), depends_on, supersedes, implements, fixes…"`
}

// EvolveInput is the argument of evolve_memory.
type EvolveInput struct {
	ID       string         `json:"id"`
	Content  string         `json:"content" jsonschema:"the new version's body"`
	Title    string         `json:"title,omitempty"`
	Reason   string         `json:"reason,omitempty" jsonschema:"observation, inference, correction or decay"`
	Data     map[string]any `json:"data,omitempty" jsonschema:"merged into data; null deletes a field"`
	KeepData bool           `json:"keep_data,omitempty" jsonschema:"keep data whose figures the new content no longer states"`
}

// MergeInput is the argument of merge_memories.
type MergeInput struct {
	IDs     []string       `json:"id" jsonschema:"two or more memories of one type"`
	Content string         `json:"content,omitempty" jsonschema:"default: the bodies joined"`
	Data    map[string]any `json:"data,omitempty" jsonschema:"merged into data; null deletes a field"`
}

// SplitInput is the argument of split_memory.
type SplitInput struct {
	ID    string         `json:"id"`
	Parts []string       `json:"part" jsonschema:"the text of each part, two or more"`
	Data  map[string]any `json:"data,omitempty" jsonschema:"merged into each part's data"`
}

// SplitOutput names the parts written.
type SplitOutput struct {
	Parts []MemoryRef `json:"parts"`
}

// registerHygiene adds the tools that link and version memories.
func (sv *server) registerHygiene(srv *mcp.Server) {
	addTool(sv, srv, &mcp.Tool{
		Name:        "link_memories",
		Description: "Link a memory to another with a relation; recall_memory's depth follows links.",
		Annotations: &mcp.ToolAnnotations{Title: "Link memories", DestructiveHint: new(false), IdempotentHint: true},
		InputSchema: inputSchema[LinkInput](nil),
	}, sv.link)
	addTool(sv, srv, &mcp.Tool{
		Name:        "evolve_memory",
		Description: "When what a memory says has changed, write its new version, which supersedes it and keeps its type, tags, links and data.",
		Annotations: &mcp.ToolAnnotations{Title: "Evolve a memory", DestructiveHint: new(false)},
		InputSchema: inputSchema[EvolveInput](nil),
	}, sv.evolve)
	addTool(sv, srv, &mcp.Tool{
		Name:        "merge_memories",
		Description: "Replace memories that say the same thing with one that supersedes them.",
		Annotations: &mcp.ToolAnnotations{Title: "Merge memories", DestructiveHint: new(false)},
		InputSchema: inputSchema[MergeInput](nil),
	}, sv.merge)
	addTool(sv, srv, &mcp.Tool{
		Name:        "split_memory",
		Description: "Replace a memory that says several things with one memory per part.",
		Annotations: &mcp.ToolAnnotations{Title: "Split a memory", DestructiveHint: new(false)},
		InputSchema: inputSchema[SplitInput](nil),
	}, sv.split)
}

func (sv *server) link(ctx context.Context, in LinkInput) (LinkOutput, string, error) {
	res, err := sv.svc.Link(ctx, workflow.LinkRequest{From: in.From, To: in.To, Rel: in.Rel, Scope: workflow.All})
	if err != nil {
		return LinkOutput{}, "", err
	}
	m := res.Memory
	var ls []string
	for _, l := range m.Links {
		ls = append(ls, l.String())
	}
	text := fmt.Sprintf("%s now links to %s", m.ID, strings.Join(ls, ", "))
	if n := res.Notice(); n != "" {
		text += "\nnote: " + n
	}
	return LinkOutput{MemoryRef: refOf(m, res.Scope), TargetSupersededBy: res.TargetSupersededBy}, text, nil
}

// LinkOutput is the result of link_memories.
type LinkOutput struct {
	MemoryRef
	TargetSupersededBy []string `json:"target_superseded_by,omitempty" jsonschema:"the target is an old version: these memories supersede it"`
}

// relatedText lists linked memories for recall_memory's text, one a line.
func relatedText(ns []workflow.Neighbour) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%d %s %s->%s %s %q\n", n.Depth, n.ID, n.Via.From, n.Via.To, n.Via.Rel, n.Title)
	}
	if len(ns) == 0 {
		return "no linked memories"
	}
	return strings.TrimRight(b.String(), "\n")
}

// versionsText lists a memory's versions for recall_memory's text.
func versionsText(vs []workflow.Version) string {
	var b strings.Builder
	for _, v := range vs {
		state := "current"
		if !v.Current {
			state = "superseded by " + strings.Join(v.SupersededBy, ", ")
		}
		fmt.Fprintf(&b, "%s %q (%s; %d commits)\n", v.ID, v.Title, state, len(v.Commits))
	}
	return strings.TrimRight(b.String(), "\n")
}

// supersedingText says what a new version wrote and what it supersedes.
func supersedingText(m *memory.Memory) string {
	return fmt.Sprintf("saved %s %s, superseding %s", m.ID, m.Path, strings.Join(m.Supersedes, ", "))
}

func (sv *server) evolve(ctx context.Context, in EvolveInput) (MemoryRef, string, error) {
	res, err := sv.svc.Evolve(ctx, workflow.EvolveRequest{ID: in.ID, Scope: workflow.All, Body: in.Content, Title: in.Title,
		Reason: in.Reason, Data: in.Data, KeepData: in.KeepData})
	if err != nil {
		return MemoryRef{}, "", err
	}
	return refOf(res.Memories[0], res.Scope), supersedingText(res.Memories[0]), nil
}

func (sv *server) merge(ctx context.Context, in MergeInput) (MemoryRef, string, error) {
	var content *string // none joins the bodies
	if in.Content != "" {
		content = &in.Content
	}
	res, err := sv.svc.Merge(ctx, workflow.MergeRequest{IDs: in.IDs, Scope: workflow.All, Body: content, Data: in.Data})
	if err != nil {
		return MemoryRef{}, "", err
	}
	return refOf(res.Memories[0], res.Scope), supersedingText(res.Memories[0]), nil
}

func (sv *server) split(ctx context.Context, in SplitInput) (SplitOutput, string, error) {
	res, err := sv.svc.Split(ctx, workflow.SplitRequest{ID: in.ID, Scope: workflow.All, Parts: in.Parts, Data: in.Data})
	if err != nil {
		return SplitOutput{}, "", err
	}
	out := SplitOutput{Parts: []MemoryRef{}}
	var ids []string
	for _, m := range res.Memories {
		out.Parts = append(out.Parts, refOf(m, res.Scope))
		ids = append(ids, m.ID)
	}
	return out, "saved " + strings.Join(ids, ", "), nil
}
