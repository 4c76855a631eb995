package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/memory"
	"github.com/contextfs/contextfs/scope"
	"github.com/contextfs/contextfs/workflow"
)

// SaveInput is the argument of save_memory.
type SaveInput struct {
	Type       string         `json:"type" jsonschema:"the memory type, such as decision, fact, error or procedural (aliases like adr or note work too)"`
	Content    string         `json:"content" jsonschema:"the memory's Markdown body; its first heading or sentence becomes the title unless title is given"`
	Title      string         `json:"title,omitempty" jsonschema:"a short title (default: derived from content)"`
	Tags       []string       `json:"tags,omitempty" jsonschema:"tags, such as the component or topic"`
	Data       map[string]any `json:"data,omitempty" jsonschema:"structured fields of the type (for a decision, for example: decision, status, rationale); they are validated against the type's JSON Schema"`
	Supersedes []string       `json:"supersedes,omitempty" jsonschema:"IDs (or unique prefixes) of memories this one replaces; they are then hidden from search"`
	Paths      []string       `json:"paths,omitempty" jsonschema:"globs of the code this memory bears on, relative to the repository root, such as auth/** (it is then shown to agents changing those files)"`
	HygieneInput
	Scope string `json:"scope,omitempty" jsonschema:"repo (the repository's shared memory) or user (the person's own store, which follows them across repositories and is never committed to a team's repository); default: user for the user type, else repo"`
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
	Query string   `json:"query" jsonschema:"what to look for, in words: matched by keyword and by meaning"`
	Type  string   `json:"type,omitempty" jsonschema:"only this memory type; or code, doc or commit for indexed source code, documentation files (and doc memories) and commits"`
	Kind  []string `json:"kind,omitempty" jsonschema:"only results of these kinds: memory, code, doc, commit (default: all, every memory first)"`
	Tags  []string `json:"tags,omitempty" jsonschema:"only memories with all of these tags"`
	Limit int      `json:"limit,omitempty" jsonschema:"at most this many results (default 10, at most 1000)"`
	Mode  string   `json:"mode,omitempty" jsonschema:"hybrid (default), keyword or semantic"`
	Scope string   `json:"scope,omitempty" jsonschema:"repo, user or all (default): the repository's memories, the person's own, or both"`
	Repos []string `json:"repos,omitempty" jsonschema:"also search these registered repositories (names from list_repos), or all"`
	Tests string   `json:"tests,omitempty" jsonschema:"test code: include (default, ranked below other code of equal relevance), exclude or only"`
	Group string   `json:"group,omitempty" jsonschema:"file: one result per file with its best chunks under it, for where-is-X-handled questions"`
}

// SearchOutput is the result of search_memory.
type SearchOutput struct {
	Results []scope.Result `json:"results" jsonschema:"best first; a memory's id is its ID, a code chunk's is path:start-end; scope says which store, repo which registered repository"`
}

// IDInput is the argument of the tools that take one memory.
type IDInput struct {
	ID    string `json:"id" jsonschema:"the memory's ID or a unique prefix of it"`
	Scope string `json:"scope,omitempty" jsonschema:"repo, user or all (default: both stores; a prefix matching a memory in each is ambiguous, a full ID is its memory)"`
}

// ListInput is the argument of list_memories.
type ListInput struct {
	Type  string `json:"type,omitempty" jsonschema:"only this memory type"`
	Tag   string `json:"tag,omitempty" jsonschema:"only memories with this tag"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many memories (default: all)"`
	Scope string `json:"scope,omitempty" jsonschema:"repo, user or all (default)"`
}

// ListOutput is the result of list_memories.
type ListOutput struct {
	Memories []scope.Entry `json:"memories" jsonschema:"newest first; superseded memories are left out; scope says which store"`
}

