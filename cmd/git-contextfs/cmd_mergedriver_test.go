package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/testgit"
)

// driverMemory is a memory as contextfs writes it, with a three-paragraph
// body, so that two branches can edit different ends of it.
const driverMemory = `---
id: k3x9m2abcd
type: decision
title: Pool DB connections with pgxpool
tags:
  - db
  - postgres
created: 2024-05-01T10:00:00Z
updated: 2024-05-01T10:00:00Z
data:
  decision: pgxpool, 20 per instance
  status: accepted
---
We pool Postgres connections with pgxpool.

Each process opens one pool of 20 connections.

See the runbook for tuning.
`

const driverPath = ".contextfs/memories/pool-db-connections-k3x9m2abcd.md"

// replace returns s with each pair of old, new strings replaced once,
// failing the test when old is missing.
func replace(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("replace: %q not found in\n%s", pairs[i], s)
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// Branch edits: a adds tag x and edits the first paragraph, b adds tag y
// and edits the last; both bump updated.
var (
	editA = []string{"  - postgres\n", "  - postgres\n  - x\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-06-01T10:00:00Z",
		"We pool Postgres connections with pgxpool.", "We pool Postgres connections with pgxpool v5."}
	editB = []string{"  - postgres\n", "  - postgres\n  - y\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-07-01T10:00:00Z",
		"See the runbook for tuning.", "See docs/runbook.md for tuning."}
	titleA = []string{"title: Pool DB connections with pgxpool", "title: Use pgx"}
	titleB = []string{"title: Pool DB connections with pgxpool", "title: Use pgxpool"}
)

// driverRepo makes a repository whose .gitattributes routes memories to
// the contextfs merge driver, configured in git only when driver is set
// (a clone without it falls back to git's text merge), with driverMemory
// committed on main and branches a and b each applying their edits.
func driverRepo(t *testing.T, driver bool, a, b []string) string {
	t.Helper()
	dir := testgit.Init(t)
	if driver {
		testgit.Run(t, dir, "config", "merge.contextfs.driver", "git-contextfs merge-driver %O %A %B %P")
	}
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitattributes", ".contextfs/**/*.md merge=contextfs\n")
	write(driverPath, driverMemory)
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	for _, br := range []struct {
		name  string
		edits []string
	}{{"a", a}, {"b", b}} {
		testgit.Run(t, dir, "checkout", "-q", "-b", br.name, "main")
		write(driverPath, replace(t, driverMemory, br.edits...))
		testgit.Run(t, dir, "commit", "-q", "-a", "-m", "edit on "+br.name)
	}
	testgit.Run(t, dir, "checkout", "-q", "a")
	return dir
}

func readMemory(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, driverPath))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// requireMergeDriver stops the test with a clear message when the binary
// does not have the merge-driver command registered: git would then treat
// every merge as a conflict and the failures would be puzzling.
func requireMergeDriver(t *testing.T) {
	t.Helper()
	if r := cli(t, t.TempDir(), "", "merge-driver", "-h"); r.code != 0 {
		t.Fatalf("git-contextfs merge-driver is not available (register a.mergeDriverCmd() with the root command): exit %d\n%s", r.code, r.stderr)
	}
}

// conflicted returns the paths git lists as unmerged.
func conflicted(t *testing.T, dir string) string {
	t.Helper()
	return testgit.Run(t, dir, "diff", "--name-only", "--diff-filter=U")
}

func TestMergeDriverMergesDifferentEdits(t *testing.T) {
	requireMergeDriver(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"merge", []string{"merge", "--no-edit", "b"},
			replace(t, driverMemory, "  - postgres\n", "  - postgres\n  - x\n  - y\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-07-01T10:00:00Z",
				"We pool Postgres connections with pgxpool.", "We pool Postgres connections with pgxpool v5.",
				"See the runbook for tuning.", "See docs/runbook.md for tuning.")},
		// A rebase replays a onto b: b is ours, so its tag comes first.
		{"rebase", []string{"rebase", "b"},
			replace(t, driverMemory, "  - postgres\n", "  - postgres\n  - y\n  - x\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-07-01T10:00:00Z",
				"We pool Postgres connections with pgxpool.", "We pool Postgres connections with pgxpool v5.",
				"See the runbook for tuning.", "See docs/runbook.md for tuning.")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := driverRepo(t, true, editA, editB)
			if out, err := testgit.Try(dir, tt.args...); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(tt.args, " "), err, out)
			}
			if got := readMemory(t, dir); got != tt.want {
				t.Errorf("merged memory:\n%s\nwant:\n%s", got, tt.want)
			}
			if st := testgit.Run(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("work tree not clean after the %s:\n%s", tt.name, st)
			}
			ok(t, dir, "validate")
		})
	}
}

