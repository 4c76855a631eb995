//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/testgit"
)

// runBin runs the git-contextfs at bin in dir with the test environment
// plus env.
func runBin(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(testgit.Env(), env...)
	return runProcess(t, cmd)
}

// warmRepo is a repository with a few memories and a running watcher
// started by bin, stopped when the test ends.
func warmRepo(t *testing.T, bin string) string {
	t.Helper()
	dir := testgit.Init(t)
	for _, args := range [][]string{
		{"init"},
		{"save", "--type", "decision", "--tag", "db", "--title", "Pool size", "Use pgx with a pool of 20 connections to postgres."},
		{"save", "--type", "fact", "The deploy bot posts to the releases channel."},
		{"save", "--type", "procedural", "--title", "Release", "Tag the release, then run the deploy bot."},
		{"watch", "start"},
	} {
		if r := runBin(t, bin, dir, nil, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	t.Cleanup(func() { runBin(t, bin, dir, nil, "watch", "stop") })
	return dir
}

func TestWarmAnswersAreTheColdAnswers(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	for _, args := range [][]string{
		{"search", "--json", "deploy bot"},
		{"search", "postgres", "pool"},
		{"search", "--type", "decision", "--tag", "db", "--mode", "keyword", "connections"},
		{"search", "--limit", "1", "--scope", "repo", "release"},
		{"search", "--color=always", "postgres", "pool"}, // the sender's colour goes with the request
		{"search", "--color=always", "--type", "bogus", "deploy"},
		{"search", "okapi"},                     // no matches: a line on stderr
		{"search", "--type", "bogus", "deploy"}, // a usage error, exit 2
		{"search", "--limit=-1", "deploy"},      // another
		{"context"},
		{"context", "--format", "json", "--task", "deploy the release"},
		{"context", "--budget", "-3"},
		{"list"},
		{"list", "--json"},
		{"list", "-n", "2", "--type", "decision", "--scope", "repo"},
		{"list", "--json", "--tag", "db", "--since", "1 week ago"},
		{"list", "-n", "-1"}, // a usage error, exit 2
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			warm := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, args...)
			cold := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=off"}, args...)
			if warm != cold {
				t.Fatalf("warm answer differs from cold\nwarm: exit %d\n%s\n%s\ncold: exit %d\n%s\n%s",
					warm.code, warm.stdout, warm.stderr, cold.code, cold.stdout, cold.stderr)
			}
		})
	}
}

