package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

// registerChecks adds the tools that check the memories and the setup:
// the same Go API as `git contextfs fmt` and `git contextfs doctor`.
func (sv *server) registerChecks(srv *mcp.Server) {
	addTool(sv, srv, &mcp.Tool{
		Name:        "format_memories",
		Description: "Put memory files in canonical form (the body is never changed), or with check only list the files that would change.",
		Annotations: &mcp.ToolAnnotations{Title: "Format memory files", DestructiveHint: new(false), IdempotentHint: true},
		InputSchema: inputSchema[FormatInput](nil),
	}, sv.format)
	addTool(sv, srv, &mcp.Tool{
		Name:        "check_setup",
		Description: "When contextfs misbehaves, check its setup here as `git contextfs doctor` does; repairs are left to a person.",
		Annotations: &mcp.ToolAnnotations{Title: "Check the setup", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: inputSchema[struct{}](nil),
	}, sv.doctor)
}

// FormatInput is the argument of format_memories.
type FormatInput struct {
	Paths []string `json:"path,omitempty" jsonschema:"memory files (default: all)"`
	Check bool     `json:"check,omitempty" jsonschema:"write nothing"`
}

func (sv *server) format(_ context.Context, in FormatInput) (contextfs.FormatResult, string, error) {
	res, err := workflow.Format(sv.store, in.Paths, !in.Check)
	if err != nil {
		return contextfs.FormatResult{}, "", err
	}
	verb := "formatted"
	if in.Check {
		verb = "would change"
	}
	text := fmt.Sprintf("%d file(s) checked, %d %s", res.Files, len(res.Changed), verb)
	if len(res.Changed) > 0 {
		text += ": " + strings.Join(res.Changed, ", ")
	}
	for _, p := range res.Problems {
		text += "\n" + p.String()
	}
	return res, text, nil
}

func (sv *server) doctor(ctx context.Context, _ struct{}) (*contextfs.DoctorReport, string, error) {
	res, err := workflow.Doctor(ctx, workflow.DoctorRequest{Dir: sv.store.Repo.Root, Version: sv.version, NoRepo: sv.svc.Repo() == nil})
	if err != nil {
		return nil, "", err
	}
	rep := res.Report
	var b strings.Builder
	for _, c := range rep.Checks {
		mark := "ok"
		switch {
		case !c.OK:
			mark = "FAIL"
		case c.Warning:
			mark = "warn"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", mark, c.Name, c.Message)
	}
	return rep, strings.TrimSuffix(b.String(), "\n"), nil
}
