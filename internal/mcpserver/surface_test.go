package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs/internal/mcpserver"
	"github.com/contextfs/contextfs/internal/testgit"
)

// surfaceBudget is what the tool list may cost an agent's context window
// before any work: the name, description and input schema of every tool,
// as JSON bytes (docs/MCP.md, "Tools").
const surfaceBudget = 10 << 10

// listTools returns the tools of a fresh server, as tools/list sends them.
func listTools(t *testing.T) []*mcp.Tool {
	t.Helper()
	cs, _, _ := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestToolListFitsTheBudget: every session pays for tools/list before it
// does anything; 24 tools came to 19 KB, save_memory alone to 4.7 KB
// (its description listed every type).
func TestToolListFitsTheBudget(t *testing.T) {
	total := 0
	var rows []string
	tools := listTools(t)
	for _, tl := range tools {
		raw, err := json.Marshal(struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema any    `json:"inputSchema"`
		}{tl.Name, tl.Description, tl.InputSchema})
		if err != nil {
			t.Fatal(err)
		}
		total += len(raw)
		rows = append(rows, fmt.Sprintf("%6d %s", len(raw), tl.Name))
	}
	sort.Strings(rows)
	t.Logf("%d tools, %d bytes:\n%s", len(tools), total, strings.Join(rows, "\n"))
	if total > surfaceBudget {
		t.Errorf("tools/list names, descriptions and input schemas come to %d bytes, more than %d", total, surfaceBudget)
	}
}