func TestMergeDriverStopsOnConflictingField(t *testing.T) {
	requireMergeDriver(t)
	for _, tt := range []struct {
		name       string
		args       []string
		ours, thrs string
		labels     [2]string // the markers' names for the sides
	}{
		// git merge names the other side: the markers name both branches.
		{"merge", []string{"merge", "--no-edit", "b"}, "title: Use pgx", "title: Use pgxpool", [2]string{"a", "b"}},
		// A rebase names neither side to the driver.
		{"rebase", []string{"rebase", "b"}, "title: Use pgxpool", "title: Use pgx", [2]string{"ours", "theirs"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := driverRepo(t, true, append(titleA, editA...), append(titleB, editB...))
			out, err := testgit.Try(dir, tt.args...)
			if err == nil {
				t.Fatalf("git %s succeeded despite conflicting titles:\n%s", strings.Join(tt.args, " "), out)
			}
			if !strings.Contains(out, driverPath+": title: both sides changed it") {
				t.Errorf("git output does not show the driver's report:\n%s", out)
			}
			got := readMemory(t, dir)
			markers := "<<<<<<< " + tt.labels[0] + "\n" + tt.ours + "\n=======\n" + tt.thrs + "\n>>>>>>> " + tt.labels[1] + "\n"
			if !strings.Contains(got, markers) {
				t.Errorf("memory lacks the title conflict:\n%s\nwant:\n%s", got, markers)
			}
			// The rest still merged: both tags and both body edits.
			for _, s := range []string{"  - x\n", "  - y\n", "pgxpool v5.", "See docs/runbook.md"} {
				if !strings.Contains(got, s) {
					t.Errorf("memory lacks %q:\n%s", s, got)
				}
			}
			if u := conflicted(t, dir); u != driverPath {
				t.Errorf("unmerged paths = %q, want %q", u, driverPath)
			}
			r := cli(t, dir, "", "validate")
			if r.code != 1 || !strings.Contains(r.stdout, driverPath+":4: conflict:") {
				t.Errorf("validate: exit %d, want 1 naming %s:4\nstdout: %s\nstderr: %s", r.code, driverPath, r.stdout, r.stderr)
			}
		})
	}
}

// TestMergeDriverAbsentPlainGit pins down what a clone without the driver
// configured gets from git's own line merge: tags appended at the end of
// the list on both sides touch the same spot and conflict, while tags
// added apart and edits to different paragraphs merge.
func TestMergeDriverAbsentPlainGit(t *testing.T) {
	t.Run("tags appended on both sides conflict", func(t *testing.T) {
		dir := driverRepo(t, false, editA[:2], editB[:2])
		if out, err := testgit.Try(dir, "merge", "--no-edit", "b"); err == nil {
			t.Fatalf("plain git merged adjacent tag insertions; update the documentation:\n%s", out)
		}
		got := readMemory(t, dir)
		want := "  - postgres\n<<<<<<< HEAD\n  - x\n=======\n  - y\n>>>>>>> b\n"
		if !strings.Contains(got, want) {
			t.Errorf("memory:\n%s\nwant it to contain:\n%s", got, want)
		}
	})
	t.Run("tags added apart and paragraph edits merge", func(t *testing.T) {
		a := []string{"tags:\n", "tags:\n  - x\n", editA[4], editA[5]}
		b := []string{editB[0], editB[1], editB[4], editB[5]}
		dir := driverRepo(t, false, a, b)
		if out, err := testgit.Try(dir, "merge", "--no-edit", "b"); err != nil {
			t.Fatalf("git merge: %v\n%s", err, out)
		}
		want := replace(t, driverMemory, "tags:\n  - db\n  - postgres\n", "tags:\n  - x\n  - db\n  - postgres\n  - y\n",
			editA[4], editA[5], editB[4], editB[5])
		if got := readMemory(t, dir); got != want {
			t.Errorf("merged memory:\n%s\nwant:\n%s", got, want)
		}
		ok(t, dir, "validate")
	})
}

