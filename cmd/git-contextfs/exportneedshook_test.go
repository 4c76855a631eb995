package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestDoctorAndHooksStatusSayAnExportNeedsThePostCommitHook: a clone whose
// git config asks for contextfs.exportOnCommit while the post-commit hook
// will not run gets nothing exported; doctor warns and hooks status notes
// it, naming the fix. With the hook, doctor says what is exported; with
// the key unset, neither mentions it.
func TestDoctorAndHooksStatusSayAnExportNeedsThePostCommitHook(t *testing.T) {
	t.Parallel()
	const advice = "exports on commit need the post-commit hook: git contextfs hooks install"
	tests := []struct {
		name        string
		repo        func(t testing.TB) string
		optIn       bool
		wantCheck   bool   // doctor lists export-on-commit
		wantWarning bool   // … as a warning
		wantMessage string // … saying this
	}{
		{"set, with the post-commit hook", hookedRepo, true, true, false, "the hooks export agents-md after commits"},
		{"set, without any hook", testgit.Init, true, true, true, advice},
		{"set, with the post-commit hook deleted", func(t testing.TB) string {
			dir := hookedRepo(t)
			if err := os.Remove(filepath.Join(dir, ".git", "hooks", "post-commit")); err != nil {
				t.Fatal(err)
			}
			return dir
		}, true, true, true, advice},
		{"unset", testgit.Init, false, false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tc.repo(t)
			if tc.optIn {
				testgit.Run(t, dir, "config", "contextfs.exportOnCommit", "agents-md")
			}
			rep, _ := doctor(t, dir)
			found := false
			for _, c := range rep.Checks {
				if c.Name != "export-on-commit" {
					continue
				}
				found = true
				if !c.OK || c.Warning != tc.wantWarning || !strings.Contains(c.Message, tc.wantMessage) {
					t.Errorf("doctor's export-on-commit: ok %v, warning %v, %q; want a warning %v saying %q", c.OK, c.Warning, c.Message, tc.wantWarning, tc.wantMessage)
				}
			}
			if found != tc.wantCheck {
				t.Errorf("doctor lists export-on-commit: %v, want %v", found, tc.wantCheck)
			}

			st := cli(t, dir, "", "hooks", "status")
			if st.code != 0 {
				t.Fatalf("hooks status: exit %d\n%s", st.code, st.stderr)
			}
			if has := strings.Contains(st.stderr, "note: git config contextfs.exportOnCommit is agents-md, but "+advice); has != tc.wantWarning {
				t.Errorf("hooks status notes it: %v, want %v\nstderr: %s", has, tc.wantWarning, st.stderr)
			}
			var js map[string]any
			decodeJSON(t, ok(t, dir, "hooks", "status", "--json"), &js)
			if _, has := js["export_on_commit"]; has != tc.wantWarning {
				t.Errorf("hooks status --json has export_on_commit: %v, want %v", has, tc.wantWarning)
			}
		})
	}
}
