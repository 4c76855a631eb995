package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/contextblock"
	"github.com/contextfs/contextfs/internal/testgit"
)

// hookEvent is the JSON an agent client writes to a hook's stdin.
func hookEvent(t *testing.T, fields map[string]any) string {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func transcript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "transcripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func initMemories(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	ok(t, dir, "init")
	return dir
}

// stop runs the Stop hook as Claude Code does and returns its stdout.
func stop(t *testing.T, dir, sid, path string, active bool) string {
	t.Helper()
	r := cli(t, dir, hookEvent(t, map[string]any{"session_id": sid, "transcript_path": path,
		"hook_event_name": "Stop", "stop_hook_active": active}), "hook", "stop")
	if r.code != 0 {
		t.Fatalf("hook stop: exit %d: %s", r.code, r.stderr)
	}
	return r.stdout
}

// The case: a session that settles a decision and fixes an error
// without saving is stopped once with the instruction; the stop that
// follows (stop_hook_active) is not, nor a later one with nothing new.
func TestStopHookBlocksOnceForADecisionAndAFixNobodySaved(t *testing.T) {
	dir := initMemories(t)
	p := transcript(t, "decision-fix-unsaved.jsonl")
	out := stop(t, dir, "s1", p, false)
	var got struct{ Decision, Reason string }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the Stop hook's output is not JSON: %v\n%s", err, out)
	}
	if got.Decision != "block" || !strings.Contains(got.Reason, "PostgreSQL") || !strings.Contains(got.Reason, "temp directory") ||
		!strings.Contains(got.Reason, "save_memory") {
		t.Errorf("want a block that quotes the decision and the fix and names save_memory, got %+v", got)
	}
	t.Logf("reminder: %d bytes, about %d tokens", len(got.Reason), contextblock.EstimateTokens(got.Reason))
	if out := stop(t, dir, "s1", p, true); out != "" {
		t.Errorf("stop_hook_active true: want no output, got %s", out)
	}
	if out := stop(t, dir, "s1", p, false); out != "" {
		t.Errorf("the next stop with nothing new: want no output, got %s", out)
	}
	// Saves made now, at the hook's request, are marked captured.
	ok(t, dir, "session", "start", "--tool", "claude-code")
	stop(t, dir, "s2", p, false)
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "Use PostgreSQL 16 through pgx. Several workers write orders at once."))
	if rec := ok(t, dir, "recall", id); !strings.Contains(rec, "captured: true") {
		t.Errorf("a save after the reminder is not marked captured:\n%s", rec)
	}
	if st := testgit.Run(t, dir, "status", "--porcelain"); !strings.Contains(st, ".contextfs/") {
		t.Errorf("git status does not show the captured memory:\n%s", st)
	}
}

// How often the Stop hook fires on the recorded transcripts: only where
// something was settled and not saved.
func TestStopHookFiresOnlyWhereSomethingWasSettledAndNotSaved(t *testing.T) {
	dir := initMemories(t)
	cases := []struct {
		file  string
		block bool
	}{
		{"decision-fix-unsaved.jsonl", true},
		{"preference-unsaved.jsonl", true},
		{"decision-fix-saved.jsonl", false},
		{"decision-saved-cli.jsonl", false},
		{"decision-memory-file-written.jsonl", false},
		{"small-talk.jsonl", false},
		{"code-talk.jsonl", false},
	}
	fired := 0
	for _, c := range cases {
		out := stop(t, dir, c.file, transcript(t, c.file), false)
		if (out != "") != c.block {
			t.Errorf("%s: want block %v, got %q", c.file, c.block, out)
		}
		if out != "" {
			fired++
		}
	}
	t.Logf("the Stop hook fired on %d of %d transcripts", fired, len(cases))
}

