package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// decisionFile returns an accepted decision memory, which export writes
// under Key decisions.
func decisionFile(id, decision string) string {
	return "---\nid: " + id + "\ntype: decision\ntitle: Decision " + id + "\n" +
		"data:\n  decision: " + decision + "\n  status: accepted\n" +
		"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\nWhy: " + decision + ".\n"
}

// commitAll stages everything in dir and commits it through git, so the
// installed hooks run the test binary; it returns git's stderr.
func commitAll(t *testing.T, dir, msg string) string {
	t.Helper()
	testgit.Run(t, dir, "add", "-A")
	stderr, code := gitEnv(t, dir, []string{"CONTEXTFS_HOOK_DEBUG=1"}, "commit", "-q", "-m", msg)
	if code != 0 {
		t.Fatalf("commit %q: exit %d\n%s", msg, code, stderr)
	}
	return stderr
}

// exportRepo returns a repository with hooks installed and an AGENTS.md
// of the team's own, committed.
func exportRepo(t *testing.T) string {
	t.Helper()
	dir := hookedRepo(t)
	writeFile(t, dir, "AGENTS.md", "# Agents\n\nRun make test before pushing.\n")
	commitAll(t, dir, "agents")
	return dir
}

func TestPostCommitExportIsOffUnlessThisCloneOptsIn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"nothing configured", func(t *testing.T, dir string) {}},
		{"the repository's config.yaml asks for it", func(t *testing.T, dir string) {
			writeFile(t, dir, ".contextfs/config.yaml", "exportOnCommit: agents-md\nexport_on_commit: [agents-md]\n")
			commitAll(t, dir, "repo config")
		}},
		{"a tracked .gitconfig asks for it", func(t *testing.T, dir string) {
			writeFile(t, dir, ".gitconfig", "[contextfs]\n\texportOnCommit = agents-md\n")
			commitAll(t, dir, "tracked gitconfig")
		}},
		{"turned on, then off again", func(t *testing.T, dir string) {
			ok(t, dir, "export", "agents-md", "--on-commit")
			testgit.Run(t, dir, "checkout", "--", "AGENTS.md")
			ok(t, dir, "export", "claude-md", "--on-commit=false")
			if got := testgit.Run(t, dir, "config", "--local", "contextfs.exportOnCommit"); got != "agents-md" {
				t.Fatalf("turning claude-md off changed the list to %q", got)
			}
			before := readFile(t, dir, "AGENTS.md")
			ok(t, dir, "export", "agents-md", "--on-commit=false")
			if readFile(t, dir, "AGENTS.md") != before {
				t.Error("--on-commit=false exported")
			}
			if out, err := testgit.Try(dir, "config", "--local", "contextfs.exportOnCommit"); err == nil {
				t.Fatalf("the key is still set after --on-commit=false: %q", out)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := exportRepo(t)
			tc.setup(t, dir)
			before := readFile(t, dir, "AGENTS.md")
			writeFile(t, dir, ".contextfs/pg.md", decisionFile("pgdecide", "Use PostgreSQL"))
			stderr := commitAll(t, dir, "a decision")
			if strings.Contains(stderr, "export") {
				t.Errorf("the hook exported:\n%s", stderr)
			}
			if got := readFile(t, dir, "AGENTS.md"); got != before {
				t.Errorf("AGENTS.md changed:\n%s", got)
			}
			if _, err := os.Stat(filepath.Join(dir, "CLAUDE.md")); err == nil {
				t.Error("CLAUDE.md was created")
			}
		})
	}
}

