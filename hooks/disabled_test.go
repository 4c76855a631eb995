package hooks

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallNeverTurnsOnAHookItsOwnerTurnedOff gives Install a hook file
// without the executable bit, where git skips it: Install leaves it byte
// for byte and mode for mode, says so with a *DisabledError naming the file,
// installs the other hooks, and a commit does not run the owner's script.
// An older Install made such a file executable, running the script again.
func TestInstallNeverTurnsOnAHookItsOwnerTurnedOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, hooksPath, hook, content string
		track                          bool
	}{
		{name: "a script in .git/hooks", hook: ".git/hooks/pre-commit", content: plainHook},
		{name: "an empty file", hook: ".git/hooks/pre-commit", content: ""},
		{name: "a tracked script in core.hooksPath", hooksPath: ".githooks", hook: ".githooks/pre-commit", content: plainHook, track: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			hook := filepath.Join(r.dir, filepath.FromSlash(tt.hook))
			writeTestFile(t, hook, tt.content, 0o644)
			if tt.hooksPath != "" {
				r.git("config", "core.hooksPath", tt.hooksPath)
			}
			if tt.track {
				r.git("add", tt.hook)
				r.git("commit", "-q", "--no-verify", "-m", "hooks")
			}
			before := snap(t, hook)
			states, err := Install(context.Background(), r.dir, nil)
			var de *DisabledError
			if !errors.As(err, &de) || de.Path != hook || de.Name != "pre-commit" {
				t.Fatalf("Install error = %v, want a *DisabledError for %s", err, hook)
			}
			if msg := err.Error(); !strings.Contains(msg, hook) || !strings.Contains(msg, "chmod +x") {
				t.Errorf("the error does not name the file and the way out: %s", msg)
			}
			if got := snap(t, hook); got != before {
				t.Errorf("the hook changed: %q mode %04o, was %q mode %04o", got.data, got.perm, before.data, before.perm)
			}
			for _, st := range states {
				if st.Name == "pre-commit" {
					if st.Installed || st.Executable || st.Tracked != tt.track {
						t.Errorf("pre-commit state %+v, want not installed, not executable, tracked %v", st, tt.track)
					}
				} else if !st.Installed || !st.Executable {
					t.Errorf("%s state %+v, want installed", st.Name, st)
				}
			}
			if stderr, err := r.commit(r.dir); err != nil {
				t.Fatalf("commit: %v\n%s", err, stderr)
			}
			if got := r.readMarker(); got != "" {
				t.Errorf("the turned-off hook ran: %q", got)
			}
		})
	}
}
