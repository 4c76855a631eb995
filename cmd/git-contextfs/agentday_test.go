// The end-to-end "agent day" suite (TestAgentDayInThisRepository,
// TestAgentDayInChi): the day an AI coding assistant spends with
// contextfs, played in real repositories through the real programs. In each repository it runs `git contextfs
// init` and `index`; a morning session on the CLI (session start, saves of
// a decision, a preference, an error fix and a progress note, session end);
// an afternoon session in a new MCP server process driven by the official
// MCP TypeScript SDK client (tests/mcp-client/steps.mjs): get_context and
// the context prompt with tasks that match the repository's README.md,
// CHANGELOG.md or a docs/ page, search_memory, evolve_memory, then the
// block and search again; and `git contextfs context --task` on the CLI.
//
// The repositories:
//
//   - this project's own tree: a fresh `git clone --no-hardlinks` of the
//     checkout the test runs in, so the developer's checkout is never
//     touched;
//   - go-chi/chi v5.2.3 (github.com/go-chi/chi/v5, MIT licence, Copyright
//     (c) 2015-present Peter Kieltyka and the chi authors): third-party
//     code is not committed here, so the test copies the module's tree
//     from the Go module cache into a temp dir and commits it there.
//     .ci/run downloads it (`go mod download github.com/go-chi/chi/v5@v5.2.3`);
//     the test never touches the network (GOPROXY=off).
//
// Without node, the installed SDK (`cd tests/mcp-client && npm ci`), a git
// checkout or the chi module, a test skips saying what is missing, and
// fails instead when CI is set, so that it cannot silently stop running
// in CI.
//
// Every indexed repository has Markdown doc chunks that match such tasks;
// the suite exists because `context --task` once opened those as memory
// files and failed ("CHANGELOG.md:1: no frontmatter", exit 1; isError from
// get_context), which no test of the block had seen.
//
// Between the two, a Claude Code session runs through the hooks `setup
// claude` installs (dayHooks): each command read from the
// .claude/settings.json setup wrote, run by sh with the event's JSON on
// stdin: SessionStart prints the block, UserPromptSubmit recalls the
// morning's decision for a prompt about the database and nothing for an
// unrelated one, Stop blocks once on a transcript that settles something
// without saving it (and not when stop_hook_active), SessionEnd closes the
// session without a summary.
//
// It lives in this package to use the programs TestMain builds: a package
// of its own built them again, and its race build of SQLite and the
// tree-sitter grammars took over ten minutes on a busy 2-core machine.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/testgit"
)

// The third-party repository: a Go module, so that the module proxy keeps
// it (and its checksum database vouches for it) without this repository
// committing its code.
const (
	chiModule  = "github.com/go-chi/chi/v5"
	chiVersion = "v5.2.3"
)

// The morning's memories, the same in every repository. The decision's
// data names no number, so that evolving its body (20 → 40 connections)
// leaves nothing in data to contradict it.
const (
	decisionBody = "We use PostgreSQL with connection pooling, max 20 connections per instance."
	decisionData = `{"decision":"PostgreSQL with connection pooling","status":"accepted"}`
	evolvedBody  = "We use PostgreSQL with connection pooling, max 40 connections per instance: 20 starved the background workers."
	preference   = "Prefers CHANGELOG entries in the imperative mood, newest release first, one line per change."
	errorTitle   = "too many connections in the integration tests"
	errorBody    = "The integration tests failed with 'FATAL: too many connections' from PostgreSQL: each test opened its own pool. Fix: one pool per test binary, capped at 20 connections."
	progressBody = "Connection pooling is wired in; the README install section and the CHANGELOG entry are still to write."
	searchQuery  = "PostgreSQL connection pooling max connections"
)

// dayTask is one get_context / context --task of the day: what it asks, the
// repository file it matches (a path, or a folder ending in "/"), and the
// morning memories the block must cite for it.
type dayTask struct {
	text    string
	matches string
	cites   []string // "decision", "error"
}

