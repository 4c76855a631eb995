package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/contextblock"
	"github.com/contextfs/contextfs/memory"
	"github.com/contextfs/contextfs/scope"
	"github.com/contextfs/contextfs/session"
)

// ContextInput is the argument of get_context.
type ContextInput struct {
	Task   string `json:"task,omitempty" jsonschema:"what the session is about: adds the memories a search for it finds"`
	Budget int    `json:"budget,omitempty" jsonschema:"size of the block in tokens (estimated high); default from config, 2000"`
}

// SessionStartInput is the argument of session_start.
type SessionStartInput struct {
	Label string `json:"label,omitempty" jsonschema:"what the session is about"`
	Tool  string `json:"tool,omitempty" jsonschema:"the assistant (default: this MCP client's name)"`
	Model string `json:"model,omitempty" jsonschema:"the model behind the assistant"`
	// Resume is a pointer so that leaving it out means true: the agent's
	// hook (setup claude) has usually started the session already.
	Resume *bool `json:"resume,omitempty" jsonschema:"keep the session already open in this work tree, such as the one the agent's SessionStart hook started, giving it the label and model it lacks (default true); false closes it first, as left open, and starts a new one"`
}

// SessionStartOutput is the result of session_start.
type SessionStartOutput struct {
	Session *session.Session `json:"session"`
	// Resumed says the session was already open and is kept.
	Resumed bool `json:"resumed,omitempty" jsonschema:"the session was already open (started by a hook or an earlier call) and is kept"`
	// Closed is the summary memory of a session that was left open.
	Closed string `json:"closed,omitempty" jsonschema:"ID of the summary of a session that was still open and is now closed"`
}

// SessionEndInput is the argument of session_end.
type SessionEndInput struct {
	Summary string `json:"summary,omitempty" jsonschema:"what the session did, learned and left open, in Markdown"`
	Outcome string `json:"outcome,omitempty" jsonschema:"how it went (default success)"`
}

// SessionEndOutput is the result of session_end.
type SessionEndOutput struct {
	MemoryRef
	Saved []string `json:"saved" jsonschema:"IDs of the memories saved in the session"`
}

// SessionListInput is the argument of session_list.
type SessionListInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many ended sessions (default: all)"`
}

// SessionListOutput is the result of session_list.
type SessionListOutput struct {
	Open  *session.Session  `json:"open,omitempty" jsonschema:"the open session, if any"`
	Ended []session.Summary `json:"ended" jsonschema:"ended sessions, newest first"`
}

// SessionLogInput is the argument of session_log.
type SessionLogInput struct {
	Message string `json:"message,omitempty" jsonschema:"a message to append to the open session's log; leave out to read the log"`
	Session string `json:"session,omitempty" jsonschema:"read this ended session's log instead of the open one's"`
}

// SessionLogOutput is the result of session_log.
type SessionLogOutput struct {
	Log string `json:"log" jsonschema:"the log (empty after an append)"`
}

// TypeSchemaInput is the argument of get_type_schema.
type TypeSchemaInput struct {
	Type string `json:"type" jsonschema:"the memory type"`
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
	Full bool `json:"full,omitempty" jsonschema:"rebuild the code index from scratch"`
}

