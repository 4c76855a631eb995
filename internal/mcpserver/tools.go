package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// SaveInput is the argument of save_memory. Every tool names an argument
// as the CLI names its flag (`--tag` is tag, `--add-path` add_path), a
// repeatable flag taking a list: one name for one thing across the tools,
// which TestArgumentNamesAreOneScheme holds them to.
type SaveInput struct {
	Type       string         `json:"type" jsonschema:"decision, fact, error, procedural, user (a preference), progress, todo… (get_type_schema describes each)"`
	Content    string         `json:"content" jsonschema:"Markdown body"`
	Title      string         `json:"title,omitempty" jsonschema:"default: the first heading or sentence"`
	Tags       []string       `json:"tag,omitempty"`
	Data       map[string]any `json:"data,omitempty" jsonschema:"the type's structured fields (get_type_schema)"`
	Supersedes []string       `json:"supersedes,omitempty" jsonschema:"IDs this one replaces"`
	Paths      []string       `json:"path,omitempty" jsonschema:"globs of the code it bears on, such as auth/**"`
	HygieneInput
	Scope string `json:"scope,omitempty" jsonschema:"default: user for type user"`
}

// MemoryRef names a memory written by a tool.
type MemoryRef struct {
	ID    string `json:"id" jsonschema:"the memory's ID, used by recall_memory, update_memory and delete_memory"`
	Path  string `json:"path" jsonschema:"the memory's file, relative to the repository root"`
	Type  string `json:"type"`
	Title string `json:"title"`
	Scope string `json:"scope,omitempty" jsonschema:"repo or user: the store that holds the memory"`
}

// SaveOutput is the result of save_memory.
type SaveOutput struct {
	MemoryRef
	// Warnings are possible secrets; the memory was written anyway, as the
	// CLI does, because the pre-commit hook is what keeps them out of git.
	Warnings []string `json:"warnings,omitempty" jsonschema:"possible secrets found in the memory: remove them with update_memory, the pre-commit hook will refuse the file"`
	HygieneOutput
}

// SearchInput is the argument of search_memory.
type SearchInput struct {
	Query  string   `json:"query" jsonschema:"what to look for, in words"`
	Kind   []string `json:"kind,omitempty" jsonschema:"memory (default), code, doc, commit or all"`
	Type   string   `json:"type,omitempty" jsonschema:"only this memory type"`
	Tags   []string `json:"tag,omitempty" jsonschema:"only memories with all of these"`
	Limit  int      `json:"limit,omitempty" jsonschema:"default 10"`
	Mode   string   `json:"mode,omitempty"`
	Scope  string   `json:"scope,omitempty"`
	Repos  []string `json:"repos,omitempty" jsonschema:"registered repositories (list_repos), or all"`
	Tests  string   `json:"tests,omitempty" jsonschema:"test code: include (default), exclude or only"`
	Group  string   `json:"group,omitempty" jsonschema:"file: one result per file"`
	Detail bool     `json:"detail,omitempty" jsonschema:"add snippets, paths, tags, dates and scores"`
}

// SearchOutput is the result of search_memory.
type SearchOutput struct {
	Results []SearchHit `json:"results" jsonschema:"best first"`
}

// SearchHit is one result of search_memory. By default it says only what
// an agent needs to pick a result and open it with recall_memory; detail
// adds the rest of what the search knows (a default answer of ten
// results was about 7 KB, most of it commits with each SHA twice).
type SearchHit struct {
	ID      string `json:"id" jsonschema:"for recall_memory: a memory ID, path:start-end for code, a SHA for a commit"`
	Kind    string `json:"kind,omitempty" jsonschema:"code, doc or commit; absent for a memory"`
	Type    string `json:"type,omitempty" jsonschema:"the memory type; absent when it is the kind"`
	Title   string `json:"title"`
	Scope   string `json:"scope,omitempty" jsonschema:"user for the person's own store; absent for the repository"`
	Repo    string `json:"repo,omitempty" jsonschema:"the registered repository it came from"`
	Relaxed bool   `json:"relaxed,omitempty" jsonschema:"the query's quotes, OR or -word matched nothing; this matches its words"`
	// Detail: only with detail. Results come best first, so the default
	// answer leaves the scores out too: what fits ten results in 2 KB.
	Score     float64                 `json:"score,omitempty"`
	Path      string                  `json:"path,omitempty"`
	Snippet   string                  `json:"snippet,omitempty"`
	Tags      []string                `json:"tags,omitempty"`
	Updated   *time.Time              `json:"updated,omitempty"`
	Keyword   float64                 `json:"keyword_score,omitempty"`
	Semantic  float64                 `json:"semantic_score,omitempty"`
	Symbol    string                  `json:"symbol,omitempty"`
	Language  string                  `json:"language,omitempty"`
	StartLine int                     `json:"start_line,omitempty"`
	EndLine   int                     `json:"end_line,omitempty"`
	Test      bool                    `json:"test,omitempty"`
	FileScore float64                 `json:"file_score,omitempty"`
	Chunks    []contextfs.ChunkResult `json:"chunks,omitempty"`
}

