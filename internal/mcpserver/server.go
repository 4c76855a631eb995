// Package mcpserver serves a repository's contextfs memories over the
// Model Context Protocol, so that coding agents (Claude Code, Cursor,
// Codex …) can save and search them with tool calls instead of shelling
// out to the CLI.
//
// Every tool is a thin call into the contextfs API. The server keeps one
// open Store for its whole life; the Store syncs with the files before
// every read, so memories written meanwhile by people, the CLI, git
// checkouts or another agent are seen on the next call.
//
//	s, err := contextfs.Open(ctx, contextfs.Options{Dir: ".", Notices: os.Stderr})
//	err = mcpserver.New(s, mcpserver.Options{Version: "v1.2.3"}).Run(ctx, &mcp.StdioTransport{})
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

// Name is the server's name in the MCP handshake.
const Name = "contextfs"

// Options configure New.
type Options struct {
	// Version is reported to clients in the handshake; "" means "dev".
	Version string
	// Log receives diagnostics: auto-index hints and failures, and the
	// stack of a tool that panicked. With the stdio transport it must not
	// be stdout, which carries the protocol; nil discards them.
	Log io.Writer
	// Service runs the tools' workflows, over the stores behind the scope
	// and repos arguments; nil means the service of the served store
	// (workflow.ForStore), with the user store opened on demand and
	// warnings going to Log.
	Service *workflow.Service
}

// instructions tell the agent, once per session, when the tools are worth
// calling: agents use memory well only when told to look before they work
// and to write down what they learn.
const instructions = `contextfs is this repository's shared, git-versioned memory: decisions,
facts, error fixes and procedures that people and agents wrote down.
At the start of a session, call get_context (with a task when you know
it): it returns the project brief, architecture, current progress, the last
session, the user's preferences, open work and the memories on the code
this branch changes, each with an ID that recall_memory opens. Then call
session with action start (it joins the session a hook may have started
already); the memories you save are tied to the session, and at the end
call session with action end and a short summary of what was done, which
is saved as a memory that teammates see in review.
Before non-trivial work, call search_memory with a description of the task
(searches are by meaning as well as by keyword; kind code, doc or commit
searches the indexed code, docs and history). When you make a decision,
fix a non-obvious error or learn how something is done, record it with
save_memory; memories are files under .contextfs/ that are committed and
reviewed like code. When a memory is wrong, fix it with update_memory;
when what it says has changed, write its new version with evolve_memory.
Preferences of the person you work for (type user) are saved in their own
store, which follows them across repositories; searches cover both.`

// server holds what the tool handlers share.
type server struct {
	store   *contextfs.Store
	svc     *workflow.Service // the workflows, as the CLI runs them: store, the user store, registered repositories
	log     io.Writer
	version string // of the program serving, compared by check_setup
	// mu serializes tool calls: every call syncs and may write the cache
	// and the memory files, and the SDK handles requests concurrently.
	mu sync.Mutex
	// args is, per tool, every argument its schema has and its kind
	// (lenient.go); written while the tools are registered, read after.
	args map[string]map[string]argKind
}

// New returns an MCP server whose tools read and write the memories of s.
// The caller keeps ownership of s and closes it after the server stops.
func New(s *contextfs.Store, opts Options) *mcp.Server {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "contextfs memory", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	svc := opts.Service
	if svc == nil {
		svc = workflow.ForStore(s, nil, log)
	}
	sv := &server{store: s, svc: svc, log: log, version: version, args: map[string]map[string]argKind{}}
	sv.register(srv)
	srv.AddReceivingMiddleware(sv.lenientArgs())
	return srv
}

// errNoRepoMCP is scope.ErrNoRepo said in the tools' terms: a server
// started outside a repository serves the user store alone.
var errNoRepoMCP = errors.New(`not in a git repository: this server serves your own memories (the user store) alone; pass scope "user", or start the server with --repo DIR`)

// addTool registers a typed tool whose handler returns its structured
// result and a short text for clients that show only text. Handler errors
// become tool errors (IsError results carrying the message, which the
// model can read and act on), and a panic is turned into one too, so a
// bug in one call never takes the server — and the agent's session —
// down.
func addTool[In, Out any](sv *server, srv *mcp.Server, t *mcp.Tool, h func(context.Context, In) (Out, string, error)) {
	sv.recordArgs(t.Name, t.InputSchema)
	mcp.AddTool(srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		ctx = context.WithValue(ctx, clientKey{}, req.ClientInfo())
		sv.mu.Lock()
		defer sv.mu.Unlock()
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(sv.log, "contextfs mcp: %s panicked: %v\n%s", t.Name, r, debug.Stack())
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s: internal error: %v", t.Name, r)
			}
		}()
		gen := sv.store.IndexGeneration(ctx)
		out, text, err := h(ctx, in)
		// A call that changed the memories leaves the next one the search
		// state to bring up to date: do it as the answer goes out.
		if sv.store.IndexGeneration(ctx) != gen {
			sv.store.PrepareSearchLater()
		}
		if errors.Is(err, workflow.ErrNoRepo) {
			// ErrNoRepo's own advice names the CLI's flag; an agent
			// has the scope argument, or its client's --repo.
			return nil, out, errNoRepoMCP
		}
		if err != nil {
			return nil, out, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
	})
}
