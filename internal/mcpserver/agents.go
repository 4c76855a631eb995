package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// ContextInput is the argument of get_context.
type ContextInput struct {
	Task   string   `json:"task,omitempty" jsonschema:"what the session is about: adds the memories relevant to it"`
	Budget int      `json:"budget,omitempty" jsonschema:"size in tokens (default 2000)"`
	Repos  []string `json:"repos,omitempty" jsonschema:"with task: add from these registered repos, or all"`
}

// SessionInput is the argument of session: one action of the CLI's
// session command, with its flags.
type SessionInput struct {
	Action string `json:"action" jsonschema:"start joins the open session"`
	Label  string `json:"label,omitempty" jsonschema:"start: the session's subject"`
	Tool   string `json:"tool,omitempty" jsonschema:"start: default this client"`
	Model  string `json:"model,omitempty"`
	// Resume is a pointer so that leaving it out means true: the agent's
	// hook (setup claude) has usually started the session already.
	Resume  *bool  `json:"resume,omitempty" jsonschema:"start: false closes the open one first"`
	Summary string `json:"summary,omitempty" jsonschema:"end: what was done and left open"`
	Outcome string `json:"outcome,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	Message string `json:"message,omitempty" jsonschema:"log: append this (default: read the log)"`
	Session string `json:"session,omitempty" jsonschema:"log: an ended session's ID"`
}

// SessionOutput is the result of session; each action fills its fields.
type SessionOutput struct {
	// Session is the session started, joined, or open (list).
	Session *workflow.Session `json:"session,omitempty" jsonschema:"start: the session; list: the open one"`
	// Resumed says the session was already open and is kept.
	Resumed bool `json:"resumed,omitempty" jsonschema:"start: the session was already open (started by a hook or an earlier call) and is kept"`
	// Closed is the summary memory of a session that was left open.
	Closed string `json:"closed,omitempty" jsonschema:"start: ID of the summary of a session that was left open and is now closed"`
	// Memory is the summary that end saved.
	Memory *MemoryRef                `json:"memory,omitempty" jsonschema:"end: the summary memory"`
	Saved  []string                  `json:"saved,omitempty" jsonschema:"end: IDs of the memories saved in the session"`
	Ended  []workflow.SessionSummary `json:"ended,omitempty" jsonschema:"list: ended sessions, newest first"`
	Log    string                    `json:"log,omitempty" jsonschema:"log: the log read"`
}

// TypeSchemaInput is the argument of get_type_schema.
type TypeSchemaInput struct {
	Type string `json:"type"`
}

// TypeSchemaOutput is the result of get_type_schema.
type TypeSchemaOutput struct {
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Aliases     []string `json:"aliases,omitempty"`
	Schema      any      `json:"schema" jsonschema:"the JSON Schema of the type's data"`
}

// IndexInput is the argument of index.
type IndexInput struct {
	Action string `json:"action,omitempty" jsonschema:"run (default) or status"`
	Full   bool   `json:"full,omitempty" jsonschema:"run: rebuild from scratch"`
}

// IndexOutput is the result of index: what a run indexed, or the status.
type IndexOutput struct {
	*contextfs.IndexResult
	Status *contextfs.IndexStatus `json:"status,omitempty" jsonschema:"status: what is indexed, stale, removed and skipped"`
}

// registerAgents adds the tools, prompt and resources agents use to run a
// session: the context block, sessions, type schemas and the code index.
func (sv *server) registerAgents(srv *mcp.Server) {
	addTool(sv, srv, &mcp.Tool{
		Name:        "get_context",
		Description: "Call first in every session: the project's brief, progress, preferences, open work and the memories on this branch's changes (and the task's), each with an ID for recall_memory.",
		Annotations: &mcp.ToolAnnotations{Title: "Get the context block", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[ContextInput](nil),
	}, sv.getContext)
	addTool(sv, srv, &mcp.Tool{
		Name:        "session",
		Description: "Start a working session after get_context, and end it with a summary that is saved for teammates; also lists sessions and keeps a log.",
		Annotations: &mcp.ToolAnnotations{Title: "Sessions", DestructiveHint: new(false)},
		InputSchema: inputSchema[SessionInput](map[string][]string{"action": {"start", "end", "list", "log"}, "outcome": workflow.SessionOutcomes}),
	}, sv.session)
	addTool(sv, srv, &mcp.Tool{
		Name:        "get_type_schema",
		Description: "Get a memory type's description and the JSON Schema of its data, before save_memory with data.",
		Annotations: &mcp.ToolAnnotations{Title: "Get a type's schema", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[TypeSchemaInput](map[string][]string{"type": typeNames()}),
	}, sv.typeSchema)
	addTool(sv, srv, &mcp.Tool{
		Name:        "index",
		Description: "Index the repository's code and commits for search_memory, or report the index's status.",
		Annotations: &mcp.ToolAnnotations{Title: "Index code", DestructiveHint: new(false), IdempotentHint: true},
		InputSchema: inputSchema[IndexInput](map[string][]string{"action": {"run", "status"}}),
		// A run's fields or the status: none of them is always there.
		OutputSchema: func() *jsonschema.Schema {
			s, err := jsonschema.For[IndexOutput](nil)
			if err != nil {
				panic(fmt.Sprintf("output schema of index: %v", err))
			}
			s.Required = nil
			return s
		}(),
	}, sv.index)

	srv.AddPrompt(&mcp.Prompt{
		Name:        "context",
		Title:       "Project context",
		Description: "The repository's context block (see get_context), optionally focused on a task.",
		Arguments:   []*mcp.PromptArgument{{Name: "task", Description: "what the session is about"}},
	}, sv.contextPrompt)
	srv.AddResource(&mcp.Resource{
		URI: "contextfs://context", Name: "context", Title: "Project context", MIMEType: "text/markdown",
		Description: "The repository's context block (see get_context).",
	}, sv.contextResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "contextfs://memory/{id}", Name: "memory", Title: "A memory", MIMEType: "text/markdown",
		Description: "One memory's file, by ID or unique prefix.",
	}, sv.memoryResource)
}

// inputSchema is the input schema inferred from In, with the listed
// string properties restricted to their values, so that a client (and the
// model) sees the choices instead of guessing them.
func inputSchema[In any](enums map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err)) // a bug in a type above
	}
	for name, p := range s.Properties {
		// A pointer or a slice may be left out, not sent as null: one
		// type reads shorter, and every session pays for the schema.
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		if p.Type == "object" {
			p.AdditionalProperties = nil // any fields: the default
		}
		if name == "scope" && enums["scope"] == nil {
			p.Enum = []any{string(workflow.Repo), string(workflow.User), string(workflow.All)}
		}
	}
	for name, vals := range enums {
		p := s.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("input schema of %T: no property %s", *new(In), name))
		}
		p.Enum = nil
		for _, v := range vals {
			p.Enum = append(p.Enum, v)
		}
	}
	return s
}

// typeNames lists the memory types (code and commit among them, which
// search_memory takes for the auto-index's kinds); with aliases, also
// every alias the tools accept.
func typeNames() []string {
	var out []string
	for _, t := range memory.Types() {
		out = append(out, t.Name)
	}
	return out
}

// clientKey carries the calling MCP client in a tool call's context.
type clientKey struct{}

// clientSource is the provenance of a memory saved through a tool call: the
// client's name and version, as "name/version".
func clientSource(ctx context.Context) string {
	impl, _ := ctx.Value(clientKey{}).(*mcp.Implementation)
	if impl == nil || impl.Name == "" {
		return ""
	}
	if impl.Version == "" {
		return impl.Name
	}
	return impl.Name + "/" + impl.Version
}

func (sv *server) block(ctx context.Context, task string, budget int, repos []string) (*workflow.Block, error) {
	return sv.svc.Context(ctx, workflow.ContextRequest{Task: task, Budget: budget, Repos: repos})
}

func (sv *server) getContext(ctx context.Context, in ContextInput) (*workflow.Block, string, error) {
	if in.Budget < 0 {
		return nil, "", fmt.Errorf("budget must not be negative, got %d", in.Budget)
	}
	b, err := sv.block(ctx, in.Task, in.Budget, in.Repos)
	if err != nil {
		return nil, "", err
	}
	return b, b.Markdown(), nil
}

// session runs one action of the session tool.
func (sv *server) session(ctx context.Context, in SessionInput) (SessionOutput, string, error) {
	// An argument of another action is refused rather than ignored: a
	// summary given to start would be lost without a word.
	given := map[string]bool{"label": in.Label != "", "tool": in.Tool != "", "model": in.Model != "", "resume": in.Resume != nil,
		"summary": in.Summary != "", "outcome": in.Outcome != "", "limit": in.Limit != 0, "message": in.Message != "", "session": in.Session != ""}
	takes := map[string][]string{"start": {"label", "tool", "model", "resume"}, "end": {"summary", "outcome"},
		"list": {"limit"}, "log": {"message", "session"}}
	own, ok := takes[in.Action]
	if !ok {
		return SessionOutput{}, "", fmt.Errorf("action must be start, end, list or log, not %q", in.Action)
	}
	for _, arg := range slices.Sorted(maps.Keys(given)) {
		if given[arg] && !slices.Contains(own, arg) {
			return SessionOutput{}, "", fmt.Errorf("%s is not an argument of action %s (it takes %s)", arg, in.Action, strings.Join(own, ", "))
		}
	}
	switch in.Action {
	case "start":
		return sv.sessionStart(ctx, in)
	case "end":
		return sv.sessionEnd(ctx, in)
	case "list":
		return sv.sessionList(ctx, in)
	default:
		return sv.sessionLog(ctx, in)
	}
}

func (sv *server) sessionStart(ctx context.Context, in SessionInput) (SessionOutput, string, error) {
	tool := in.Tool
	if tool == "" {
		tool = clientSource(ctx)
	}
	res, err := sv.svc.SessionStart(ctx, workflow.SessionStartRequest{Label: in.Label, Tool: tool, Model: in.Model,
		Resume: in.Resume == nil || *in.Resume})
	if err != nil {
		return SessionOutput{}, "", err
	}
	if res.Resumed {
		return SessionOutput{Session: res.Session, Resumed: true},
			fmt.Sprintf("resumed session %s, open since %s", res.Session.ID, res.Session.Started.Format(time.RFC3339)), nil
	}
	out := SessionOutput{Session: res.Session}
	text := "started session " + res.Session.ID
	if res.Closed != nil {
		out.Closed = res.Closed.ID
		text += fmt.Sprintf("\nnotice: session %v was still open; it is closed now (summary %s)", res.Closed.Data["session_id"], res.Closed.ID)
	}
	return out, text, nil
}

func (sv *server) sessionEnd(ctx context.Context, in SessionInput) (SessionOutput, string, error) {
	m, err := sv.svc.SessionEnd(ctx, workflow.SessionEndRequest{Summary: in.Summary, Outcome: in.Outcome})
	if errors.Is(err, workflow.ErrNoSession) {
		// ErrNoSession names the CLI; an agent here starts one with the tool.
		return SessionOutput{}, "", errors.New(`no session is open (start one with session, action "start")`)
	}
	if err != nil {
		return SessionOutput{}, "", err
	}
	ref := refOf(m, workflow.Repo)
	out := SessionOutput{Memory: &ref}
	if xs, ok := m.Data["saved"].([]any); ok {
		for _, x := range xs {
			if s, ok := x.(string); ok {
				out.Saved = append(out.Saved, s)
			}
		}
	}
	return out, fmt.Sprintf("ended session; summary %s %s (%d memories saved in it)", m.ID, m.Path, len(out.Saved)), nil
}

func (sv *server) sessionLog(_ context.Context, in SessionInput) (SessionOutput, string, error) {
	if strings.TrimSpace(in.Message) != "" {
		if in.Session != "" {
			return SessionOutput{}, "", errors.New("a message goes to the open session's log: leave session out")
		}
		if err := sv.svc.SessionLog(in.Message); err != nil {
			return SessionOutput{}, "", err
		}
		return SessionOutput{}, "logged", nil
	}
	b, err := sv.svc.SessionReadLog(in.Session)
	if err != nil {
		return SessionOutput{}, "", err
	}
	text := string(b)
	if text == "" {
		text = "the log is empty"
	}
	return SessionOutput{Log: string(b)}, text, nil
}

func (sv *server) sessionList(ctx context.Context, in SessionInput) (SessionOutput, string, error) {
	if err := checkLimit(in.Limit, 0); err != nil {
		return SessionOutput{}, "", err
	}
	cur, list, err := sv.svc.Sessions(ctx, in.Limit)
	if err != nil {
		return SessionOutput{}, "", err
	}
	var b strings.Builder
	if cur != nil {
		fmt.Fprintf(&b, "%s open since %s\n", cur.ID, cur.Started.Format(time.RFC3339))
	}
	for _, x := range list {
		fmt.Fprintf(&b, "%s %s %s, %d saved: %s\n", x.ID, x.Ended, x.Outcome, len(x.Saved), x.Title)
	}
	if b.Len() == 0 {
		b.WriteString("no sessions")
	}
	return SessionOutput{Session: cur, Ended: list}, strings.TrimRight(b.String(), "\n"), nil
}

func (sv *server) typeSchema(_ context.Context, in TypeSchemaInput) (TypeSchemaOutput, string, error) {
	t, ok := memory.LookupType(in.Type)
	if !ok {
		_, err := memory.CanonicalType(in.Type)
		return TypeSchemaOutput{}, "", err
	}
	var schema any
	if err := json.Unmarshal(t.Schema, &schema); err != nil {
		return TypeSchemaOutput{}, "", fmt.Errorf("schema of %s: %w", t.Name, err)
	}
	return TypeSchemaOutput{Type: t.Name, Description: t.Description, Aliases: t.Aliases, Schema: schema}, string(t.Schema), nil
}

func (sv *server) index(ctx context.Context, in IndexInput) (IndexOutput, string, error) {
	switch in.Action {
	case "", "run":
	case "status":
		if in.Full {
			return IndexOutput{}, "", errors.New("full is an argument of action run, not status")
		}
		st, err := sv.store.IndexStatus(ctx)
		if err != nil {
			return IndexOutput{}, "", err
		}
		return IndexOutput{Status: st}, fmt.Sprintf("%d files, %d chunks, %d commits indexed; %d stale, %d removed", st.Files, st.Chunks, st.Commits,
			len(st.Stale), len(st.Removed)), nil
	default:
		return IndexOutput{}, "", fmt.Errorf("action must be run or status, not %q", in.Action)
	}
	res, err := sv.store.Index(ctx, contextfs.IndexOptions{Full: in.Full, Touch: true, Summary: true})
	if err != nil {
		return IndexOutput{}, "", err
	}
	return IndexOutput{IndexResult: res}, fmt.Sprintf("indexed %d files (%d parsed), %d chunks, %d commits", res.Files, res.Parsed, res.Chunks, res.Commits), nil
}

func (sv *server) contextPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	b, err := sv.block(ctx, req.Params.Arguments["task"], 0, nil)
	if err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: "The repository's context block",
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.Markdown()}}},
	}, nil
}

func (sv *server) contextResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	b, err := sv.block(ctx, "", 0, nil)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: b.Markdown()}}}, nil
}

func (sv *server) memoryResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	u, err := url.Parse(req.Params.URI)
	if err != nil || u.Scheme != "contextfs" || u.Host != "memory" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	id := strings.Trim(u.Path, "/")
	sv.mu.Lock()
	defer sv.mu.Unlock()
	// Either store, as recall_memory finds it.
	_, _, raw, err := sv.svc.Read(ctx, workflow.All, id)
	if errors.Is(err, contextfs.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if amb, ok := errors.AsType[*contextfs.AmbiguousError](err); ok {
		// A request the client can mend: say so with the protocol's code.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: amb.Error()}
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: string(raw)}}}, nil
}
