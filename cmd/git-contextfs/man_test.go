package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/testgit"
)

// buildManGenerator builds the manual-page generator, git-contextfs with
// -tags manpages, as make install does, and returns its path.
func buildManGenerator(t *testing.T) string {
	t.Helper()
	gen := filepath.Join(t.TempDir(), "git-contextfs-man")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5 manpages", "-buildvcs=false", "-o", gen, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the man generator: %v\n%s", err, out)
	}
	return gen
}

// TestManPagesCoverEveryCommand runs the generator as make install does
// and checks a page per available command, none for a hidden one, each
// one rendered by man with its name, synopsis and examples; help laid out
// by hand (doctor's table of checks) kept as laid out; and what a git user
// types first, `git contextfs --help`, showing the manual.
func TestManPagesCoverEveryCommand(t *testing.T) {
	gen := buildManGenerator(t)
	dir := filepath.Join(t.TempDir(), "man1")
	cmd := exec.Command(gen, "man", dir)
	cmd.Env = append(testgit.Env(), "SOURCE_DATE_EPOCH=1793491200") // 1 Nov 2026
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("man: %v\n%s", err, out)
	}
	_, manErr := exec.LookPath("man")
	render := func(t *testing.T, name string) string {
		t.Helper()
		cmd := exec.Command("man", "-l", filepath.Join(dir, name))
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=200")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("man -l %s: %v", name, err)
		}
		return string(out)
	}
	ios, _, _, _ := iostreams.Test()
	root := (&app{io: ios}).rootCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return // hidden commands (hook, merge-driver, man) have no page
		}
		dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
		name := dashed + ".1"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page for %q: %v", c.CommandPath(), err)
		} else {
			page := string(b)
			for _, want := range []string{`.TH "` + strings.ToUpper(dashed) + `" "1" "Nov 2026" "contextfs dev"`, ".SH NAME", ".SH SYNOPSIS"} {
				if !strings.Contains(page, want) {
					t.Errorf("%s lacks %q", name, want)
				}
			}
			if c.Example != "" && !strings.Contains(page, ".SH EXAMPLE") {
				t.Errorf("%s lacks the examples", name)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, hidden := range []string{"git-contextfs-hook.1", "git-contextfs-merge-driver.1", "git-contextfs-man.1"} {
		if _, err := os.Stat(filepath.Join(dir, hidden)); err == nil {
			t.Errorf("%s written for a hidden command", hidden)
		}
	}
	if manErr != nil {
		t.Log("man is not installed: the pages were checked, not displayed")
		return
	}

	tests := []struct {
		name, page string
		want       []string
	}{
		{"the name line", "git-contextfs-list.1", []string{"GIT-CONTEXTFS-LIST(1)", "git-contextfs-list - List memories, newest first"}},
		{"the synopsis", "git-contextfs-search.1", []string{"git-contextfs search QUERY | --path FILE [flags]"}},
		{"an option with its shorthand and default", "git-contextfs-list.1", []string{"-n, --limit=0"}},
		{"an indented table kept as laid out", "git-contextfs-doctor.1",
			[]string{"\n         hooks          installed, up to date, executable (not installed: a warning)\n"}},
		{"the examples as typed", "git-contextfs.1", []string{"\n         git contextfs search \"how do we pool db connections\"\n"}},
		{"see also the subcommands", "git-contextfs-hooks.1", []string{"git-contextfs-hooks-install(1)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, tc.page)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("man -l %s lacks %q:\n%s", tc.page, w, page)
				}
			}
		})
	}

	// git turns --help into `git help contextfs`, which runs man
	// git-contextfs.
	help := exec.Command("git", "contextfs", "--help")
	help.Env = append(os.Environ(), "MANPATH="+filepath.Dir(dir)+":", "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
	out, err := help.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "GIT-CONTEXTFS(1)") || !strings.Contains(string(out), "SYNOPSIS") {
		t.Errorf("git contextfs --help does not show the manual (err %v):\n%s", err, out)
	}
}

// TestManGeneratorTakesItsFolderFromC checks that the generator's DIR is
// taken from -C, as every command's paths are, and that a date that is
// not a number of seconds is an error naming it.
func TestManGeneratorTakesItsFolderFromC(t *testing.T) {
	gen := buildManGenerator(t)
	top := t.TempDir()
	if err := os.Mkdir(filepath.Join(top, "r"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(env string, args ...string) result {
		cmd := exec.Command(gen, args...)
		cmd.Dir = top
		cmd.Env = append(testgit.Env(), env)
		return runProcess(t, cmd)
	}
	if r := run("SOURCE_DATE_EPOCH=0", "-C", "r", "man", "man1"); r.code != 0 {
		t.Fatalf("man -C r man1: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(top, "r", "man1", "git-contextfs.1")); err != nil {
		t.Errorf("man -C r man1 wrote no r/man1/git-contextfs.1: %v", err)
	}
	if _, err := os.Stat(filepath.Join(top, "man1")); err == nil {
		t.Errorf("man -C r man1 wrote into the current folder's man1")
	}
	if r := run("SOURCE_DATE_EPOCH=yesterday", "man", "m"); r.code == 0 || !strings.Contains(r.stderr, `SOURCE_DATE_EPOCH "yesterday"`) {
		t.Errorf("a bad SOURCE_DATE_EPOCH: exit %d, stderr %q; want an error naming it", r.code, r.stderr)
	}
}

// TestShippedCLILinksNoManRenderer checks that only the generator build
// links cobra/doc and its Markdown renderer, and that the shipped
// program's man says where the pages come from instead of writing none.
func TestShippedCLILinksNoManRenderer(t *testing.T) {
	deps := func(tags string) []string {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, ".").Output()
		if err != nil {
			t.Fatalf("go list -deps -tags %q: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	renderer := []string{"github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man/v2/md2man", "github.com/russross/blackfriday/v2"}
	shipped, generator := deps("sqlite_fts5"), deps("sqlite_fts5 manpages")
	for _, pkg := range renderer {
		if slices.Contains(shipped, pkg) {
			t.Errorf("git-contextfs links %s; only the man generator may", pkg)
		}
		if !slices.Contains(generator, pkg) {
			t.Errorf("the man generator does not link %s: is it still cobra/doc that writes the pages?", pkg)
		}
	}
	r := cli(t, t.TempDir(), "", "man", "man1")
	if r.code != exitUsage || !strings.Contains(r.stderr, "-tags 'sqlite_fts5 manpages'") {
		t.Errorf("git-contextfs man: exit %d, stderr %q; want a usage error saying how to build the generator", r.code, r.stderr)
	}
}