// registerAgents adds the tools, prompt and resources agents use to run a
// session: the context block, sessions, type schemas and the code index.
func (sv *server) registerAgents(srv *mcp.Server) {
	readOnly := func(title string) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true}
	}
	addTool(sv, srv, &mcp.Tool{
		Name:        "get_context",
		Description: "Get the context block for this repository: project brief, architecture, tech and product context, the latest progress, the last session, preferences, open work, memories attached to the files this branch changes, and (with task) memories relevant to the task. Every item cites its ID for recall_memory. Call it at the start of a session.",
		Annotations: readOnly("Get the context block"),
	}, sv.getContext)
	addTool(sv, srv, &mcp.Tool{
		Name:        "session_start",
		Description: "Start a working session, or join the one open in this work tree (a hook may have started it; resume false closes that one first, and the result says so). Memories saved while it is open record it. End it with session_end.",
		Annotations: &mcp.ToolAnnotations{Title: "Start a session", DestructiveHint: new(false)},
	}, sv.sessionStart)
	addTool(sv, srv, &mcp.Tool{
		Name:        "session_end",
		Description: "End the open session: saves one episodic memory with your summary, the outcome and the IDs of the memories saved in the session, for teammates to read in the pull request.",
		Annotations: &mcp.ToolAnnotations{Title: "End the session", DestructiveHint: new(false)},
		InputSchema: schemaWithEnums[SessionEndInput](map[string][]string{"outcome": session.Outcomes}),
	}, sv.sessionEnd)
	addTool(sv, srv, &mcp.Tool{
		Name:        "session_list",
		Description: "List the open session and the ended ones, newest first, with the memories each saved.",
		Annotations: readOnly("List sessions"),
	}, sv.sessionList)
	addTool(sv, srv, &mcp.Tool{
		Name:        "session_log",
		Description: "Append a message to the open session's raw log (kept in the git directory, never committed), or read a session's log.",
		Annotations: &mcp.ToolAnnotations{Title: "Session log", DestructiveHint: new(false)},
	}, sv.sessionLog)
	addTool(sv, srv, &mcp.Tool{
		Name:        "get_type_schema",
		Description: "Get the JSON Schema of a memory type's structured data, to fill save_memory's data correctly.",
		Annotations: readOnly("Get a type's schema"),
		InputSchema: schemaWithEnums[TypeSchemaInput](map[string][]string{"type": typeNames(false)}),
	}, sv.typeSchema)
	addTool(sv, srv, &mcp.Tool{
		Name:        "index",
		Description: "Index the repository's tracked code and commits for search_memory (only files never seen are parsed).",
		Annotations: &mcp.ToolAnnotations{Title: "Index code", DestructiveHint: new(false), IdempotentHint: true},
	}, sv.index)
	addTool(sv, srv, &mcp.Tool{
		Name:        "index_status",
		Description: "Report what code and history is indexed, what is stale and what was skipped, without changing anything.",
		Annotations: readOnly("Index status"),
	}, sv.indexStatus)

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

