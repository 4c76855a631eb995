package commitflow

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/testgit"
)

// A problem in a file the commit does not change never blocks the commit
// of the others, as the pre-commit hook checks only the staged files
// (check.CheckStaged): a memory committed with a link that names no
// memory any more (the memory it named deleted since, by hand or pulled
// from elsewhere) is neither checked nor left out, and the changes that
// pass are committed. A changed file with a problem is still left out.
func TestLeaveRefusedIsNotBlockedByProblemsInFilesTheCommitDoesNotChange(t *testing.T) {
	testgit.Isolate(t)
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	const dir0 = ".contextfs/memories/"
	target := testgit.Memory("aaaa000001", "", "A.\n")
	linking := testgit.Memory("bbbb000001", "links: [aaaa000001]\n", "B.\n")
	dangling := testgit.Memory("bbbb000001", "links: [gone000001]\n", "B.\n")
	fresh := testgit.Memory("cccc000001", "", "C.\n")
	tests := []struct {
		name          string
		committed     map[string]string // file name → content, committed first
		write         map[string]string // then written in the work tree
		remove        []string          // then removed from the work tree
		wantCommitted []string          // the files of the new commit
		wantLeftOut   []string          // the files left out
	}{
		{
			name:          "a committed memory linking to one deleted since does not block a new memory",
			committed:     map[string]string{"b.md": dangling},
			write:         map[string]string{"c.md": fresh},
			wantCommitted: []string{"c.md"},
		},
		{
			name:          "deleting the memory a committed one links to is committed with a new memory",
			committed:     map[string]string{"a.md": target, "b.md": linking},
			write:         map[string]string{"c.md": fresh},
			remove:        []string{"a.md"},
			wantCommitted: []string{"a.md", "c.md"},
		},
		{
			name:          "a committed invalid memory does not block a new memory",
			committed:     map[string]string{"bad.md": "no frontmatter\n"},
			write:         map[string]string{"c.md": fresh},
			wantCommitted: []string{"c.md"},
		},
		{
			name:          "a changed memory with a link naming no memory is still left out",
			committed:     map[string]string{"b.md": dangling},
			write:         map[string]string{"b.md": dangling + "More.\n", "c.md": fresh},
			wantCommitted: []string{"c.md"},
			wantLeftOut:   []string{"b.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, res, left := commitLeavingRefused(t, workChanges{committed: tt.committed, write: tt.write, remove: tt.remove})
			if !slices.Equal(left, tt.wantLeftOut) {
				t.Errorf("left out %v, want %v", res.LeftOut, tt.wantLeftOut)
			}
			var committed []string
			for _, p := range strings.Fields(testgit.Run(t, dir, "show", "--name-only", "--no-renames", "--format=", "HEAD")) {
				committed = append(committed, strings.TrimPrefix(p, dir0))
			}
			if !slices.Equal(committed, tt.wantCommitted) {
				t.Errorf("committed %v, want %v", committed, tt.wantCommitted)
			}
			// Nothing is lost: the files left out are as they were.
			for _, name := range tt.wantLeftOut {
				if b, err := os.ReadFile(filepath.Join(dir, dir0+name)); err != nil || string(b) != tt.write[name] {
					t.Errorf("%s left out changed in the work tree: %q, %v", name, b, err)
				}
			}
		})
	}
}

// workChanges are the files of a memory folder committed first (file name
// → content), then renamed by hand (old name → new name), written and
// removed in the work tree.
type workChanges struct {
	committed, rename, write map[string]string
	remove                   []string
}

// commitLeavingRefused makes a repository of w under .contextfs/memories/
// and commits its changes with LeaveRefused, failing the test unless a
// commit is made. It returns the repository, the result and the names of
// the files left out, sorted.
func commitLeavingRefused(t *testing.T, w workChanges) (dir string, res *Result, left []string) {
	t.Helper()
	const dir0 = ".contextfs/memories/"
	dir = testgit.Init(t)
	for name, c := range w.committed {
		testgit.WriteFile(t, dir, dir0+name, c)
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	for old, name := range w.rename {
		if err := os.Rename(filepath.Join(dir, dir0+old), filepath.Join(dir, dir0+name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range w.write {
		testgit.WriteFile(t, dir, dir0+name, c)
	}
	for _, name := range w.remove {
		if err := os.Remove(filepath.Join(dir, dir0+name)); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Commit(context.Background(), repo, config.SecretsConfig{}, Options{LeaveRefused: true})
	if err != nil || res.SHA == "" {
		t.Fatalf("Commit = %+v, %v; want a commit of the changes that pass", res, err)
	}
	for _, p := range res.LeftOut {
		left = append(left, strings.TrimPrefix(p.Path, dir0))
	}
	slices.Sort(left)
	return dir, res, left
}
