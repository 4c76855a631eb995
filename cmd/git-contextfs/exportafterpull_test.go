package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestPullExportsAsThePostCommitHookWould: a pull that brings in memory
// changes (a teammate without the export opted in committed a decision)
// leaves AGENTS.md stale until the next commit unless the post-merge
// (merge, fast-forward) or post-rewrite (rebase) hook exports, as
// post-commit does: only in a clone that opted in, only when memories
// changed, never a commit of its own. Through git's real hooks.
func TestPullExportsAsThePostCommitHookWould(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		optIn      bool
		local      bool // the clone commits a file of its own before pulling
		upstream   func(t *testing.T, dir string)
		pull       []string
		wantExport bool
		wantNote   string // CONTEXTFS_HOOK_DEBUG's note, when no export
	}{
		{"a fast-forward pull of a decision exports", true, false, upstreamDecision, []string{"pull", "-q", "--ff-only"}, true, ""},
		{"a merge pull of a decision exports", true, true, upstreamDecision, []string{"pull", "-q", "--no-rebase", "--no-edit"}, true, ""},
		{"a rebase pull of a decision exports", true, true, upstreamDecision, []string{"pull", "-q", "--rebase"}, true, ""},
		{"a pull without memory changes does not", true, false, func(t *testing.T, dir string) {
			writeFile(t, dir, "README", "changed upstream\n")
			commitAll(t, dir, "readme")
		}, []string{"pull", "-q", "--ff-only"}, false, "export skipped: no memory changed"},
		{"a clone that did not opt in does not", false, false, upstreamDecision, []string{"pull", "-q", "--ff-only"}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			upstream := exportRepo(t)
			ok(t, upstream, "export", "agents-md")
			commitAll(t, upstream, "the export")
			clone := filepath.Join(t.TempDir(), "clone")
			testgit.Run(t, upstream, "clone", "-q", upstream, clone)
			testgit.Run(t, clone, "config", "user.name", "Grace Hopper")
			testgit.Run(t, clone, "config", "user.email", "grace@example.com")
			ok(t, clone, "hooks", "install")
			if tc.optIn {
				testgit.Run(t, clone, "config", "contextfs.exportOnCommit", "agents-md")
			}
			if tc.local {
				writeFile(t, clone, "local.txt", "mine\n")
				commitAll(t, clone, "local")
			}
			tc.upstream(t, upstream)
			before := readFile(t, clone, "AGENTS.md")

			stderr, code := gitEnv(t, clone, []string{"CONTEXTFS_HOOK_DEBUG=1"}, tc.pull...)
			if code != 0 {
				t.Fatalf("git %v: exit %d\n%s", tc.pull, code, stderr)
			}
			agents := readFile(t, clone, "AGENTS.md")
			status := testgit.Run(t, clone, "status", "--porcelain")
			if tc.wantExport {
				if !strings.Contains(agents, "Use PostgreSQL") {
					t.Errorf("AGENTS.md lacks the pulled decision:\n%s\nstderr:\n%s", agents, stderr)
				}
				if !strings.Contains(stderr, "export agents-md: update AGENTS.md (commit it when you are ready)") {
					t.Errorf("the hook did not say it exported:\n%s", stderr)
				}
				if !strings.Contains(status, "M AGENTS.md") {
					t.Errorf("git status %q: want AGENTS.md changed and left uncommitted", status)
				}
			} else {
				if agents != before {
					t.Errorf("AGENTS.md changed:\n%s", agents)
				}
				if strings.Contains(stderr, "export agents-md") {
					t.Errorf("the hook exported:\n%s", stderr)
				}
				if tc.wantNote != "" && !strings.Contains(stderr, tc.wantNote) {
					t.Errorf("no note %q:\n%s", tc.wantNote, stderr)
				}
			}
			// The hook commits nothing: HEAD's AGENTS.md is the one pulled.
			if got, want := testgit.Run(t, clone, "show", "HEAD:AGENTS.md"), testgit.Run(t, upstream, "show", "HEAD:AGENTS.md"); got != want {
				t.Errorf("HEAD's AGENTS.md is not upstream's: the hook committed\n%s", got)
			}
		})
	}
}

// upstreamDecision commits an accepted decision in dir with plain git,
// as a teammate whose clone exports nothing would.
func upstreamDecision(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, dir, ".contextfs/pg.md", decisionFile("pgdecide", "Use PostgreSQL"))
	commitAll(t, dir, "a decision")
}