// schemaWithEnums is the input schema inferred from In, with the listed
// string properties restricted to their values, so that a client (and the
// model) sees the choices instead of guessing them.
func schemaWithEnums[In any](enums map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil // AddTool infers the schema itself
	}
	for name, vals := range enums {
		p := s.Properties[name]
		if p == nil {
			continue
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
func typeNames(aliases bool) []string {
	var out []string
	for _, t := range memory.Types() {
		out = append(out, t.Name)
		if aliases {
			out = append(out, t.Aliases...)
		}
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

func (sv *server) block(ctx context.Context, task string, budget int) (*contextblock.Block, error) {
	// Asked only when some memory has paths: (and only below them).
	changed := func(ctx context.Context, within []string) ([]string, error) {
		ch, err := sv.diff.FilesUnder(ctx, within)
		return ch.Files, err
	}
	user, err := sv.set.ExistingUser(ctx)
	if err != nil {
		user = nil // the repository's block is still worth having
	}
	return sv.blocks.Build(ctx, sv.store, contextblock.Options{Task: task, Budget: budget, ChangedUnder: changed, User: user})
}

func (sv *server) getContext(ctx context.Context, in ContextInput) (*contextblock.Block, string, error) {
	if in.Budget < 0 {
		return nil, "", fmt.Errorf("budget must not be negative, got %d", in.Budget)
	}
	b, err := sv.block(ctx, in.Task, in.Budget)
	if err != nil {
		return nil, "", err
	}
	return b, b.Markdown(), nil
}

func (sv *server) sessionStart(ctx context.Context, in SessionStartInput) (SessionStartOutput, string, error) {
	tool := in.Tool
	if tool == "" {
		tool = clientSource(ctx)
	}
	o := session.StartOptions{Label: in.Label, Tool: tool, Model: in.Model}
	if in.Resume == nil || *in.Resume {
		cur, err := session.Resume(sv.store.Repo, o)
		if err != nil {
			return SessionStartOutput{}, "", err
		}
		if cur != nil {
			return SessionStartOutput{Session: cur, Resumed: true},
				fmt.Sprintf("resumed session %s, open since %s", cur.ID, cur.Started.Format(time.RFC3339)), nil
		}
	}
	o.User = sv.user(ctx)
	res, err := session.Start(ctx, sv.store, o, time.Now())
	if err != nil {
		return SessionStartOutput{}, "", err
	}
	out := SessionStartOutput{Session: res.Session}
	text := "started session " + res.Session.ID
	if res.Closed != nil {
		out.Closed = res.Closed.ID
		text += fmt.Sprintf("\nnotice: session %v was still open; it is closed now (summary %s)", res.Closed.Data["session_id"], res.Closed.ID)
	}
	return out, text, nil
}

// user is how a session reaches the user's own store, where its saves of
// type user go: called, it opens the store (session.EndOptions.User says
// when a session needs it), or returns nil when it has not been created
// (nothing is created) or cannot be opened: a session's summary is still
// worth saving without them.
func (sv *server) user(ctx context.Context) func() *contextfs.Store {
	return func() *contextfs.Store {
		u, err := sv.set.ExistingUser(ctx)
		if err != nil {
			fmt.Fprintf(sv.log, "contextfs mcp: the user store is left out of the session: %v\n", err)
			return nil
		}
		return u
	}
}

func (sv *server) sessionEnd(ctx context.Context, in SessionEndInput) (SessionEndOutput, string, error) {
	m, err := session.End(ctx, sv.store, session.EndOptions{Summary: in.Summary, Outcome: in.Outcome, User: sv.user(ctx)}, time.Now())
	if errors.Is(err, session.ErrNoSession) {
		// ErrNoSession names the CLI; an agent here starts one with the tool.
		return SessionEndOutput{}, "", errors.New("no session is open (start one with session_start)")
	}
	if err != nil {
		return SessionEndOutput{}, "", err
	}
	out := SessionEndOutput{MemoryRef: refOf(m, scope.Repo), Saved: []string{}}
	if xs, ok := m.Data["saved"].([]any); ok {
		for _, x := range xs {
			if s, ok := x.(string); ok {
				out.Saved = append(out.Saved, s)
			}
		}
	}
	return out, fmt.Sprintf("ended session; summary %s %s (%d memories saved in it)", m.ID, m.Path, len(out.Saved)), nil
}

func (sv *server) sessionLog(_ context.Context, in SessionLogInput) (SessionLogOutput, string, error) {
	if strings.TrimSpace(in.Message) != "" {
		if in.Session != "" {
			return SessionLogOutput{}, "", errors.New("a message goes to the open session's log: leave session out")
		}
		if err := session.Log(sv.store.Repo, in.Message); err != nil {
			return SessionLogOutput{}, "", err
		}
		return SessionLogOutput{}, "logged", nil
	}
	b, err := session.ReadLog(sv.store.Repo, in.Session)
	if err != nil {
		return SessionLogOutput{}, "", err
	}
	text := string(b)
	if text == "" {
		text = "the log is empty"
	}
	return SessionLogOutput{Log: string(b)}, text, nil
}

func (sv *server) sessionList(ctx context.Context, in SessionListInput) (SessionListOutput, string, error) {
	if err := checkLimit(in.Limit, 0); err != nil {
		return SessionListOutput{}, "", err
	}
	cur, err := session.Current(sv.store.Repo)
	if err != nil {
		return SessionListOutput{}, "", err
	}
	list, err := session.List(ctx, sv.store, in.Limit)
	if err != nil {
		return SessionListOutput{}, "", err
	}
	if list == nil {
		list = []session.Summary{}
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
	return SessionListOutput{Open: cur, Ended: list}, strings.TrimRight(b.String(), "\n"), nil
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

func (sv *server) index(ctx context.Context, in IndexInput) (*contextfs.IndexResult, string, error) {
	res, err := sv.store.Index(ctx, contextfs.IndexOptions{Full: in.Full, Touch: true, Summary: true})
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("indexed %d files (%d parsed), %d chunks, %d commits", res.Files, res.Parsed, res.Chunks, res.Commits), nil
}

func (sv *server) indexStatus(ctx context.Context, _ struct{}) (*contextfs.IndexStatus, string, error) {
	st, err := sv.store.IndexStatus(ctx)
	if err != nil {
		return nil, "", err
	}
	return st, fmt.Sprintf("%d files, %d chunks, %d commits indexed; %d stale, %d removed", st.Files, st.Chunks, st.Commits,
		len(st.Stale), len(st.Removed)), nil
}

func (sv *server) contextPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	b, err := sv.block(ctx, req.Params.Arguments["task"], 0)
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
	b, err := sv.block(ctx, "", 0)
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
	m, _, st, err := sv.set.Resolve(ctx, scope.All, id)
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
	raw, err := st.Repo.ReadFile(m.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", m.Path, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: string(raw)}}}, nil
}
