package hooks

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMergeDriverStampChangesWithWhatGitReads checks that the stamp that
// lets Init skip asking git moves with each file git would read for the
// answer, and that it is refused where the files cannot tell (an include,
// another attributes file, a file written within the racy window).
func TestMergeDriverStampChangesWithWhatGitReads(t *testing.T) {
	testgit.Isolate(t)
	later := time.Now().Add(time.Hour) // every file is older than the racy window then
	tests := []struct {
		name   string
		change func(dir string) error
		ok     bool // a stamp can be given after the change
	}{
		{"the repository's config", func(d string) error {
			return appendTo(filepath.Join(d, ".git", "config"), "[merge \"contextfs\"]\n\tdriver = true\n")
		}, true},
		{"the top .gitattributes", func(d string) error { return appendTo(filepath.Join(d, attrFile), "*.md -merge\n") }, true},
		{"a .gitattributes in .contextfs", func(d string) error {
			return os.WriteFile(filepath.Join(d, ".contextfs", attrFile), []byte("*.md -merge\n"), 0o644)
		}, true},
		{"info/attributes", func(d string) error {
			return os.WriteFile(filepath.Join(d, ".git", "info", "attributes"), []byte("*.md -merge\n"), 0o644)
		}, true},
		{"an include in the config", func(d string) error {
			return appendTo(filepath.Join(d, ".git", "config"), "[include]\n\tpath = other\n")
		}, false},
		{"another attributes file", func(d string) error {
			return appendTo(filepath.Join(d, ".git", "config"), "[core]\n\tattributesFile = x\n")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			os.MkdirAll(filepath.Join(dir, ".contextfs"), 0o755)
			os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755)
			os.WriteFile(filepath.Join(dir, attrFile), []byte(attrPattern+" "+attrValue+"\n"), 0o644)
			git := filepath.Join(dir, ".git")
			if _, ok := MergeDriverStamp(dir, git, git, time.Now()); ok {
				t.Error("a stamp was given for files written just now (racy)")
			}
			before, ok := MergeDriverStamp(dir, git, git, later)
			if !ok {
				t.Fatal("no stamp for a plain repository")
			}
			if err := tt.change(dir); err != nil {
				t.Fatal(err)
			}
			after, ok := MergeDriverStamp(dir, git, git, later)
			if ok != tt.ok {
				t.Fatalf("after the change ok = %v, want %v", ok, tt.ok)
			}
			if ok && after == before {
				t.Error("the stamp did not change")
			}
		})
	}
}

func appendTo(p, s string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(s)
	return err
}