func TestPostCommitExportKeepsTheBlockCurrentAndCommitsNothing(t *testing.T) {
	t.Parallel()
	dir := exportRepo(t)
	// The flag's way, then git config's own way for a second target.
	ok(t, dir, "export", "agents-md", "--on-commit")
	if got := testgit.Run(t, dir, "config", "--local", "contextfs.exportOnCommit"); got != "agents-md" {
		t.Fatalf("git config contextfs.exportOnCommit = %q", got)
	}
	testgit.Run(t, dir, "config", "contextfs.exportOnCommit", "agents-md, claude-md")
	commitAll(t, dir, "the empty block")
	head := testgit.Run(t, dir, "rev-parse", "HEAD")

	writeFile(t, dir, ".contextfs/pg.md", decisionFile("pgdecide", "Use PostgreSQL"))
	stderr := commitAll(t, dir, "a decision")
	for _, want := range []string{"export agents-md: update AGENTS.md", "export claude-md: create CLAUDE.md", "exported agents-md, claude-md"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the hook did not say %q:\n%s", want, stderr)
		}
	}
	agents := readFile(t, dir, "AGENTS.md")
	if !strings.HasPrefix(agents, "# Agents\n\nRun make test before pushing.\n") || !strings.Contains(agents, "Use PostgreSQL") {
		t.Errorf("AGENTS.md after the commit:\n%s", agents)
	}
	if !strings.Contains(readFile(t, dir, "CLAUDE.md"), "Use PostgreSQL") {
		t.Error("CLAUDE.md lacks the decision")
	}
	// Left for the person to commit: one commit more than before, the
	// export in the work tree only.
	if got := testgit.Run(t, dir, "rev-list", "--count", head+"..HEAD"); got != "1" {
		t.Errorf("%s commits after the decision's, want 1: the hook committed", got)
	}
	if got := testgit.Run(t, dir, "status", "--porcelain"); !strings.Contains(got, "M AGENTS.md") || !strings.Contains(got, "?? CLAUDE.md") {
		t.Errorf("git status:\n%s", got)
	}

	// Committing the export changes no memory: nothing is exported, no
	// byte changes; nor for a commit of other files.
	commitAll(t, dir, "the export")
	all := treeHashes(t, dir, ".")
	for i, f := range []string{"main.go", "README"} {
		writeFile(t, dir, f, "change "+f+"\n")
		stderr := commitAll(t, dir, "code "+f)
		if !strings.Contains(stderr, "export skipped: the commit changed no memory") {
			t.Errorf("commit %d: the hook did not skip:\n%s", i, stderr)
		}
	}
	delete(all, "README")
	after := treeHashes(t, dir, ".")
	delete(after, "README")
	delete(after, "main.go")
	sameFiles(t, "commits without a memory change", all, after)

	// A memory change that leaves the export as it is changes no byte.
	writeFile(t, dir, ".contextfs/fact.md", memoryFile("factonly", "Not exported.\n"))
	all = treeHashes(t, dir, ".")
	commitAll(t, dir, "a fact")
	sameFiles(t, "a commit of a memory export leaves out", all, treeHashes(t, dir, "."))
}

func TestPostCommitExportNeverFailsTheCommit(t *testing.T) {
	t.Parallel()
	dir := exportRepo(t)
	testgit.Run(t, dir, "config", "contextfs.exportOnCommit", "agents-md,readme")
	// Two BEGIN lines: export refuses the file.
	broken := "# Agents\n<!-- BEGIN contextfs -->\n<!-- BEGIN contextfs -->\n"
	writeFile(t, dir, "AGENTS.md", broken)
	writeFile(t, dir, ".contextfs/pg.md", decisionFile("pgdecide", "Use PostgreSQL"))
	stderr := commitAll(t, dir, "a decision")
	for _, want := range []string{"warning: export agents-md: AGENTS.md", `names "readme", which is no export target`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no warning %q:\n%s", want, stderr)
		}
	}
	if got := readFile(t, dir, "AGENTS.md"); got != broken {
		t.Errorf("the refused file changed:\n%s", got)
	}
}

func TestExportOnCommitFlagRefusesWhatTheHookCannotKeep(t *testing.T) {
	t.Parallel()
	dir := exportRepo(t)
	for _, args := range [][]string{
		{"export", "agents-md", "--on-commit", "--dry-run"},
		{"export", "agents-md", "--on-commit", "--budget", "800"},
	} {
		if r := cli(t, dir, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
	if out, err := testgit.Try(dir, "config", "--local", "contextfs.exportOnCommit"); err == nil {
		t.Errorf("a refused command set the key: %q", out)
	}
}

// TestContextfsCommitExportsAsThePostCommitHookWould: git contextfs commit
// builds its commit with commit-tree, so git runs no post-commit hook; with
// export --on-commit turned on in the clone, the commit itself must export,
// leaving AGENTS.md changed and uncommitted. A dry run exports nothing.
func TestContextfsCommitExportsAsThePostCommitHookWould(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		args       []string
		wantExport bool
	}{
		{"commit", []string{"commit"}, true},
		{"commit --json", []string{"commit", "--json"}, true},
		{"commit --dry-run", []string{"commit", "--dry-run"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := exportRepo(t)
			ok(t, dir, "export", "agents-md", "--on-commit")
			commitAll(t, dir, "exported block")
			writeFile(t, dir, ".contextfs/pg.md", decisionFile("pgdecide", "Use PostgreSQL"))
			r := cli(t, dir, "", tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			exported := strings.Contains(readFile(t, dir, "AGENTS.md"), "Use PostgreSQL")
			if exported != tc.wantExport {
				t.Fatalf("AGENTS.md holds the new decision: %v, want %v\nstderr: %s", exported, tc.wantExport, r.stderr)
			}
			if !tc.wantExport {
				return
			}
			if !strings.Contains(r.stderr, "contextfs: commit: export agents-md: update AGENTS.md (commit it when you are ready)") {
				t.Errorf("stderr does not say what the export changed:\n%s", r.stderr)
			}
			if st := testgit.Run(t, dir, "status", "--porcelain", "--", "AGENTS.md"); !strings.HasPrefix(st, "M") && !strings.HasPrefix(st, " M") {
				t.Errorf("AGENTS.md is not left modified and uncommitted: %q", st)
			}
			if strings.Contains(testgit.Run(t, dir, "show", "HEAD:AGENTS.md"), "Use PostgreSQL") {
				t.Error("the export was committed")
			}
		})
	}
}