func TestWarmAnswersFollowEditsAndSettings(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	only := []string{"CONTEXTFS_WARM=only"}
	runBin(t, bin, dir, only, "search", "deploy") // the watcher opens its stores
	// The watcher keeps this block; the edit below must not be answered from it.
	if r := runBin(t, bin, dir, only, "context", "--task", "okapi rota"); r.code != 0 || strings.Contains(r.stdout, "deploy bot") {
		t.Fatalf("context before the edit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	matches, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*", "*.md"))
	if len(matches) == 0 {
		matches, _ = filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md"))
	}
	var target string
	for _, m := range matches {
		if b, _ := os.ReadFile(m); strings.Contains(string(b), "releases channel") {
			target = m
		}
	}
	if target == "" {
		t.Fatalf("memory file not found among %v", matches)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nIt also pings the okapi rota.\n")
	f.Close()
	if r := runBin(t, bin, dir, only, "search", "okapi rota"); r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Fatalf("an edit was not seen by the warm answer: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	warmCtx := runBin(t, bin, dir, only, "context", "--task", "okapi rota")
	coldCtx := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=off"}, "context", "--task", "okapi rota")
	if warmCtx != coldCtx || !strings.Contains(warmCtx.stdout, "deploy bot") {
		t.Fatalf("an edit was not seen by the warm context block:\nwarm\n%s%s\ncold\n%s%s", warmCtx.stdout, warmCtx.stderr, coldCtx.stdout, coldCtx.stderr)
	}

	cfg := filepath.Join(dir, ".contextfs", "config.yaml")
	raw, _ := os.ReadFile(cfg)
	if !strings.Contains(string(raw), "limit: 10") {
		t.Fatalf("config has no search limit to change:\n%s", raw)
	}
	os.WriteFile(cfg, []byte(strings.Replace(string(raw), "limit: 10", "limit: 1", 1)), 0o644)
	warm := runBin(t, bin, dir, only, "search", "--json", "deploy release bot")
	cold := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=off"}, "search", "--json", "deploy release bot")
	if warm != cold || strings.Count(warm.stdout, `"id"`) != 1 {
		t.Fatalf("a changed setting was not followed: warm\n%s\ncold\n%s", warm.stdout, cold.stdout)
	}
}

func TestWarmAnswersAreNotTakenFromAnotherBuild(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	other := filepath.Join(t.TempDir(), "git-contextfs")
	copyFile(t, bin, other)
	r := runBin(t, other, dir, []string{"CONTEXTFS_WARM=only"}, "search", "deploy")
	if r.code != 1 || !strings.Contains(r.stderr, "another build") {
		t.Fatalf("exit %d, stderr %q; want a refusal naming another build", r.code, r.stderr)
	}
	// Without "only" the command runs cold and answers.
	if r := runBin(t, other, dir, nil, "search", "deploy"); r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Fatalf("cold fallback: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestWarmAnswersCarryTheCallersEnvironment: the watcher answers callers
// whose environment differs from its own, with the caller's settings. A
// command with another PATH is answered warm; one naming another user
// store (CONTEXTFS_USER_DIR) gets that store's memories, and the next
// command without it gets the first store's again; another embedder
// setting is answered as a cold run with it would be.
func TestWarmAnswersCarryTheCallersEnvironment(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	mine, other := filepath.Join(t.TempDir(), "mine"), filepath.Join(t.TempDir(), "other")
	for store, text := range map[string]string{mine: "Mine: deploy on Tuesdays.", other: "Other: deploy on Fridays."} {
		if r := runBin(t, bin, dir, []string{"CONTEXTFS_USER_DIR=" + store, "CONTEXTFS_WARM=off"}, "save", "--scope", "user", "--type", "preference", text); r.code != 0 {
			t.Fatalf("save to %s: exit %d: %s", store, r.code, r.stderr)
		}
	}
	only := "CONTEXTFS_WARM=only"
	tests := []struct {
		name      string
		env       []string
		want, not string
	}{
		{"another PATH", []string{"PATH=" + t.TempDir() + string(os.PathListSeparator) + os.Getenv("PATH")}, "deploy bot", ""},
		{"a user store", []string{"CONTEXTFS_USER_DIR=" + mine}, "Tuesdays", "Fridays"},
		{"another user store", []string{"CONTEXTFS_USER_DIR=" + other}, "Fridays", "Tuesdays"},
		{"the first user store again", []string{"CONTEXTFS_USER_DIR=" + mine}, "Tuesdays", "Fridays"},
		{"another embedder setting", []string{"CONTEXTFS_EMBEDDER=builtin"}, "deploy bot", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warm := runBin(t, bin, dir, append(tt.env, only), "search", "--scope", "all", "deploy")
			if warm.code != 0 || !strings.Contains(warm.stdout, tt.want) || tt.not != "" && strings.Contains(warm.stdout, tt.not) {
				t.Fatalf("warm: exit %d, want %q and not %q\n%s%s", warm.code, tt.want, tt.not, warm.stdout, warm.stderr)
			}
			cold := runBin(t, bin, dir, append(tt.env, "CONTEXTFS_WARM=off"), "search", "--scope", "all", "deploy")
			if warm != cold {
				t.Fatalf("warm answer differs from cold\nwarm:\n%s%s\ncold:\n%s%s", warm.stdout, warm.stderr, cold.stdout, cold.stderr)
			}
		})
	}
}

// A watcher started by an ordinary command (CONTEXTFS_WATCH unset) is
// asked by a run that sets CONTEXTFS_WATCH=on: whether to use a watcher is
// the asker's choice, not a setting the answer depends on.
func TestWarmAnswersServeAnAskerThatTurnsTheWatcherOn(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	r := runBin(t, bin, dir, []string{"CONTEXTFS_WATCH=on", "CONTEXTFS_WARM=only"}, "search", "deploy")
	if r.code != 0 || !strings.Contains(r.stdout, "deploy bot") {
		t.Fatalf("exit %d, stderr %q; want a warm answer", r.code, r.stderr)
	}
}

func TestWarmDaemonRetiresWhenItsProgramIsReplaced(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "git-contextfs")
	copyFile(t, filepath.Join(binDir, "git-contextfs"), bin)
	dir := warmRepo(t, bin)
	if r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, "search", "deploy"); r.code != 0 {
		t.Fatalf("first warm search: exit %d: %s", r.code, r.stderr)
	}
	// An upgrade: a new file renamed over the old one.
	next := bin + ".new"
	copyFile(t, filepath.Join(binDir, "git-contextfs"), next)
	if err := os.Rename(next, bin); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, "search", "deploy")
	if r.code != 1 || !strings.Contains(r.stderr, "replaced") {
		t.Fatalf("exit %d, stderr %q; want the old daemon to refuse, replaced", r.code, r.stderr)
	}
	for i := 0; i < 200 && watcherRunning(t, dir); i++ {
	}
	if watcherRunning(t, dir) {
		t.Fatal("the replaced program's watcher is still running")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestWarmSaveWritesTheMemoryAColdSaveWould(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	only, off := []string{"CONTEXTFS_WARM=only"}, []string{"CONTEXTFS_WARM=off"}
	text := "The okapi service retries uploads five times with exponential backoff."
	r := runBin(t, bin, dir, only, "save", "--type", "fact", "--tag", "uploads", text)
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || id == "" {
		t.Fatalf("warm save: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*"+id+"*.md")); len(files) != 1 {
		t.Fatalf("memory files named for %s: %v", id, files)
	}
	if out := runBin(t, bin, dir, off, "recall", id); out.code != 0 || !strings.Contains(out.stdout, "exponential backoff") {
		t.Fatalf("cold recall of the warm save: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	// The same text again: the duplicate check answers as it does cold.
	warm := runBin(t, bin, dir, only, "save", "--type", "fact", text)
	cold := runBin(t, bin, dir, off, "save", "--type", "fact", text)
	if warm != cold || !strings.Contains(warm.stdout+warm.stderr, id) {
		t.Fatalf("a repeated save differs warm and cold, or does not name %s\nwarm: exit %d\n%s%s\ncold: exit %d\n%s%s",
			id, warm.code, warm.stdout, warm.stderr, cold.code, cold.stdout, cold.stderr)
	}
	// Content on standard input is not sent (the watcher would not see
	// it): the command runs cold, though a watcher runs.
	cmd := exec.Command(bin, "save", "--type", "fact")
	cmd.Dir, cmd.Env = dir, testgit.Env()
	cmd.Stdin = strings.NewReader("The zebra cache keeps thumbnails for a day.")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("save from standard input: %v", err)
	}
	if r := runBin(t, bin, dir, off, "recall", strings.TrimSpace(string(out))); !strings.Contains(r.stdout, "zebra cache") {
		t.Fatalf("the memory saved from standard input lost its content:\n%s%s", r.stdout, r.stderr)
	}
}

// TestWarmOnlyFailsForACommandNeverSentToTheWatcher: CONTEXTFS_WARM=only
// is for benchmarks and tests that must not run cold believing they run
// warm, so a command the watcher never answers fails, naming itself,
// rather than run cold, though a watcher runs.
func TestWarmOnlyFailsForACommandNeverSentToTheWatcher(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	tests := []struct {
		name string
		args []string
		want string // in the message
	}{
		{"a listing of everything", []string{"list", "--json", "--all"}, "list is not sent to the watcher with these arguments"},
		{"a command the watcher never runs", []string{"status"}, "status is never sent to the watcher"},
		{"a subcommand", []string{"hooks", "status"}, "hooks status is never sent to the watcher"},
		{"a save from standard input", []string{"save", "--type", "fact", "-"}, "save is not sent to the watcher"},
		{"a search of files named from the current folder", []string{"search", "--path", "main.go", "deploy"}, "search is not sent to the watcher"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, tt.args...)
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "CONTEXTFS_WARM=only") || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant exit 1, no output and a message with %q", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
	// The same commands run cold when asked to.
	if r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=off"}, "list", "--json", "--all"); r.code != 0 || !strings.Contains(r.stdout, "Pool size") {
		t.Fatalf("list --all with CONTEXTFS_WARM=off: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// What git runs with the environment it was given (a hook, here on a
	// commit), what an agent's hooks run (setup claude) and help are not
	// the command the variable was set for.
	for _, args := range [][]string{{"hook", "pre-commit"}, {"help", "search"},
		{"session", "start", "--tool", "claude-code", "--resume"}, {"session", "end", "--if-open", "--outcome", "unknown"}} {
		if r := runBin(t, bin, dir, []string{"CONTEXTFS_WARM=only"}, args...); r.code != 0 {
			t.Errorf("%v with CONTEXTFS_WARM=only: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestWarmListIsAskedOnlyForABoundedListingOffTheTerminal: a warm answer
// comes back whole, so a listing past warmListMax (or --all) runs cold,
// written as it goes; and text on a terminal goes through a pager that
// only the command can start.
func TestWarmListIsAskedOnlyForABoundedListingOffTheTerminal(t *testing.T) {
	tests := []struct {
		name string
		args []string
		tty  bool
		want bool
	}{
		{"the default page into a pipe", nil, false, true},
		{"JSON on a terminal", []string{"--json"}, true, true},
		{"text on a terminal, paged", nil, true, false},
		{"a count up to the bound", []string{"-n", fmt.Sprint(warmListMax)}, false, true},
		{"a count past the bound", []string{"-n", fmt.Sprint(warmListMax + 1)}, false, false},
		{"everything", []string{"--all", "--json"}, false, false},
		{"files named from the current folder", []string{"--path", "main.go"}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := &cobra.Command{Use: "git-contextfs"}
			c := (&app{}).listCmd()
			root.AddCommand(c)
			if err := c.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			if got := warmable(c, c.Flags().Args(), tc.tty); got != tc.want {
				t.Errorf("warmable = %v, want %v", got, tc.want)
			}
		})
	}
}