func TestStopHookIsSilentWithoutMemoriesOrATranscript(t *testing.T) {
	bare := testgit.Init(t) // no .contextfs: a repository that does not use contextfs
	if out := stop(t, bare, "s1", transcript(t, "decision-fix-unsaved.jsonl"), false); out != "" {
		t.Errorf("a repository without memories got %s", out)
	}
	dir := initMemories(t)
	if out := stop(t, dir, "s1", filepath.Join(dir, "missing.jsonl"), false); out != "" {
		t.Errorf("a missing transcript got %s", out)
	}
	r := cli(t, dir, "not json", "hook", "stop")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "not the JSON object") {
		t.Errorf("bad input: want exit 0, no output and a warning; got %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// PreCompact notes what compaction would take from the agent: the next
// Stop raises it.
func TestPreCompactNotesFindingsForTheNextStop(t *testing.T) {
	dir := initMemories(t)
	p := transcript(t, "decision-fix-unsaved.jsonl")
	r := cli(t, dir, hookEvent(t, map[string]any{"session_id": "s1", "transcript_path": p, "hook_event_name": "PreCompact", "trigger": "auto"}), "hook", "pre-compact")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("pre-compact: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	// After compaction the transcript holds a short summary only.
	short := filepath.Join(t.TempDir(), "after.jsonl")
	if err := os.WriteFile(short, []byte(`{"type":"user","message":{"role":"user","content":"go on"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := stop(t, dir, "s1", short, false); !strings.Contains(out, "PostgreSQL") {
		t.Errorf("the Stop after compaction does not raise what PreCompact noted: %q", out)
	}
}

// The case: "which database do we use?" gets the PostgreSQL
// decision within the budget, once a session; an unrelated prompt, nothing.
func TestUserPromptSubmitRecallsTheDatabaseDecisionOnce(t *testing.T) {
	dir := initMemories(t)
	pg := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "Use PostgreSQL as the primary database. Orders and users live in PostgreSQL 16 through pgx."))
	ok(t, dir, "save", "--type", "procedural", "Deploy with the release workflow. Tag vX.Y.Z on main and the workflow deploys.")
	prompt := func(sid, text string) string {
		r := cli(t, dir, hookEvent(t, map[string]any{"session_id": sid, "prompt": text, "hook_event_name": "UserPromptSubmit"}), "hook", "user-prompt-submit")
		if r.code != 0 {
			t.Fatalf("hook user-prompt-submit: exit %d: %s", r.code, r.stderr)
		}
		return r.stdout
	}
	out := prompt("s1", "which database do we use?")
	var got struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	ctx := got.HookSpecificOutput
	if ctx.HookEventName != "UserPromptSubmit" || !strings.Contains(ctx.AdditionalContext, pg) {
		t.Errorf("want the PostgreSQL decision %s, got %+v", pg, ctx)
	}
	if n := contextblock.EstimateTokens(ctx.AdditionalContext); n > 300 {
		t.Errorf("%d tokens, over the default budget of 300", n)
	}
	if out := prompt("s1", "what is the weather like in Paris today"); out != "" {
		t.Errorf("an unrelated prompt got %s", out)
	}
	if out := prompt("s1", "remind me which database we use?"); strings.Contains(out, pg) {
		t.Errorf("the session was given %s twice", pg)
	}
	if out := prompt("s2", "which database do we use?"); !strings.Contains(out, pg) {
		t.Errorf("another session is not given %s: %s", pg, out)
	}
	// context.prompt_budget bounds it.
	cfg := filepath.Join(dir, ".contextfs", "config.yaml")
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(raw, []byte("\ncontext:\n  prompt_budget: 5\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := prompt("s3", "which database do we use?"); out != "" {
		t.Errorf("a budget of 5 tokens holds no memory, got %s", out)
	}
}

// The case: a session that changed two files and made a commit
// ends without a summary; the one contextfs writes names them and the
// memory saved.
func TestSessionEndWithoutASummaryNamesFilesCommitsAndSaves(t *testing.T) {
	dir := initMemories(t)
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "contextfs init")
	ok(t, dir, "session", "start", "--tool", "claude-code")
	cli(t, dir, hookEvent(t, map[string]any{"session_id": "s1", "prompt": "Add refresh tokens to the login API\nand test them"}), "hook", "user-prompt-submit")
	for _, f := range []string{"auth.go", "auth_test.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package auth\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testgit.Run(t, dir, "add", "auth.go", "auth_test.go")
	testgit.Run(t, dir, "commit", "-qm", "Add refresh tokens")
	saved := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "Rotate refresh tokens on every use. A stolen token then works once."))
	out := ok(t, dir, "session", "end", "--json")
	var m struct {
		Title, Body string
		Source      struct{ Captured bool }
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"auth.go", "auth_test.go", "Add refresh tokens", saved, "Rotate refresh tokens", "Add refresh tokens to the login API"} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("the summary lacks %q:\n%s", want, m.Body)
		}
	}
	if !m.Source.Captured || !strings.Contains(m.Title, "Add refresh tokens to the login API") {
		t.Errorf("want a captured summary titled by the first prompt, got %q captured %v", m.Title, m.Source.Captured)
	}
}
