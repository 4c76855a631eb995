package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/testgit"
)

// sgr is what begins every colour escape (ECMA-48 CSI).
const sgr = "\x1b["

// colourRepo is a repository with two memories, one with a long title.
func colourRepo(t *testing.T) string {
	t.Helper()
	dir := testgit.Init(t)
	ok(t, dir, "init")
	ok(t, dir, "save", "--type", "decision", "--title", longTitle, "Pool connections with pgx.")
	ok(t, dir, "save", "--type", "fact", "Short fact about the build.")
	return dir
}

// longTitle is longer than any terminal the tests make.
const longTitle = "Use pgx with a pool of twenty connections per instance for every service of the fleet, reviewed"

func TestListIsColouredOnATerminalOnlyWhereAsked(t *testing.T) {
	dir := colourRepo(t)
	// The tests' environment says NO_COLOR=1 (testgit.Env); an empty one
	// is unset for colour's purposes (no-color.org).
	clean := []string{"NO_COLOR=", "CLICOLOR_FORCE=", "PAGER=cat", "GIT_PAGER=", "CONTEXTFS_WATCH=off"}
	for _, tc := range []struct {
		name     string
		terminal bool
		env      []string
		gitUI    string // git config color.ui, "" unset
		args     []string
		want     bool
	}{
		{name: "a terminal is coloured", terminal: true, want: true},
		{name: "a terminal with NO_COLOR=1 is not", terminal: true, env: []string{"NO_COLOR=1"}},
		{name: "NO_COLOR wins over CLICOLOR_FORCE", terminal: true, env: []string{"NO_COLOR=1", "CLICOLOR_FORCE=1"}},
		{name: "a terminal with --color=never is not", terminal: true, args: []string{"--color=never"}},
		{name: "a terminal with git's color.ui never is not", terminal: true, gitUI: "never"},
		{name: "a terminal with git's color.ui false is not", terminal: true, gitUI: "false"},
		{name: "a terminal with git's color.ui auto is", terminal: true, gitUI: "auto", want: true},
		{name: "--color=always wins over color.ui never", terminal: true, gitUI: "never", args: []string{"--color=always"}, want: true},
		{name: "--json on a terminal is never coloured", terminal: true, args: []string{"--json", "--color=always"}},
		{name: "a pipe is not", terminal: false},
		{name: "a pipe with --color=always is", args: []string{"--color=always"}, want: true},
		{name: "a pipe with CLICOLOR_FORCE=1 is", env: []string{"CLICOLOR_FORCE=1"}, want: true},
		{name: "a pipe with CLICOLOR_FORCE=0 is not", env: []string{"CLICOLOR_FORCE=0"}},
		{name: "a pipe with color.ui always is not (git is not asked)", gitUI: "always"},
		{name: "--json in a pipe with CLICOLOR_FORCE=1 is not", env: []string{"CLICOLOR_FORCE=1"}, args: []string{"--json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gitUI != "" {
				testgit.Run(t, dir, "config", "color.ui", tc.gitUI)
				t.Cleanup(func() { testgit.Run(t, dir, "config", "--unset", "color.ui") })
			}
			args := append([]string{"list"}, tc.args...)
			env := append(append([]string{}, clean...), tc.env...)
			var out string
			if tc.terminal {
				var code int
				out, code = onTerminalEnv(t, dir, env, args...)
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, out)
				}
			} else {
				cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), args...)
				cmd.Dir, cmd.Env = dir, append(testgit.Env(), env...)
				r := runProcess(t, cmd)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				out = r.stdout + r.stderr
			}
			if !strings.Contains(out, "Short fact") {
				t.Fatalf("no listing:\n%q", out)
			}
			if got := strings.Contains(out, sgr); got != tc.want {
				t.Errorf("colour escapes: %v, want %v:\n%q", got, tc.want, out)
			}
		})
	}
}

