package hooks

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRebaseInProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		paths []string // directories, or files when ending in "applying"
		want  bool
	}{
		{"nothing under way", nil, false},
		{"merge backend", []string{"rebase-merge"}, true},
		{"apply backend", []string{"rebase-apply"}, true},
		{"git am is not a rebase", []string{"rebase-apply", "rebase-apply/applying"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gitDir := t.TempDir()
			for _, p := range tt.paths {
				p = filepath.Join(gitDir, p)
				var err error
				if filepath.Base(p) == "applying" {
					err = os.WriteFile(p, nil, 0o644)
				} else {
					err = os.Mkdir(p, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := RebaseInProgress(gitDir); got != tt.want {
				t.Errorf("RebaseInProgress = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRebaseInProgressDuringRealRebase(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.git("commit", "-q", "--allow-empty", "-m", "one")
	gitDir := filepath.Join(r.dir, ".git")
	if RebaseInProgress(gitDir) {
		t.Fatal("RebaseInProgress before any rebase")
	}
	// A todo list starting with break stops the rebase half way, as a
	// conflict would.
	editor := filepath.Join(t.TempDir(), "editor")
	writeTestFile(t, editor, "#!/bin/sh\n{ echo break; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n", 0o755)
	if _, errOut, err := r.runIn(r.dir, []string{"GIT_SEQUENCE_EDITOR=" + editor}, "rebase", "-q", "-i", "HEAD~1"); err != nil {
		t.Fatalf("rebase: %v\n%s", err, errOut)
	}
	if !RebaseInProgress(gitDir) {
		t.Error("RebaseInProgress = false while a rebase is stopped")
	}
	r.git("rebase", "--abort")
	if RebaseInProgress(gitDir) {
		t.Error("RebaseInProgress = true after the rebase was aborted")
	}
}

func TestFileCheckout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"a", "b", "0"}, true},
		{[]string{"a", "b", "1"}, false},
		{[]string{"a", "b"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := FileCheckout(tt.args); got != tt.want {
			t.Errorf("FileCheckout(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