// IDInput is the argument of the tools that take one memory.
type IDInput struct {
	ID    string `json:"id" jsonschema:"ID or unique prefix"`
	Scope string `json:"scope,omitempty"`
}

// RecallInput is the argument of recall_memory: a memory, and what is
// around it (the CLI's related and lineage).
type RecallInput struct {
	IDInput
	Depth   int    `json:"depth,omitempty" jsonschema:"add memories up to this many links away"`
	Rel     string `json:"rel,omitempty" jsonschema:"depth: only this relation"`
	Lineage bool   `json:"lineage,omitempty" jsonschema:"add its versions"`
}

// RecallOutput is a memory read whole, with what recall_memory was asked
// to add.
type RecallOutput struct {
	*memory.Memory
	Related  []workflow.Neighbour `json:"related,omitempty" jsonschema:"with depth: linked memories, both directions"`
	Versions []workflow.Version   `json:"versions,omitempty" jsonschema:"with lineage: oldest first"`
}

// ListInput is the argument of list_memories.
type ListInput struct {
	Type  string   `json:"type,omitempty" jsonschema:"only this memory type"`
	Tags  []string `json:"tag,omitempty" jsonschema:"only memories with all of these"`
	Limit int      `json:"limit,omitempty" jsonschema:"default: all"`
	Scope string   `json:"scope,omitempty"`
}

// ListOutput is the result of list_memories.
type ListOutput struct {
	Memories []workflow.Entry `json:"memories" jsonschema:"newest first; superseded memories are left out; scope says which store"`
}

// UpdateInput is the argument of update_memory. Title and Content are
// pointers so that leaving them out differs from clearing them.
type UpdateInput struct {
	ID          string         `json:"id" jsonschema:"ID or unique prefix"`
	Title       *string        `json:"title,omitempty"`
	Content     *string        `json:"content,omitempty" jsonschema:"a new Markdown body, replacing the old one"`
	AddTags     []string       `json:"add_tag,omitempty"`
	RemoveTags  []string       `json:"remove_tag,omitempty"`
	Data        map[string]any `json:"data,omitempty" jsonschema:"merged into data; null deletes a field"`
	AddPaths    []string       `json:"add_path,omitempty" jsonschema:"globs of code to attach it to"`
	RemovePaths []string       `json:"remove_path,omitempty"`
	Scope       string         `json:"scope,omitempty"`
}

// UpdateOutput is the result of update_memory.
type UpdateOutput struct {
	MemoryRef
	Changed bool `json:"changed" jsonschema:"false when the update asked for nothing new and the file was left alone"`
	// Warnings are possible secrets in the file as written, as save_memory
	// reports them.
	Warnings []string `json:"warnings,omitempty" jsonschema:"possible secrets found in the memory: remove them with update_memory, the pre-commit hook will refuse the file"`
}

// DeleteOutput is the result of delete_memory.
type DeleteOutput struct {
	ID    string `json:"id"`
	Path  string `json:"path" jsonschema:"the deleted file; git keeps its history"`
	Scope string `json:"scope" jsonschema:"repo or user: the store it was deleted from"`
	// LinkedFrom are the memories whose links now name no memory.
	LinkedFrom []string `json:"linked_from,omitempty" jsonschema:"memories that linked to the deleted one: their links now name no memory, which validate reports; unlink them"`
}

// ReposOutput is the result of list_repos.
type ReposOutput struct {
	Repos []RepoRef `json:"repos" jsonschema:"the registered repositories, searched with search_memory's repos"`
}

// RepoRef is a registered repository.
type RepoRef struct {
	Name string `json:"name" jsonschema:"what search_memory's repos takes"`
	ID   string `json:"id" jsonschema:"the identity shared by every clone: the remote URL as host/path"`
	Path string `json:"path" jsonschema:"the clone searched"`
}

