package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// onTerminal runs the CLI with args on a pseudo-terminal (util-linux's
// script), with EDITOR set to editor, in dir.
func onTerminal(t *testing.T, dir, editor string, args ...string) (string, int) {
	t.Helper()
	return onTerminalEnv(t, dir, []string{"EDITOR=" + editor}, args...)
}

// onTerminalEnv runs the CLI with args on a pseudo-terminal (util-linux's
// script) in dir, with the tests' environment (testgit.Env, so NO_COLOR=1)
// and env after it. Its standard input is no terminal, so the pseudo-
// terminal has no size unless COLUMNS gives one.
func onTerminalEnv(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("script (util-linux) is needed: %v", err)
		}
		t.Skipf("no script(1) for a pseudo-terminal: %v", err)
	}
	line := filepath.Join(binDir, "git-contextfs")
	for _, a := range args {
		line += " '" + a + "'"
	}
	cmd := exec.Command("script", "-qec", line, "/dev/null")
	cmd.Dir = dir
	var base []string
	for _, kv := range testgit.Env() {
		// git takes a set but empty GIT_EDITOR or VISUAL as the editor.
		if !strings.HasPrefix(kv, "GIT_EDITOR=") && !strings.HasPrefix(kv, "VISUAL=") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(append(base, "TERM=xterm"), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// editorScript writes an editor that keeps a copy of the template it is
// given in seen, then writes text into the file.
func editorScript(t *testing.T, seen, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "text"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "editor.sh")
	script := "#!/bin/sh\ncp \"$1\" '" + seen + "'\ncat '" + filepath.Join(dir, "text") + "' > \"$1\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSaveWithNoTextOnATerminalOpensTheEditor(t *testing.T) {
	dir := testgit.Init(t)
	seen := filepath.Join(t.TempDir(), "template")
	editor := editorScript(t, seen, `---
title: Pool database connections
data:
  decision: pgxpool, 20 per instance
  status: accepted
  rationale:
---

We pool connections with pgxpool: twenty per instance.
# ------------------------ >8 ------------------------
# help the person left in place
`)
	out, code := onTerminal(t, dir, editor, "save", "--type", "decision", "--json")
	if code != 0 {
		t.Fatalf("save: exit %d\n%s", code, out)
	}
	tmpl, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the editor was not run: %v", err)
	}
	for _, want := range []string{"title:", "  decision: # The decision itself", "  status: # proposed | accepted", ">8"} {
		if !strings.Contains(string(tmpl), want) {
			t.Errorf("the template lacks %q:\n%s", want, tmpl)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	if len(files) != 1 {
		t.Fatalf("%d memory files, want 1", len(files))
	}
	b, _ := os.ReadFile(files[0])
	got := string(b)
	for _, want := range []string{"title: Pool database connections", "decision: pgxpool, 20 per instance", "status: accepted", "We pool connections with pgxpool: twenty per instance."} {
		if !strings.Contains(got, want) {
			t.Errorf("the memory lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "rationale") || strings.Contains(got, "help the person") {
		t.Errorf("an empty field or the help below the scissors was saved:\n%s", got)
	}
}

func TestAnEmptyEditAbortsTheSave(t *testing.T) {
	dir := testgit.Init(t)
	editor := editorScript(t, filepath.Join(t.TempDir(), "template"), "---\ntitle: Only a title\n---\n\n")
	out, code := onTerminal(t, dir, editor, "save", "--type", "fact")
	if code != 1 || !strings.Contains(out, "aborting: the memory is empty") {
		t.Errorf("exit %d, want 1 with the reason:\n%s", code, out)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md")); len(files) != 0 {
		t.Errorf("an empty edit saved %v", files)
	}
}

// TestUpdateWithTheIDAloneOnATerminalOpensTheMemory: as git commit --amend
// opens the message, update ID opens the memory's title, data and body;
// what the editor leaves is the memory.
func TestUpdateWithTheIDAloneOnATerminalOpensTheMemory(t *testing.T) {
	dir := testgit.Init(t)
	id := strings.TrimSpace(ok(t, dir, "save", "--type", "decision", "--title", "Token lifetime",
		"--data", `{"decision":"1h tokens","status":"accepted"}`, "Tokens expire after one hour."))
	editor := filepath.Join(t.TempDir(), "editor.sh")
	seen := filepath.Join(t.TempDir(), "seen")
	script := "#!/bin/sh\ncp \"$1\" '" + seen + "'\nsed -i 's/one hour/two hours/; s/1h tokens/2h tokens/' \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := onTerminal(t, dir, editor, "update", id)
	if code != 0 || !strings.Contains(out, "updated "+id) {
		t.Fatalf("update: exit %d\n%s", code, out)
	}
	tmpl, _ := os.ReadFile(seen)
	for _, want := range []string{"title: Token lifetime", "decision: 1h tokens", "Tokens expire after one hour."} {
		if !strings.Contains(string(tmpl), want) {
			t.Errorf("the editor was not given %q:\n%s", want, tmpl)
		}
	}
	got := ok(t, dir, "recall", id)
	for _, want := range []string{"Tokens expire after two hours.", "decision: 2h tokens", "status: accepted", "title: Token lifetime"} {
		if !strings.Contains(got, want) {
			t.Errorf("the memory lacks %q:\n%s", want, got)
		}
	}
}