func TestListCutsTitlesToTheTerminalWidthNeverInAPipe(t *testing.T) {
	dir := colourRepo(t)
	env := []string{"PAGER=cat", "GIT_PAGER=", "COLUMNS=60", "CONTEXTFS_WATCH=off"}
	out, code := onTerminalEnv(t, dir, env, "list")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	cut := false
	for _, line := range strings.Split(strings.TrimRight(strings.ReplaceAll(out, "\r", ""), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 60 {
			t.Errorf("a line of %d characters on a 60-column terminal: %q", n, line)
		}
		cut = cut || strings.HasSuffix(line, "…") && strings.Contains(line, "Use pgx")
	}
	if !cut {
		t.Errorf("the long title was not cut with an ellipsis:\n%s", out)
	}
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "list")
	cmd.Dir, cmd.Env = dir, append(testgit.Env(), "COLUMNS=60", "CLICOLOR_FORCE=1", "CONTEXTFS_WATCH=off")
	if r := runProcess(t, cmd); !strings.Contains(r.stdout, longTitle) {
		t.Errorf("in a pipe the title was cut:\n%s", r.stdout)
	}
}

func TestHooksAreNeverColoured(t *testing.T) {
	dir := testgit.Init(t)
	// A hook takes its arguments as they come (no --color): the
	// environment is what could colour it.
	cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), "hook", "no-such-hook")
	cmd.Dir, cmd.Env = dir, append(testgit.Env(), "NO_COLOR=", "CLICOLOR_FORCE=1")
	r := runProcess(t, cmd)
	if !strings.Contains(r.stderr, "warning:") {
		t.Fatalf("the hook said no warning: %q", r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, sgr) {
		t.Errorf("a hook wrote colour escapes: %q %q", r.stdout, r.stderr)
	}
}

func TestErrorsArePaintedOnlyWhenColoured(t *testing.T) {
	dir := testgit.Init(t)
	r := inProcess(t, dir, "", "--color=always", "no-such-command")
	if !strings.HasPrefix(r.stderr, "\x1b[1;31mgit-contextfs:\x1b[0m unknown command") {
		t.Errorf("--color=always: the error prefix is not red: %q", r.stderr)
	}
	r = inProcess(t, dir, "", "no-such-command")
	if strings.Contains(r.stderr, sgr) {
		t.Errorf("in a pipe the error is coloured: %q", r.stderr)
	}
	r = inProcess(t, dir, "", "--color=sometimes", "list")
	if r.code != exitUsage || !strings.Contains(r.stderr, `--color: "sometimes": want auto, always or never`) {
		t.Errorf("a bad --color: exit %d, %q; want 2 naming the values", r.code, r.stderr)
	}
}

func TestReviewPaintsOnlyTheHeadings(t *testing.T) {
	md := "<!-- contextfs-review -->\n### contextfs review\n\n**1 added**\n\n#### Added (1)\n\n- decision: x\n" +
		"```diff\n# not a heading\n```\n\n#### Deleted (1)\n\n- fact: y\n"
	if got := paintHeadings(iostreams.NewColorScheme(false), md); got != md {
		t.Errorf("without colour the Markdown changed:\n%q", got)
	}
	got := paintHeadings(iostreams.NewColorScheme(true), md)
	for _, want := range []string{"\x1b[1m### contextfs review\x1b[0m\n", "\x1b[32m#### Added (1)\x1b[0m\n", "\x1b[31m#### Deleted (1)\x1b[0m\n", "\n# not a heading\n", "\n- decision: x\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("painted report lacks %q:\n%q", want, got)
		}
	}
	if strings.Count(got, sgr) != 6 {
		t.Errorf("%d escapes, want 6 (three headings, each opened and reset):\n%q", strings.Count(got, sgr), got)
	}
}

// TestAWarmSearchOnATerminalIsColouredAndFittedAsACold: the watcher writes
// to a buffer, so the terminal's colour and width go with the request.
func TestAWarmSearchOnATerminalIsColouredAndFittedAsACold(t *testing.T) {
	bin := filepath.Join(binDir, "git-contextfs")
	dir := warmRepo(t, bin)
	base := []string{"NO_COLOR=", "CLICOLOR_FORCE=", "COLUMNS=40"}
	warm, code := onTerminalEnv(t, dir, append(base, "CONTEXTFS_WARM=only"), "search", "connections to postgres")
	if code != 0 {
		t.Fatalf("warm: exit %d:\n%s", code, warm)
	}
	cold, _ := onTerminalEnv(t, dir, append(base, "CONTEXTFS_WARM=off"), "search", "connections to postgres")
	if warm != cold {
		t.Errorf("warm answer differs from cold\nwarm: %q\ncold: %q", warm, cold)
	}
	if !strings.Contains(warm, sgr) || !strings.Contains(warm, "…") {
		t.Errorf("not coloured and cut to 40 columns: %q", warm)
	}
}