// UpdateInput is the argument of update_memory. Title and Body are
// pointers so that leaving them out differs from clearing them.
type UpdateInput struct {
	ID          string         `json:"id" jsonschema:"the memory's ID or a unique prefix of it"`
	Title       *string        `json:"title,omitempty" jsonschema:"a new title"`
	Body        *string        `json:"body,omitempty" jsonschema:"a new Markdown body, replacing the old one whole (a title derived from the old body is derived again)"`
	AddTags     []string       `json:"add_tags,omitempty" jsonschema:"tags to add"`
	RemoveTags  []string       `json:"remove_tags,omitempty" jsonschema:"tags to remove"`
	Data        map[string]any `json:"data,omitempty" jsonschema:"fields merged into the structured data; a null value deletes the field"`
	AddPaths    []string       `json:"add_paths,omitempty" jsonschema:"globs of code to attach the memory to"`
	RemovePaths []string       `json:"remove_paths,omitempty" jsonschema:"globs to detach the memory from"`
	Scope       string         `json:"scope,omitempty" jsonschema:"repo, user or all (default: both stores; a prefix matching a memory in each is ambiguous, a full ID is its memory)"`
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

// register adds every tool to srv.
func (sv *server) register(srv *mcp.Server) {
	addTool(sv, srv, &mcp.Tool{
		Name:        "save_memory",
		Description: "Save a new memory for the team and future sessions: a decision, a fact, an error and its fix, a procedure… It is validated, scanned for secrets and written as a Markdown file under .contextfs/ (to be committed with the code). Types:\n" + typeList(),
		Annotations: &mcp.ToolAnnotations{Title: "Save a memory", DestructiveHint: new(false)},
		InputSchema: schemaWithEnums[SaveInput](map[string][]string{"type": typeNames(true)}),
	}, sv.save)
	addTool(sv, srv, &mcp.Tool{
		Name:        "search_memory",
		Description: "Search the repository's memories (and its indexed code and commits) by keyword and by meaning. Describe what you need in words; results are ranked best first with a snippet. Call recall_memory with a memory's id to read it whole.",
		Annotations: &mcp.ToolAnnotations{Title: "Search memories", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: schemaWithEnums[SearchInput](map[string][]string{"type": typeNames(true),
			"mode": {contextfs.ModeHybrid, contextfs.ModeKeyword, contextfs.ModeSemantic}}),
	}, sv.search)
	addTool(sv, srv, &mcp.Tool{
		Name:        "recall_memory",
		Description: "Read one memory whole, from its file: its frontmatter fields (type, title, tags, data, dates…) and its Markdown body. Also opens the code chunks (path:start-end) and commits (SHA) that search_memory returns.",
		Annotations: &mcp.ToolAnnotations{Title: "Read a memory", ReadOnlyHint: true, IdempotentHint: true},
	}, sv.recall)
	addTool(sv, srv, &mcp.Tool{
		Name:        "list_memories",
		Description: "List memories, newest first, optionally of one type or with one tag.",
		Annotations: &mcp.ToolAnnotations{Title: "List memories", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: schemaWithEnums[ListInput](map[string][]string{"type": typeNames(true)}),
	}, sv.list)
	addTool(sv, srv, &mcp.Tool{
		Name:        "update_memory",
		Description: "Change a memory in place: its title, its body, its tags or its structured data (merged). Only the changed lines of the file change. To replace a memory with a different one, save the new one with supersedes instead.",
		Annotations: &mcp.ToolAnnotations{Title: "Update a memory", DestructiveHint: new(false), IdempotentHint: true},
	}, sv.update)
	addTool(sv, srv, &mcp.Tool{
		Name:        "delete_memory",
		Description: "Delete a memory's file. Git keeps its history. Prefer update_memory, or save_memory with supersedes, when a memory is outdated rather than wrong.",
		Annotations: &mcp.ToolAnnotations{Title: "Delete a memory", DestructiveHint: new(true), IdempotentHint: true},
	}, sv.delete)
	addTool(sv, srv, &mcp.Tool{
		Name:        "memory_status",
		Description: "Count the repository's memories by type and list memory files that cannot be read or are invalid.",
		Annotations: &mcp.ToolAnnotations{Title: "Memory status", ReadOnlyHint: true, IdempotentHint: true},
	}, sv.status)
	addTool(sv, srv, &mcp.Tool{
		Name:        "list_repos",
		Description: "List the repositories the person registered (git contextfs repos add); search_memory with repos searches them together.",
		Annotations: &mcp.ToolAnnotations{Title: "List repositories", ReadOnlyHint: true, IdempotentHint: true},
	}, sv.listRepos)
	sv.registerChecks(srv)
	sv.registerAgents(srv)
	sv.registerHygiene(srv)
}

// parseScope reads a tool's scope argument.
func parseScope(v string) (scope.Scope, error) {
	sc, err := scope.Parse(v)
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

func (sv *server) listRepos(ctx context.Context, _ struct{}) (ReposOutput, string, error) {
	cfg, err := scope.LoadConfig()
	if err != nil {
		return ReposOutput{}, "", err
	}
	out := ReposOutput{Repos: []RepoRef{}}
	var b strings.Builder
	for _, e := range cfg.Repos {
		out.Repos = append(out.Repos, RepoRef(e))
		fmt.Fprintf(&b, "%s  %s  %s\n", e.Name, e.ID, e.Path)
	}
	if len(out.Repos) == 0 {
		return out, "no registered repositories (git contextfs repos add PATH registers one)", nil
	}
	return out, strings.TrimRight(b.String(), "\n"), nil
}

// typeList describes the types an agent may save, one per line, from the
// types' own schemas so that it never drifts from what Save accepts.
func typeList() string {
	var b strings.Builder
	for _, t := range memory.Types() {
		if t.Indexed {
			continue // produced by indexing, not written by agents
		}
		fmt.Fprintf(&b, "- %s: %s\n", t.Name, t.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

func refOf(m *memory.Memory, sc scope.Scope) MemoryRef {
	return MemoryRef{ID: m.ID, Path: m.Path, Type: m.Type, Title: m.Title, Scope: string(sc)}
}

func (sv *server) save(ctx context.Context, in SaveInput) (SaveOutput, string, error) {
	return sv.checkedSave(ctx, in) // hygiene.go: duplicates, may_supersede, progress
}

func (sv *server) search(ctx context.Context, in SearchInput) (SearchOutput, string, error) {
	if strings.TrimSpace(in.Query) == "" {
		return SearchOutput{}, "", errors.New("query is empty: say in words what to look for")
	}
	sc, err := parseScope(in.Scope)
	if err != nil {
		return SearchOutput{}, "", err
	}
	if err := checkLimit(in.Limit, contextfs.MaxSearchLimit); err != nil {
		return SearchOutput{}, "", err
	}
	q := contextfs.Query{Text: in.Query, Kinds: in.Kind, Tags: in.Tags, Limit: in.Limit, Mode: in.Mode, Tests: in.Tests, Group: in.Group}
	if in.Type != "" {
		q.Types = []string{in.Type}
	}
	if sc != scope.User {
		sv.autoIndex(ctx, q)
	}
	var res []scope.Result
	if len(in.Repos) > 0 {
		repos, perr := sv.set.Config.Pick(in.Repos)
		if perr != nil {
			return SearchOutput{}, "", perr
		}
		res, err = sv.set.SearchRepos(ctx, repos, sc, q)
	} else {
		res, err = sv.set.Search(ctx, sc, q)
	}
	if err != nil {
		return SearchOutput{}, "", err
	}
	if len(res) == 0 {
		return SearchOutput{Results: res}, "no matches", nil
	}
	var b strings.Builder
	for i, r := range res {
		where := r.Path
		switch {
		case r.Repo != "":
			where = r.Repo + ": " + where
		case r.Scope == scope.User:
			where = "user: " + where
		}
		fmt.Fprintf(&b, "%d. [%s] %s %q (%s, score %.3f)\n", i+1, r.ID, r.Type, r.Title, where, r.Score)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return SearchOutput{Results: res}, strings.TrimRight(b.String(), "\n"), nil
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

func (sv *server) recall(ctx context.Context, in IDInput) (*memory.Memory, string, error) {
	sc, err := parseScope(in.Scope)
	if err != nil {
		return nil, "", err
	}
	// Code chunks and commits are recallable by the IDs search gives them.
	if sv.set.Repo != nil && sc != scope.User {
		if _, err := sv.set.Repo.Sync(ctx); err != nil {
			return nil, "", err
		}
		if x, ok, err := sv.set.Repo.RecallIndexed(ctx, strings.TrimSpace(in.ID)); err != nil || ok {
			if err != nil {
				return nil, "", err
			}
			return indexedMemory(x), indexedText(x), nil
		}
	}
	if err != nil {
		return nil, "", err
	}
	m, _, st, err := sv.set.Resolve(ctx, sc, in.ID)
	if err != nil {
		return nil, "", err
	}
	raw, err := st.Repo.ReadFile(m.Path)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", m.Path, err)
	}
	return m, "# " + m.Path + "\n" + string(raw), nil
}

func (sv *server) list(ctx context.Context, in ListInput) (ListOutput, string, error) {
	if err := checkLimit(in.Limit, 0); err != nil {
		return ListOutput{}, "", err
	}
	o := contextfs.ListOptions{Limit: in.Limit}
	if in.Type != "" {
		o.Types = []string{in.Type}
	}
	if in.Tag != "" {
		o.Tags = []string{in.Tag}
	}
	sc, err := parseScope(in.Scope)
	if err != nil {
		return ListOutput{}, "", err
	}
	es, err := sv.set.List(ctx, sc, o)
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
	res, err := sv.svc.Update(ctx, sc, in.ID, workflow.UpdatePatch{Title: in.Title, Body: in.Body, AddTags: in.AddTags,
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
	var from []string
	if m, _, st, err := sv.set.Resolve(ctx, sc, in.ID); err == nil {
		from, _ = st.LinkedFrom(ctx, m.ID) // only for the warning
	}
	m, where, err := sv.set.Delete(ctx, sc, in.ID)
	if err != nil {
		return DeleteOutput{}, "", err
	}
	text := fmt.Sprintf("deleted %s %s (%s)", m.ID, m.Path, where)
	if len(from) > 0 {
		text += fmt.Sprintf("; %s linked to it: unlink them (unlink their links to %s), or validate will report them", strings.Join(from, ", "), m.ID)
	}
	return DeleteOutput{ID: m.ID, Path: m.Path, Scope: string(where), LinkedFrom: from}, text, nil
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
