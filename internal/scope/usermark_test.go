package scope

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestTheUserStoreMarkIsReadFromTheConfigFile: opening the user store
// reads its mark from its own .git/config, starting no git process on
// every user-scope command; git answers only where the file uses what
// gitstore does not read (an include). A git on PATH that records its
// calls and fails tells which.
func TestTheUserStoreMarkIsReadFromTheConfigFile(t *testing.T) {
	testgit.Isolate(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		config  string // appended to the repository's .git/config
		want    bool
		askGit  bool
		wantGit string // with askGit, what the recording git is asked
	}{
		{"a marked store", "[contextfs]\n\tuserStore = true\n", true, false, ""},
		{"a key without a value is true", "[contextfs]\n\tuserstore\n", true, false, ""},
		{"names without case", "[ContextFS]\n\tUSERSTORE = yes\n", true, false, ""},
		{"the last setting wins", "[contextfs]\n\tuserStore = true\n\tuserStore = off\n", false, false, ""},
		{"an unmarked store", "", false, false, ""},
		{"a store marked false", "[contextfs]\n\tuserStore = false\n", false, false, ""},
		{"an include is read by git", "[include]\n\tpath = other\n[contextfs]\n\tuserStore = true\n", false, true,
			"config --local --includes --type=bool --get contextfs.userStore\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tt.config)
			f.Close()
			bin := t.TempDir()
			log := filepath.Join(bin, "calls")
			if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$*\" >> '"+log+"'\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin)
			// The recording git fails: a store read through it is unmarked.
			if got := markedUserStore(ctx, dir); got != tt.want {
				t.Errorf("markedUserStore = %v, want %v", got, tt.want)
			}
			calls, _ := os.ReadFile(log)
			if tt.askGit && string(calls) != tt.wantGit || !tt.askGit && len(calls) != 0 {
				t.Errorf("git was run with %q; want %q", calls, tt.wantGit)
			}
		})
	}
}