func TestAgentDayInThisRepository(t *testing.T) {
	node, client := dayClient(t)
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		dayMissing(t, "this test does not run in a git checkout", "run it from a clone of the repository")
	}
	dir := filepath.Join(t.TempDir(), "contextfs")
	started := time.Now()
	testgit.Run(t, filepath.Dir(dir), "clone", "-q", "--no-hardlinks", strings.TrimSpace(string(top)), dir)
	t.Logf("clone: %v", time.Since(started).Round(time.Millisecond))
	// The project has no CHANGELOG.md: its README and a docs/ page.
	playDay(t, node, client, dir, []dayTask{
		{"update the README set up section for the PostgreSQL connection pool", "README.md", []string{"decision"}},
		{"explain in docs/CONTEXT.md how the context block budget is trimmed, and the PostgreSQL connection pool decision", "docs/", []string{"decision"}},
	})
}

func TestAgentDayInChi(t *testing.T) {
	node, client := dayClient(t)
	src := dayChi(t)
	dir := filepath.Join(t.TempDir(), "chi")
	started := time.Now()
	dayCopy(t, src, dir)
	testgit.Run(t, dir, "init", "-q", "-b", "master")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "chi "+chiVersion+" from the Go module proxy")
	t.Logf("copy and commit: %v", time.Since(started).Round(time.Millisecond))
	playDay(t, node, client, dir, []dayTask{
		{"document the PostgreSQL connection pool limit per instance in the README", "README.md", []string{"decision"}},
		// The natural wording: before memories ranked first, the README's
		// doc chunks pushed the decision out of the block's search.
		{"add the PostgreSQL connection pool example to the README's middleware section", "README.md", []string{"decision"}},
		{"write the CHANGELOG entry for the fix of the too many connections error from PostgreSQL in the integration tests", "CHANGELOG.md", []string{"error"}},
	})
}

