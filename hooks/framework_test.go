package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// frameworkInstall does what `pre-commit install` does to the pre-commit
// hook (pre_commit/commands/install_uninstall.py): a hook file that is
// not its own moves to pre-commit.legacy; then its own file is written,
// replacing any file that carries its marker, whatever else that file
// holds.
func frameworkInstall(t *testing.T, r *repo) {
	t.Helper()
	hook := filepath.Join(r.dir, ".git", "hooks", "pre-commit")
	if b, err := os.ReadFile(hook); err == nil && !isFrameworkHook(b) {
		if err := os.Rename(hook, hook+legacySuffix); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(r.dir, "helpers", "python"), fakePython, 0o755)
	writeTestFile(t, hook, strings.ReplaceAll(preCommitHook, "@DIR@", filepath.Join(r.dir, "helpers")), 0o755)
}

func TestStatusTellsTheTruthBesideThePreCommitFramework(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		steps  []string // "framework", "contextfs", "config"
		want   State    // Name and Path filled in by the test
		legacy bool     // want.Path is the .legacy file
	}{
		{name: "framework only", steps: []string{"framework"},
			want: State{Chained: true, Framework: true}, legacy: true},
		{name: "framework listing contextfs in its config", steps: []string{"config", "framework"},
			want: State{Chained: true, Framework: true, ViaFramework: true}, legacy: true},
		{name: "contextfs, then framework", steps: []string{"contextfs", "framework"},
			want: State{Installed: true, Chained: true, Executable: true, Framework: true}, legacy: true},
		{name: "framework, then contextfs, then framework again", steps: []string{"framework", "contextfs", "framework"},
			want: State{Installed: true, Chained: true, Executable: true, Framework: true}, legacy: true},
		{name: "contextfs, framework, contextfs, framework", steps: []string{"contextfs", "framework", "contextfs", "framework"},
			want: State{Installed: true, Chained: true, Executable: true, Framework: true}, legacy: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			for _, s := range tt.steps {
				switch s {
				case "framework":
					frameworkInstall(t, r)
				case "contextfs":
					mustInstall(t, r.dir, "pre-commit")
				case "config":
					writeTestFile(t, filepath.Join(r.dir, FrameworkConfig), "repos:\n- repo: local\n  hooks:\n  - id: contextfs\n", 0o644)
				}
			}
			states, err := Status(context.Background(), r.dir)
			if err != nil {
				t.Fatal(err)
			}
			got := stateOf(t, states, "pre-commit")
			want := tt.want
			want.Name, want.Path = "pre-commit", filepath.Join(r.dir, ".git", "hooks", "pre-commit")
			if tt.legacy {
				want.Path += legacySuffix
			}
			if got != want {
				t.Errorf("Status = %+v,\nwant     %+v", got, want)
			}
			if want.Installed {
				// And the check really runs, once, through the framework.
				if stderr, err := r.commit(r.dir); err != nil {
					t.Fatalf("commit: %v\n%s", err, stderr)
				}
				if n := r.calls("hook pre-commit"); n != 1 {
					t.Errorf("our pre-commit ran %d times, want once; log %q", n, r.logLines())
				}
				if _, err := r.commit(r.dir, "CONTEXTFS_TEST_FAIL=pre-commit"); err == nil {
					t.Errorf("a failing contextfs check did not stop the commit through the framework")
				}
			}
		})
	}
}