// TestMergeDriverCommand runs the command in process, without git.
func TestMergeDriverCommand(t *testing.T) {
	other := replace(t, driverMemory, editB...)
	otherTitle := replace(t, other, titleB...)
	tests := []struct {
		name       string
		current    string
		other      string // OTHER, when not other
		missing    bool   // BASE does not exist
		args       int    // 3 or 4 arguments
		wantCode   int
		wantFile   string // CURRENT afterwards
		wantStderr string
	}{
		{
			name:     "clean merge writes CURRENT and prints nothing",
			current:  replace(t, driverMemory, editA...),
			args:     4,
			wantFile: replace(t, driverMemory, "  - postgres\n", "  - postgres\n  - x\n  - y\n", "updated: 2024-05-01T10:00:00Z", "updated: 2024-07-01T10:00:00Z", editA[4], editA[5], editB[4], editB[5]),
		},
		{
			name:       "conflict writes markers, reports each conflict with PATH and exits 1",
			current:    replace(t, driverMemory, titleA...),
			other:      otherTitle,
			args:       4,
			wantCode:   1,
			wantFile:   replace(t, other, "title: Pool DB connections with pgxpool\n", "<<<<<<< ours\ntitle: Use pgx\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"),
			wantStderr: driverPath + ": title: both sides changed it\n",
		},
		{
			name:       "without PATH conflicts are reported with CURRENT",
			current:    replace(t, driverMemory, titleA...),
			other:      otherTitle,
			args:       3,
			wantCode:   1,
			wantFile:   replace(t, other, "title: Pool DB connections with pgxpool\n", "<<<<<<< ours\ntitle: Use pgx\n=======\ntitle: Use pgxpool\n>>>>>>> theirs\n"),
			wantStderr: "CURRENT: title: both sides changed it\n",
		},
		{
			name:       "unreadable BASE leaves CURRENT alone and exits 2",
			current:    replace(t, driverMemory, editA...),
			missing:    true,
			args:       4,
			wantCode:   2,
			wantFile:   replace(t, driverMemory, editA...),
			wantStderr: "git-contextfs merge-driver: " + driverPath + ": open ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := func(name string) string { return filepath.Join(dir, name) }
			if tt.other == "" {
				tt.other = other
			}
			for name, content := range map[string]string{"BASE": driverMemory, "CURRENT": tt.current, "OTHER": tt.other} {
				if name == "BASE" && tt.missing {
					continue
				}
				if err := os.WriteFile(p(name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{p("BASE"), p("CURRENT"), p("OTHER"), driverPath}[:tt.args]
			ios, _, stdout, stderr := iostreams.Test()
			cmd := (&app{io: ios}).mergeDriverCmd()
			cmd.SetArgs(args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			code := 0
			var ee *exitError
			switch {
			case errors.As(err, &ee):
				code = ee.code
			case err != nil:
				t.Fatalf("unexpected error: %v", err)
			}
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr: %s)", code, tt.wantCode, stderr.String())
			}
			got, err := os.ReadFile(p("CURRENT"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.wantFile {
				t.Errorf("CURRENT:\n%s\nwant:\n%s", got, tt.wantFile)
			}
			stderrText := strings.ReplaceAll(stderr.String(), p("CURRENT"), "CURRENT")
			if tt.wantStderr == "" && stderrText != "" || !strings.HasPrefix(stderrText, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to start with %q", stderrText, tt.wantStderr)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			files := 3
			if tt.missing {
				files = 2
			}
			if entries, _ := os.ReadDir(dir); len(entries) != files {
				t.Errorf("left %d files in the folder, want %d: no temporary files", len(entries), files)
			}
		})
	}
	t.Run("wrong number of arguments is a usage error", func(t *testing.T) {
		ios, _, _, stderr := iostreams.Test()
		ios.Out = stderr
		cmd := (&app{io: ios}).mergeDriverCmd()
		cmd.SetArgs([]string{"a", "b"})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		var ue *usageError
		if err := cmd.Execute(); !errors.As(err, &ue) {
			t.Errorf("Execute = %v, want a usage error", err)
		}
	})
}