// playDay plays the day in the repository dir, checking each step.
func playDay(t *testing.T, node, client, dir string, tasks []dayTask) {
	env := dayEnv(t)
	started := time.Now()
	dayOK(t, env, dir, "init")
	indexed := time.Now()
	out := dayOK(t, env, dir, "index", "--json")
	var idx struct {
		Files, Chunks, Commits int
	}
	decodeJSON(t, out, &idx)
	t.Logf("index: %d files, %d chunks, %d commits in %v", idx.Files, idx.Chunks, idx.Commits, time.Since(indexed).Round(time.Millisecond))

	// Every task matches its file: the task search sees doc chunks, which
	// is what the block once failed on.
	for _, tk := range tasks {
		var hits []struct{ Path string }
		decodeJSON(t, dayOK(t, env, dir, "search", "--type", "doc", "--json", "--limit", "10", tk.text), &hits)
		if !slices.ContainsFunc(hits, func(h struct{ Path string }) bool { return dayMatches(h.Path, tk.matches) }) {
			t.Fatalf("the task %q does not match %s (search --type doc found %v): the day would not cover doc hits in the block", tk.text, tk.matches, hits)
		}
	}

	// Morning: a CLI session.
	id := func(args ...string) string {
		t.Helper()
		return strings.TrimSpace(dayOK(t, env, dir, args...))
	}
	id("session", "start", "--label", "connection pool", "--tool", "agentday-cli")
	ids := map[string]string{
		"decision": id("save", "--type", "decision", "--tag", "db", "--data", decisionData, decisionBody),
		"error":    id("save", "--type", "error", "--tag", "db", "--title", errorTitle, errorBody),
		"progress": id("save", "--type", "progress", progressBody),
	}
	// A preference is the user's own: it goes to the user store, which
	// follows them into every repository's block.
	ids["preference"] = id("save", "--type", "user", preference)
	summary, _, _ := strings.Cut(id("session", "end", "--summary", "Chose PostgreSQL pooling and fixed the too-many-connections failure.", "--outcome", "success"), " ")
	ids["summary"] = summary
	t.Logf("morning memories: %v", ids)

	// The CLI's block for each task, before the afternoon.
	for _, tk := range tasks {
		r := dayCLI(t, env, dir, "context", "--task", tk.text)
		if r.code != 0 {
			// The afternoon still runs: it says what MCP does with the same.
			t.Errorf("context --task %q: exit %d\nstderr: %s", tk.text, r.code, r.stderr)
			continue
		}
		dayCheckBlock(t, "context --task "+tk.text, r.stdout, tk, ids, ids["decision"])
	}

	// Midday: a Claude Code session through the hooks `setup claude`
	// installs, run as Claude Code runs them.
	dayHooks(t, env, dir, ids)

	// Afternoon: a new MCP server process, through the TypeScript SDK.
	steps := []dayStep{{Tool: "session", Args: map[string]any{"action": "start", "label": "pool size"}}}
	for _, tk := range tasks {
		steps = append(steps,
			dayStep{Tool: "get_context", Args: map[string]any{"task": tk.text}},
			dayStep{Prompt: "context", Args: map[string]any{"task": tk.text}})
	}
	searchAt := len(steps)
	steps = append(steps,
		dayStep{Tool: "search_memory", Args: map[string]any{"query": searchQuery}},
		dayStep{Tool: "evolve_memory", Args: map[string]any{"id": ids["decision"], "content": evolvedBody, "reason": "correction"}},
		dayStep{Tool: "get_context", Args: map[string]any{"task": tasks[0].text}},
		dayStep{Tool: "search_memory", Args: map[string]any{"query": searchQuery}},
		dayStep{Tool: "session", Args: map[string]any{"action": "end", "summary": "Raised the pool to 40 connections.", "outcome": "success"}})
	answers := dayMCP(t, node, client, env, dir, steps)
	if len(answers) != len(steps) {
		t.Fatalf("%d answers to %d steps", len(answers), len(steps))
	}
	failed := false
	for i, a := range answers {
		if a.Error != "" || a.IsError {
			t.Errorf("%s: failed: %s%s", steps[i].name(), a.Error, a.Text)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
	for i, tk := range tasks {
		dayCheckNotes(t, "get_context "+tk.text, answers[1+2*i].Structured)
		dayCheckBlock(t, "get_context "+tk.text, answers[1+2*i].Text, tk, ids, ids["decision"])
		dayCheckBlock(t, "the context prompt with "+tk.text, answers[2+2*i].Text, tk, ids, ids["decision"])
	}
	dayCheckSearch(t, "search_memory", daySearchIDs(t, answers[searchAt].Structured), []string{ids["decision"], ids["error"]}, nil)

	var evolved struct{ ID string }
	if err := json.Unmarshal(answers[searchAt+1].Structured, &evolved); err != nil || evolved.ID == "" || evolved.ID == ids["decision"] {
		t.Fatalf("evolve_memory answered %s (%v): want a new memory's ID", answers[searchAt+1].Structured, err)
	}
	// The new version replaces the old one everywhere an agent looks.
	after := answers[searchAt+2].Text
	dayCheckBlock(t, "get_context after evolve_memory", after, tasks[0], ids, evolved.ID)
	if strings.Contains(after, "["+ids["decision"]+"]") || !strings.Contains(after, "40 connections") {
		t.Errorf("get_context after evolve_memory shows the old decision %s or not the new text:\n%s", ids["decision"], after)
	}
	dayCheckSearch(t, "search_memory after evolve_memory", daySearchIDs(t, answers[searchAt+3].Structured), []string{evolved.ID}, []string{ids["decision"]})

	// The CLI, a process of its own, sees the same; the afternoon's
	// session is now the last one.
	var ended struct{ Memory struct{ ID string } }
	if err := json.Unmarshal(answers[searchAt+4].Structured, &ended); err != nil || ended.Memory.ID == "" {
		t.Fatalf("session end answered %s (%v): want the summary's ID", answers[searchAt+4].Structured, err)
	}
	ids["summary"] = ended.Memory.ID
	r := dayCLI(t, env, dir, "context", "--task", tasks[0].text)
	if r.code != 0 {
		t.Fatalf("context --task after evolve: exit %d\nstderr: %s", r.code, r.stderr)
	}
	dayCheckBlock(t, "context --task after evolve", r.stdout, tasks[0], ids, evolved.ID)
	if strings.Contains(r.stdout, "["+ids["decision"]+"]") {
		t.Errorf("context --task after evolve still cites the old decision %s:\n%s", ids["decision"], r.stdout)
	}
	var found []struct{ ID string }
	decodeJSON(t, dayOK(t, env, dir, "search", "--json", searchQuery), &found)
	var cliIDs []string
	for _, f := range found {
		cliIDs = append(cliIDs, f.ID)
	}
	dayCheckSearch(t, "search after evolve", cliIDs, []string{evolved.ID}, []string{ids["decision"]})
	t.Logf("the day: %v", time.Since(started).Round(time.Millisecond))
}

// dayCheckBlock checks a block for a task: it has the morning's progress,
// session summary and preference, and cites the memories the task is
// about under "Relevant to the task"; decision is the decision's current
// ID.
func dayCheckBlock(t *testing.T, what, block string, tk dayTask, ids map[string]string, decision string) {
	t.Helper()
	section := func(title string) string {
		_, rest, ok := strings.Cut(block, "\n## "+title+"\n")
		if !ok {
			return ""
		}
		body, _, _ := strings.Cut(rest, "\n## ")
		return body
	}
	want := map[string]string{
		"Progress":     ids["progress"],
		"Last session": ids["summary"],
		"Preferences":  ids["preference"],
	}
	for _, c := range tk.cites {
		id := ids[c]
		if c == "decision" {
			id = decision
		}
		want["Relevant to the task"] += " " + id
	}
	// A section that could not show what it found says so in a note;
	// the day's blocks have none (the one-line filter that keeps doc hits
	// out of the task section, reverted, shows up here).
	if i := strings.Index(block, "(incomplete: "); i >= 0 {
		line, _, _ := strings.Cut(block[i:], "\n")
		t.Errorf("%s: a section is degraded: %s\n%s", what, line, block)
	}
	for title, list := range want {
		for _, id := range strings.Fields(list) {
			if !strings.Contains(section(title), "["+id+"]") {
				t.Errorf("%s: section %q does not cite %s:\n%s", what, title, id, block)
			}
		}
	}
}

// dayCheckNotes checks that no section of get_context's structured block
// has a note: the JSON form of the degradation dayCheckBlock finds in the
// Markdown.
func dayCheckNotes(t *testing.T, what string, raw json.RawMessage) {
	t.Helper()
	var b struct {
		Sections []struct{ Title, Note string }
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("%s answered %s: %v", what, raw, err)
	}
	for _, sec := range b.Sections {
		if sec.Note != "" {
			t.Errorf("%s: section %q is degraded: %s", what, sec.Title, sec.Note)
		}
	}
}

// dayCheckSearch checks that got has every ID of want and none of gone.
func dayCheckSearch(t *testing.T, what string, got, want, gone []string) {
	t.Helper()
	for _, id := range want {
		if !slices.Contains(got, id) {
			t.Errorf("%s does not find %s: %v", what, id, got)
		}
	}
	for _, id := range gone {
		if slices.Contains(got, id) {
			t.Errorf("%s still finds %s, which is superseded: %v", what, id, got)
		}
	}
}

// daySearchIDs returns the IDs of search_memory's structured answer.
func daySearchIDs(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var out struct{ Results []struct{ ID string } }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("search_memory answered %s: %v", raw, err)
	}
	var ids []string
	for _, r := range out.Results {
		ids = append(ids, r.ID)
	}
	return ids
}

func dayMatches(path, want string) bool {
	if strings.HasSuffix(want, "/") {
		return strings.HasPrefix(path, want)
	}
	return path == want
}

// dayAnswer is what steps.mjs reports for one step.
type dayAnswer struct {
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
	Error      string          `json:"error"`
}

// dayMCP runs steps in one new MCP server process in dir.
func dayMCP(t *testing.T, node, client string, env []string, dir string, steps []dayStep) []dayAnswer {
	t.Helper()
	in, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(client, "steps.mjs"), filepath.Join(binDir, "git-contextfs"), dir)
	cmd.Dir = client
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	started := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node steps.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("afternoon (MCP, %d calls): %v", len(steps), time.Since(started).Round(time.Millisecond))
	var answers []dayAnswer
	if err := json.Unmarshal(stdout.Bytes(), &answers); err != nil {
		t.Fatalf("steps.mjs output: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return answers
}

// dayStep is one MCP call of the afternoon: a tool or a prompt, with its
// arguments.
type dayStep struct {
	Tool   string         `json:"tool,omitempty"`
	Prompt string         `json:"prompt,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
}

// name says which call a step is, for messages.
func (s dayStep) name() string {
	if s.Prompt != "" {
		return fmt.Sprintf("prompt %s %v", s.Prompt, s.Args)
	}
	return fmt.Sprintf("%s %v", s.Tool, s.Args)
}

// dayCLI runs `git-contextfs args...` in dir as a real process with env.
func dayCLI(t *testing.T, env []string, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "git-contextfs"), args...)
	cmd.Dir, cmd.Env = dir, env
	return runProcess(t, cmd)
}

// dayOK runs the CLI and fails the test unless it exits 0.
func dayOK(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	r := dayCLI(t, env, dir, args...)
	if r.code != 0 {
		t.Fatalf("git-contextfs %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// dayEnv is the environment of the day's processes: git isolated from the
// developer's configuration (testgit.Env), and a user store and config of
// the test's own, so that the day neither reads nor writes the
// developer's.
func dayEnv(t *testing.T) []string {
	home := t.TempDir()
	env := slices.DeleteFunc(testgit.Env(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.HasPrefix(k, "CONTEXTFS_") || strings.HasPrefix(k, "XDG_")
	})
	return append(env,
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// dayMissing skips the test saying why and how to fix it, or fails it in CI.
func dayMissing(t *testing.T, why, fix string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s; CI must run the agent day (%s)", why, fix)
	}
	t.Skipf("%s (%s)", why, fix)
}

// dayClient returns node and the folder of the TypeScript SDK client.
func dayClient(t *testing.T) (node, dir string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "tests", "mcp-client"))
	if err != nil {
		t.Fatal(err)
	}
	const fix = "install Node.js, then: cd tests/mcp-client && npm ci"
	node, err = exec.LookPath("node")
	if err != nil {
		dayMissing(t, "node is not installed", fix)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		dayMissing(t, "the MCP TypeScript SDK is not installed", fix)
	}
	return node, dir
}

// dayChi returns chi's tree in the module cache. GOPROXY=off: the test
// only looks; .ci/run downloads it.
func dayChi(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", chiModule+"@"+chiVersion)
	cmd.Dir = t.TempDir() // outside this module: its go.mod and go.sum stay as they are
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=")
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); err != nil || jerr != nil || mod.Error != "" || mod.Dir == "" {
		why := mod.Error // go's own words, such as "module lookup disabled by GOPROXY=off"
		if why == "" {
			why = fmt.Sprint(err, jerr)
		}
		dayMissing(t, fmt.Sprintf("%s@%s is not in the Go module cache: %s", chiModule, chiVersion, why),
			"run: go mod download "+chiModule+"@"+chiVersion)
	}
	return mod.Dir
}

// dayCopy copies the regular files under src to dst, writable (the
// module cache's are read-only, which would keep the temp dir from being
// removed).
func dayCopy(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o644)
		default:
			return fmt.Errorf("%s: not a regular file or folder", p)
		}
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// The midday transcript: the person and the agent settle how the pool is
// sized, and nobody saves it.
const dayTranscript = `{"type":"user","sessionId":"agentday-claude","message":{"role":"user","content":"Should the pool size be a constant or configurable?"}}
{"type":"assistant","sessionId":"agentday-claude","message":{"role":"assistant","content":[{"type":"text","text":"Operators tune it per instance. Let's use an environment variable, PG_POOL_MAX, with 20 as the default."}]}}
{"type":"user","sessionId":"agentday-claude","message":{"role":"user","content":"Good, do that."}}
{"type":"assistant","sessionId":"agentday-claude","message":{"role":"assistant","content":[{"type":"text","text":"Done: the pool reads PG_POOL_MAX."}]}}
`

// dayHooks plays a Claude Code session through its hooks in dir: `setup
// claude --project` writes .claude/settings.json, and each event's
// command from it runs with sh in dir, the event's JSON on stdin, as
// Claude Code runs it. ids are the morning's memories.
func dayHooks(t *testing.T, env []string, dir string, ids map[string]string) {
	t.Helper()
	started := time.Now()
	// A home of the test's own: setup reads the user's Claude settings,
	// and a developer's own hooks there would leave the project's out.
	env = append(slices.Clip(env), "HOME="+t.TempDir())
	dayOK(t, env, dir, "setup", "claude", "--project")
	raw, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(raw, &settings); err != nil {
		t.Fatalf(".claude/settings.json: %v\n%s", err, raw)
	}
	const sid = "agentday-claude"
	tpath := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(tpath, []byte(dayTranscript), 0o600); err != nil {
		t.Fatal(err)
	}
	// hook runs the event's one command hook with fields added to the
	// input every event has, and returns its stdout.
	hook := func(event string, fields map[string]any) string {
		t.Helper()
		groups := settings.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Type != "command" {
			t.Fatalf("setup claude wrote %s hooks %+v: want one command", event, groups)
		}
		in := map[string]any{"session_id": sid, "transcript_path": tpath, "cwd": dir, "hook_event_name": event}
		for k, v := range fields {
			in[k] = v
		}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", groups[0].Hooks[0].Command)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(b)
		r := runProcess(t, cmd)
		if r.code != 0 {
			t.Fatalf("%s hook %q: exit %d\nstdout: %s\nstderr: %s", event, groups[0].Hooks[0].Command, r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}

	block := hook("SessionStart", map[string]any{"source": "startup"})
	dayCheckBlock(t, "the SessionStart hook", block, dayTask{}, ids, ids["decision"])

	recalled := func(out string) string {
		t.Helper()
		if out == "" {
			return ""
		}
		var got struct {
			HookSpecificOutput struct{ HookEventName, AdditionalContext string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
			t.Fatalf("the UserPromptSubmit hook printed %q (%v): want Claude Code's hookSpecificOutput", out, err)
		}
		return got.HookSpecificOutput.AdditionalContext
	}
	const dbPrompt = "which database do we use?"
	ctx := recalled(hook("UserPromptSubmit", map[string]any{"prompt": dbPrompt}))
	if !strings.Contains(ctx, ids["decision"]) {
		t.Errorf("the UserPromptSubmit hook on %q does not name the decision %s:\n%s", dbPrompt, ids["decision"], ctx)
	}
	if n := contextblock.EstimateTokens(ctx); n > 300 {
		t.Errorf("the UserPromptSubmit hook gave %d tokens, over the default prompt budget of 300:\n%s", n, ctx)
	}
	if got := hook("UserPromptSubmit", map[string]any{"prompt": "what is the weather like in Paris today"}); got != "" {
		t.Errorf("the UserPromptSubmit hook on an unrelated prompt printed %s", got)
	}

	var stop struct{ Decision, Reason string }
	out := hook("Stop", map[string]any{"stop_hook_active": false})
	if err := json.Unmarshal([]byte(out), &stop); err != nil || stop.Decision != "block" || !strings.Contains(stop.Reason, "PG_POOL_MAX") {
		t.Errorf("the Stop hook on a transcript that settled PG_POOL_MAX unsaved printed %q (%v): want a block quoting it", out, err)
	}
	if out := hook("Stop", map[string]any{"stop_hook_active": true}); out != "" {
		t.Errorf("the Stop hook with stop_hook_active printed %s: it must never block twice", out)
	}
	// The session saved nothing: it ends without a summary, and the
	// morning's stays the last session for the afternoon.
	hook("SessionEnd", map[string]any{"reason": "exit"})
	t.Logf("midday (Claude Code hooks): %v", time.Since(started).Round(time.Millisecond))
}