// TestArgumentNamesAreOneScheme: one thing has one argument name in every
// tool, the CLI's flag name (a repeatable flag a list), so that an agent's
// guess from one tool or from the CLI is right in the next; the strict
// input schemas refuse any other name. Each row is a concept and the
// names it could go by.
func TestArgumentNamesAreOneScheme(t *testing.T) {
	synonyms := []struct {
		want  string
		other []string
	}{
		{"content", []string{"body", "text", "markdown"}},
		{"tag", []string{"tags"}},
		{"add_tag", []string{"add_tags", "tags_add"}},
		{"remove_tag", []string{"remove_tags", "tags_remove"}},
		{"path", []string{"paths", "files", "globs"}},
		{"add_path", []string{"add_paths"}},
		{"remove_path", []string{"remove_paths"}},
		{"link", []string{"links"}},
		{"part", []string{"parts"}},
		{"id", []string{"ids", "memory_id", "memory"}},
		{"kind", []string{"kinds"}},
		{"type", []string{"types", "memory_type"}},
		{"scope", []string{"store", "scopes"}},
		{"limit", []string{"max", "max_results", "n", "top_k", "count"}},
		{"repos", []string{"repo", "repositories"}},
		{"rel", []string{"relation", "relations"}},
		{"query", []string{"q", "search"}},
		{"action", []string{"op", "command"}},
	}
	// typed[name] is the JSON type of each property, per tool: one name
	// is also one shape, but for merge_memories' list of IDs.
	typed := map[string]map[string]string{}
	for _, tl := range listTools(t) {
		raw, err := json.Marshal(tl.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		for name, p := range s.Properties {
			if typed[name] == nil {
				typed[name] = map[string]string{}
			}
			typed[name][tl.Name] = strings.NewReplacer(`"null",`, "", `,"null"`, "").Replace(fmt.Sprint(p.Type))
		}
	}
	for _, syn := range synonyms {
		for _, o := range syn.other {
			if tools := typed[o]; tools != nil {
				t.Errorf("argument %q (tools %v) is what the other tools call %q", o, slices.Sorted(maps.Keys(tools)), syn.want)
			}
		}
	}
	for name, tools := range typed {
		shapes := map[string][]string{}
		for tool, ty := range tools {
			if name == "id" && tool == "merge_memories" {
				continue
			}
			shapes[ty] = append(shapes[ty], tool)
		}
		if len(shapes) > 1 {
			t.Errorf("argument %q has different types in different tools: %v", name, shapes)
		}
	}
}

// TestDefaultSearchAnswerIsCompact: a default search_memory answer of
// ten results, its text and its structured content together, stays under
// 2 KB in a repository whose code and commits match too: it lists the
// memories, each field once, and leaves code and commits to an agent that
// asks for them. It was about 7 KB, mostly commits with each SHA twice.
func TestDefaultSearchAnswerIsCompact(t *testing.T) {
	cs, _, dir := connect(t)
	for i := range 3 {
		testgit.WriteFile(t, dir, fmt.Sprintf("deploy/step%d.go", i), fmt.Sprintf("package deploy\n\n// Step%d runs one step of the production deploy pipeline.\nfunc Step%d() error { return nil }\n", i, i))
		testgit.Run(t, dir, "add", ".")
		testgit.Run(t, dir, "commit", "-qm", fmt.Sprintf("deploy: step %d of the production deploy pipeline", i))
	}
	call(t, cs, "index", map[string]any{}, nil)
	topics := []string{"the canary stage", "database migrations", "the rollback switch", "feature flags", "the staging soak",
		"release notes", "on-call sign-off", "container images", "secrets rotation", "the smoke tests", "traffic shifting", "the freeze window"}
	for _, topic := range topics {
		// The bodies share a template, which the duplicate check would
		// rightly take for repeats: this test is about the answer's size.
		call(t, cs, "save_memory", map[string]any{"type": "procedural", "dedup": "allow", "content": fmt.Sprintf(
			"# How the production deploy pipeline handles %s\n\nThe deploy pipeline treats %s as its own step; run it from the release branch and watch the dashboard.", topic, topic)}, nil)
	}
	res := callRaw(t, cs, "search_memory", map[string]any{"query": "production deploy pipeline"})
	if res.IsError {
		t.Fatal(text(res))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out mcpserver.SearchOutput
	if err := json.Unmarshal(structured, &out); err != nil {
		t.Fatal(err)
	}
	size := len(text(res)) + len(structured)
	t.Logf("%d results: text %d bytes, structured %d bytes:\n%s\n%s", len(out.Results), len(text(res)), len(structured), text(res), structured)
	if len(out.Results) != 10 {
		t.Fatalf("%d results, want the default 10", len(out.Results))
	}
	for _, r := range out.Results {
		if r.Kind != "" {
			t.Errorf("a default search returned a %s result, %s: code and commits are for an agent that asks", r.Kind, r.ID)
		}
	}
	if size > 2<<10 {
		t.Errorf("the default answer is %d bytes, more than 2 KB", size)
	}

	// Asked for, code and commits come, each ID once in each form.
	res = callRaw(t, cs, "search_memory", map[string]any{"query": "production deploy pipeline", "kind": []string{"code", "commit"}})
	structured, _ = json.Marshal(res.StructuredContent)
	out = mcpserver.SearchOutput{}
	if err := json.Unmarshal(structured, &out); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range out.Results {
		kinds[r.Kind]++
		if n := strings.Count(text(res), r.ID); n != 1 {
			t.Errorf("%s is in the text %d times:\n%s", r.ID, n, text(res))
		}
		if n := strings.Count(string(structured), r.ID); n != 1 {
			t.Errorf("%s is in the structured result %d times: %s", r.ID, n, structured)
		}
	}
	if kinds["code"] == 0 || kinds["commit"] == 0 {
		t.Errorf("kind code and commit returned %v", kinds)
	}
}

// TestMergedToolsRefuseAnotherActionsArguments: one tool for several
// actions must not drop an argument meant for another one without a word
// (a summary given to start would be lost).
func TestMergedToolsRefuseAnotherActionsArguments(t *testing.T) {
	cs, _, _ := connect(t)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"a summary given to start", "session", map[string]any{"action": "start", "summary": "x"}, "summary is not an argument of action start"},
		{"a label given to end", "session", map[string]any{"action": "end", "label": "x"}, "label is not an argument of action end"},
		{"an unknown action", "session", map[string]any{"action": "pause"}, "pause"},
		{"full given to the index status", "index", map[string]any{"action": "status", "full": true}, "full is an argument of action run"},
		{"a negative depth", "recall_memory", map[string]any{"id": "x", "depth": -1}, "depth must be 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callRaw(t, cs, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Errorf("%s %v: error %v, %q; want a tool error saying %q", tt.tool, tt.args, res.IsError, text(res), tt.want)
			}
		})
	}
}