// StatusOutput is the result of memory_status.
type StatusOutput struct {
	Memories int                 `json:"memories" jsonschema:"the number of readable memories"`
	ByType   map[string]int      `json:"by_type" jsonschema:"memories per type"`
	Files    int                 `json:"files" jsonschema:"memory files, readable or not"`
	Invalid  []contextfs.Problem `json:"invalid,omitempty" jsonschema:"memory files that cannot be read or fail validation, with the line and the reason"`
	Code     map[string]int      `json:"code,omitempty" jsonschema:"indexed code chunks per language"`
	Commits  int                 `json:"commits" jsonschema:"indexed commits"`
}

// register adds every tool to srv. The descriptions say when to use a
// tool, in a sentence or two: every session pays for the whole list
// (TestToolListFitsTheBudget), and the details are in docs/MCP.md.
func (sv *server) register(srv *mcp.Server) {
	addTool(sv, srv, &mcp.Tool{
		Name:        "save_memory",
		Description: "Record a decision, fact, error fix, procedure or preference for the team and later sessions, as a Markdown file under .contextfs/ committed with the code.",
		Annotations: &mcp.ToolAnnotations{Title: "Save a memory", DestructiveHint: new(false)},
		InputSchema: inputSchema[SaveInput](map[string][]string{"scope": {string(workflow.Repo), string(workflow.User)}}),
	}, sv.save)
	addTool(sv, srv, &mcp.Tool{
		Name:        "search_memory",
		Description: "Search what the team wrote down, by keyword and meaning, before non-trivial work; kind code, doc or commit searches the indexed code, docs and history.",
		Annotations: &mcp.ToolAnnotations{Title: "Search memories", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[SearchInput](map[string][]string{"mode": {contextfs.ModeHybrid, contextfs.ModeKeyword, contextfs.ModeSemantic}}),
	}, sv.search)
	addTool(sv, srv, &mcp.Tool{
		Name:        "recall_memory",
		Description: "Read a memory whole, or a code chunk or commit by the id search_memory gave it; optionally with its linked memories and versions.",
		Annotations: &mcp.ToolAnnotations{Title: "Read a memory", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[RecallInput](nil),
	}, sv.recall)
	addTool(sv, srv, &mcp.Tool{
		Name:        "list_memories",
		Description: "List memories, newest first.",
		Annotations: &mcp.ToolAnnotations{Title: "List memories", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[ListInput](nil),
	}, sv.list)
	addTool(sv, srv, &mcp.Tool{
		Name:        "update_memory",
		Description: "Correct a memory in place. When the knowledge itself changed, use evolve_memory.",
		Annotations: &mcp.ToolAnnotations{Title: "Update a memory", DestructiveHint: new(false), IdempotentHint: true},
		InputSchema: inputSchema[UpdateInput](nil),
	}, sv.update)
	addTool(sv, srv, &mcp.Tool{
		Name:        "delete_memory",
		Description: "Delete a memory that is wrong (git keeps its history); an outdated one is better evolved.",
		Annotations: &mcp.ToolAnnotations{Title: "Delete a memory", DestructiveHint: new(true), IdempotentHint: true},
		InputSchema: inputSchema[IDInput](nil),
	}, sv.delete)
	addTool(sv, srv, &mcp.Tool{
		Name:        "memory_status",
		Description: "Count memories by type and list the memory files that are invalid.",
		Annotations: &mcp.ToolAnnotations{Title: "Memory status", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[struct{}](nil),
	}, sv.status)
	addTool(sv, srv, &mcp.Tool{
		Name:        "list_repos",
		Description: "List (or add) the registered repositories that search_memory's and get_context's repos read.",
		Annotations: &mcp.ToolAnnotations{Title: "List repositories", IdempotentHint: true},
		InputSchema: inputSchema[ReposInput](nil),
	}, sv.listRepos)
	sv.registerChecks(srv)
	sv.registerAgents(srv)
	sv.registerHygiene(srv)
}

// parseScope reads a tool's scope argument.
func parseScope(v string) (workflow.Scope, error) {
	sc, err := workflow.ParseScope(v)
	if err != nil {
		return "", fmt.Errorf("scope: %w", err)
	}
	return sc, nil
}

// checkLimit refuses a limit out of range, as the CLI's --limit does: 0
// is the default, a negative one means nothing, and one above most (0:
// no bound) is more than the tool returns. Checked here, once, because a
// search of several stores skips a store that fails: a limit every store
// refused read as "no matches".
func checkLimit(n, most int) error {
	if n < 0 {
		return fmt.Errorf("limit must be 0 (the default) or more, not %d", n)
	}
	if most > 0 && n > most {
		return fmt.Errorf("limit must be at most %d, not %d", most, n)
	}
	return nil
}

func (sv *server) listRepos(ctx context.Context, in ReposInput) (ReposOutput, string, error) {
	added, err := sv.addRepo(ctx, in) // repos.go
	if err != nil {
		return ReposOutput{}, "", err
	}
	repos, err := workflow.RegisteredRepos()
	if err != nil {
		return ReposOutput{}, "", err
	}
	out := ReposOutput{Repos: []RepoRef{}}
	var b strings.Builder
	for _, e := range repos {
		out.Repos = append(out.Repos, RepoRef(e))
		fmt.Fprintf(&b, "%s  %s  %s\n", e.Name, e.ID, e.Path)
	}
	if len(out.Repos) == 0 {
		return out, "no registered repositories (git contextfs repos add PATH registers one)", nil
	}
	return out, added + strings.TrimRight(b.String(), "\n"), nil
}

func refOf(m *memory.Memory, sc workflow.Scope) MemoryRef {
	return MemoryRef{ID: m.ID, Path: m.Path, Type: m.Type, Title: m.Title, Scope: string(sc)}
}

func (sv *server) save(ctx context.Context, in SaveInput) (SaveOutput, string, error) {
	return sv.checkedSave(ctx, in) // hygiene.go: duplicates, may_supersede, progress
}

func (sv *server) search(ctx context.Context, in SearchInput) (SearchOutput, string, error) {
	if err := workflow.CheckQuery(in.Query); err != nil {
		return SearchOutput{}, "", err
	}
	sc, err := parseScope(in.Scope)
	if err != nil {
		return SearchOutput{}, "", err
	}
	if err := checkLimit(in.Limit, contextfs.MaxSearchLimit); err != nil {
		return SearchOutput{}, "", err
	}
	q := contextfs.Query{Text: in.Query, Kinds: searchKinds(in), Tags: in.Tags, Limit: in.Limit, Mode: in.Mode, Tests: in.Tests, Group: in.Group}
	if in.Type != "" {
		q.Types = []string{in.Type}
	}
	if sc != workflow.User && wantsIndex(q) {
		sv.autoIndex(ctx, q)
	}
	res, err := sv.svc.Search(ctx, workflow.SearchRequest{Query: q, Scope: sc, Repos: in.Repos})
	if err != nil {
		return SearchOutput{}, "", err
	}
	out := SearchOutput{Results: make([]SearchHit, len(res))}
	if len(res) == 0 {
		text := "no matches"
		if slices.Equal(q.Kinds, []string{kindMemory}) {
			text = "no memories match (kind code, doc, commit or all searches the indexed code, docs and history)"
		}
		return out, text, nil
	}
	var b strings.Builder
	for i, r := range res {
		h := hitOf(r, in.Detail)
		out.Results[i] = h
		what := h.Type
		if h.Kind != "" {
			what = h.Kind
		}
		fmt.Fprintf(&b, "%s %s: %s", h.ID, what, h.Title)
		if in.Detail {
			fmt.Fprintf(&b, " (score %.3f)", h.Score)
		}
		switch {
		case h.Repo != "":
			b.WriteString(" (" + h.Repo + ")")
		case h.Scope != "":
			b.WriteString(" (" + h.Scope + ")")
		}
		if h.Relaxed {
			b.WriteString(" (its words, not the phrase)")
		}
		b.WriteString("\n")
		if in.Detail && r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return out, strings.TrimRight(b.String(), "\n"), nil
}

// kindMemory is the result kind of a memory (contextfs.Query.Kinds).
const kindMemory = "memory"

// searchKinds is the kinds a search asks for: the memories alone unless
// the arguments ask for code, docs or commits (kind, a type of theirs,
// tests, group), so that what the team wrote down is not buried under
// code chunks and commits that mention the same words; "all" is every
// kind, memories first.
func searchKinds(in SearchInput) []string {
	if slices.Contains(in.Kind, "all") {
		return nil
	}
	if len(in.Kind) > 0 || in.Type != "" || in.Tests != "" || in.Group != "" {
		return in.Kind
	}
	return []string{kindMemory}
}

// wantsIndex says whether a search may return code or commits, whose
// index autoIndex refreshes first.
func wantsIndex(q contextfs.Query) bool {
	if len(q.Kinds) == 0 {
		return true
	}
	return slices.ContainsFunc(q.Kinds, func(k string) bool { return k != kindMemory })
}

// maxHitTitle is how much of a title a default search result shows: a
// title derived from a long first sentence would otherwise fill the
// answer; recall_memory and detail give it whole.
const maxHitTitle = 80

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// hitOf is r as search_memory returns it: the ID, the kind or type, the
// title and the score, each once; detail adds the rest.
func hitOf(r workflow.Result, detail bool) SearchHit {
	h := SearchHit{ID: r.ID, Type: r.Type, Title: r.Title, Repo: r.Repo, Relaxed: r.Relaxed}
	if r.Kind != kindMemory {
		h.Kind = r.Kind
		if r.Type == r.Kind {
			h.Type = ""
		}
	}
	if r.Scope != workflow.Repo {
		h.Scope = string(r.Scope)
	}
	if !detail {
		h.Title = clip(h.Title, maxHitTitle)
		return h
	}
	h.Score = r.Score
	h.Path, h.Snippet, h.Tags, h.Keyword, h.Semantic = r.Path, r.Snippet, r.Tags, r.Keyword, r.Semantic
	h.Symbol, h.Language, h.StartLine, h.EndLine, h.Test, h.FileScore, h.Chunks = r.Symbol, r.Language, r.StartLine, r.EndLine, r.Test, r.FileScore, r.Chunks
	if !r.Updated.IsZero() {
		u := r.Updated
		h.Updated = &u
	}
	return h
}

// autoIndex keeps the code index fresh before a search that may return
// code or commits, as the CLI does. A failure only costs freshness, so it
// is logged rather than returned: the memories are still searchable.
func (sv *server) autoIndex(ctx context.Context, q contextfs.Query) {
	if len(q.Types) > 0 && !slices.Contains(q.Types, "code") && !slices.Contains(q.Types, "commit") {
		return
	}
	hint, err := sv.store.AutoIndex(ctx, nil)
	switch {
	case err != nil:
		fmt.Fprintf(sv.log, "contextfs mcp: code index not refreshed: %v\n", err)
	case hint != "":
		fmt.Fprintln(sv.log, hint)
	}
}

func (sv *server) recall(ctx context.Context, in RecallInput) (RecallOutput, string, error) {
	sc, err := parseScope(in.Scope)
	if err != nil {
		return RecallOutput{}, "", err
	}
	if in.Depth < 0 {
		return RecallOutput{}, "", fmt.Errorf("depth must be 0 (no linked memories) or more, not %d", in.Depth)
	}
	if in.Rel != "" {
		if err := workflow.CheckRel(in.Rel); err != nil {
			return RecallOutput{}, "", err
		}
	}
	// Code chunks and commits are recallable by the IDs search gives them.
	res, err := sv.svc.Recall(ctx, workflow.RecallRequest{ID: in.ID, Scope: sc, Depth: in.Depth, Rel: in.Rel, Lineage: in.Lineage, Indexed: true})
	if err != nil {
		return RecallOutput{}, "", err
	}
	if x := res.Indexed; x != nil {
		return RecallOutput{Memory: indexedMemory(x)}, indexedText(x), nil
	}
	m := res.Memory
	out := RecallOutput{Memory: m, Related: res.Related, Versions: res.Versions}
	text := "# " + m.Path + "\n" + string(res.Raw)
	if in.Depth > 0 {
		text += "\n# related\n" + relatedText(out.Related)
	}
	if in.Lineage {
		text += "\n# versions\n" + versionsText(out.Versions)
	}
	return out, text, nil
}

func (sv *server) list(ctx context.Context, in ListInput) (ListOutput, string, error) {
	if err := checkLimit(in.Limit, 0); err != nil {
		return ListOutput{}, "", err
	}
	o := contextfs.ListOptions{Limit: in.Limit}
	if in.Type != "" {
		o.Types = []string{in.Type}
	}
	o.Tags = in.Tags
	sc, err := parseScope(in.Scope)
	if err != nil {
		return ListOutput{}, "", err
	}
	es, err := sv.svc.List(ctx, sc, o)
	if err != nil {
		return ListOutput{}, "", err
	}
	if len(es) == 0 {
		return ListOutput{Memories: es}, "no memories", nil
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s  %s  %s  %s  (%s)\n", e.ID, e.Type, e.Updated.Format("2006-01-02"), e.Title, e.Scope)
	}
	return ListOutput{Memories: es}, strings.TrimRight(b.String(), "\n"), nil
}

func (sv *server) update(ctx context.Context, in UpdateInput) (UpdateOutput, string, error) {
	sc, err := parseScope(in.Scope)
	if err != nil {
		return UpdateOutput{}, "", err
	}
	res, err := sv.svc.Update(ctx, sc, in.ID, workflow.UpdatePatch{Title: in.Title, Body: in.Content, AddTags: in.AddTags,
		RemoveTags: in.RemoveTags, Data: in.Data, AddPaths: in.AddPaths, RemovePaths: in.RemovePaths})
	if err != nil {
		return UpdateOutput{}, "", err
	}
	out := UpdateOutput{MemoryRef: refOf(res.Memory, res.Scope), Changed: res.Changed}
	if !res.Changed {
		return out, fmt.Sprintf("nothing changed: %s %s already holds what was asked; the file was left alone", out.ID, out.Path), nil
	}
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	return out, fmt.Sprintf("updated %s %s (%s)", out.ID, out.Path, res.Scope), nil
}

// indexedMemory presents a code chunk or commit in recall_memory's shape:
// a memory of type code or commit whose body is the chunk or message.
func indexedMemory(x *contextfs.Indexed) *memory.Memory {
	m := &memory.Memory{ID: x.ID, Type: x.Kind, Title: x.Title, Path: x.Path, Body: x.Text, Author: x.Author}
	if x.Kind == "code" {
		m.Data = map[string]any{"symbol": x.Symbol, "language": x.Language, "start_line": x.StartLine, "end_line": x.EndLine}
	} else {
		m.Data = map[string]any{"sha": x.ID, "date": x.Date}
		if t, err := time.Parse(time.RFC3339, x.Date); err == nil {
			m.Created, m.Updated = t, t
		}
	}
	return m
}

func indexedText(x *contextfs.Indexed) string {
	if x.Kind == "code" {
		return fmt.Sprintf("# %s:%d-%d  %s (%s)\n%s", x.Path, x.StartLine, x.EndLine, x.Title, x.Language, x.Text)
	}
	return fmt.Sprintf("commit %s\nAuthor: %s\nDate:   %s\n\n%s", x.ID, x.Author, x.Date, x.Text)
}

func (sv *server) delete(ctx context.Context, in IDInput) (DeleteOutput, string, error) {
	sc, err := parseScope(in.Scope)
	if err != nil {
		return DeleteOutput{}, "", err
	}
	res, err := sv.svc.Delete(ctx, sc, in.ID)
	if err != nil {
		return DeleteOutput{}, "", err
	}
	m, from := res.Memory, res.LinkedFrom
	text := fmt.Sprintf("deleted %s %s (%s)", m.ID, m.Path, res.Scope)
	if len(from) > 0 {
		text += fmt.Sprintf("; %s linked to it: unlink them (unlink their links to %s), or validate will report them", strings.Join(from, ", "), m.ID)
	}
	return DeleteOutput{ID: m.ID, Path: m.Path, Scope: string(res.Scope), LinkedFrom: from}, text, nil
}

func (sv *server) status(ctx context.Context, _ struct{}) (StatusOutput, string, error) {
	st, err := sv.store.Status(ctx)
	if err != nil {
		return StatusOutput{}, "", err
	}
	out := StatusOutput{Memories: st.Memories, ByType: st.ByType, Files: st.Files, Invalid: st.Invalid, Code: st.Code, Commits: st.Commits}
	if out.ByType == nil {
		out.ByType = map[string]int{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d memories in %d files", st.Memories, st.Files)
	for _, t := range slices.Sorted(maps.Keys(out.ByType)) {
		fmt.Fprintf(&b, "\n  %-12s %d", t, out.ByType[t])
	}
	if len(st.Invalid) > 0 {
		fmt.Fprintf(&b, "\n%d problem files:", len(st.Invalid))
		for _, p := range st.Invalid {
			b.WriteString("\n  " + p.String())
		}
	}
	return out, b.String(), nil
}
