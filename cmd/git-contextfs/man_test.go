package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
)

func TestManPagesCoverEveryCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	if r := inProcess(t, t.TempDir(), "", "man", dir); r.code != 0 {
		t.Fatalf("man: exit %d: %s", r.code, r.stderr)
	}
	ios, _, _, _ := iostreams.Test()
	root := (&app{io: ios}).rootCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return // hidden commands (hook, merge-driver, man) have no page
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page for %q: %v", c.CommandPath(), err)
		} else {
			page := string(b)
			title := ".TH \"" + strings.ToUpper(strings.TrimSuffix(name, ".1")) + "\" \"1\""
			for _, want := range []string{title, ".SH NAME", ".SH SYNOPSIS", c.Short[:10]} {
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

	// What a git user types first: git turns --help into `git help
	// contextfs`, which runs man git-contextfs.
	if _, err := exec.LookPath("man"); err != nil {
		t.Log("man is not installed: the pages were checked, not displayed")
		return
	}
	cmd := exec.Command("git", "contextfs", "--help")
	cmd.Env = append(os.Environ(), "MANPATH="+filepath.Dir(dir)+":", "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "GIT-CONTEXTFS(1)") || !strings.Contains(string(out), "SYNOPSIS") {
		t.Errorf("git contextfs --help does not show the manual (err %v):\n%s", err, out)
	}
}
