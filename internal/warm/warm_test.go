package warm

import (
	"slices"
	"testing"
)

// TestTheEnvironmentIsCarriedPinnedOrIgnored pins which of a caller's
// variables the watcher applies for the call, which it requires to be
// its own, and which cannot change an answer.
func TestTheEnvironmentIsCarriedPinnedOrIgnored(t *testing.T) {
	tests := []struct {
		kv              string
		carried, pinned bool
	}{
		{"PATH=/x:/usr/bin", false, false},
		{"GIT_EXEC_PATH=/usr/lib/git-core", false, false},
		{"CONTEXTFS_WARM=only", false, false},
		{"CONTEXTFS_WATCH=on", false, false},
		{"XDG_SESSION_ID=3", false, false},
		{"TERM=xterm", false, false},
		{"HOME=/home/ada", true, false},
		{"XDG_DATA_HOME=/d", true, false},
		{"XDG_CONFIG_HOME=/c", true, false},
		{"CONTEXTFS_USER_DIR=/u", true, false},
		{"CONTEXTFS_EMBEDDER=builtin", true, false},
		{"GIT_CONFIG_GLOBAL=/g", true, false},
		{"GIT_AUTHOR_NAME=Ada", true, false},
		{"OPENAI_BASE_URL=http://x", true, false},
		{"MY_EMBED_KEY=k", true, false}, // the config's api_key_env
		{"GIT_DIR=/r/.git", false, true},
		{"GIT_WORK_TREE=/r", false, true},
		{"GIT_INDEX_FILE=/tmp/i", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.kv, func(t *testing.T) {
			env := []string{tt.kv}
			if got := len(Carried(env, "MY_EMBED_KEY")) == 1; got != tt.carried {
				t.Errorf("carried = %v, want %v", got, tt.carried)
			}
			if got := len(pinnedOf(env)) == 1; got != tt.pinned {
				t.Errorf("pinned = %v, want %v", got, tt.pinned)
			}
		})
	}
	if got := Carried([]string{"HOME=/h", "CONTEXTFS_USER_DIR=/u", "PATH=/p"}, ""); !slices.Equal(got, []string{"CONTEXTFS_USER_DIR=/u", "HOME=/h"}) {
		t.Errorf("Carried = %q, want sorted HOME and CONTEXTFS_USER_DIR", got)
	}
}
