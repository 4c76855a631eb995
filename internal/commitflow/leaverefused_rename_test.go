package commitflow

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// A memory renamed by hand (mv old.md new.md, its content changed or not)
// whose new version is refused is left out whole: the deletion of its old
// path stays out of the commit with it, so HEAD keeps the old path and
// version until the new one is fixed, instead of losing the memory. The
// rename is found as commitflow reports it (the same ID), or, for a new
// version whose ID cannot be read, as git's rename detection pairs it.
func TestLeaveRefusedKeepsTheOldPathOfARefusedRename(t *testing.T) {
	testgit.Isolate(t)
	const dir0 = ".contextfs/memories/"
	key := "AKIA" + "Z7QWERTYUIOPASDF" // built at run time so no scanner flags this file
	target := testgit.Memory("aaaa000001", "", "A.\n")
	dangling := testgit.Memory("bbbb000001", "links: [gone000001]\n", "B.\n")
	fresh := testgit.Memory("cccc000001", "", "C.\n")
	keyless := testgit.Memory("kkkk000001", "", "The key is kept elsewhere.\n")
	linking := testgit.Memory("dddd000001", "links: [bbbb000001]\n", "D.\n")
	long := testgit.Memory("llll000001", "links: [aaaa000001]\n",
		strings.Repeat("A long memory, so that git sees the rename whatever its frontmatter.\n", 12))
	broken := strings.Replace(long, "links: [aaaa000001]", "links: [aaaa000001", 1) // an unclosed flow list
	tests := []struct {
		name      string
		committed map[string]string // file name → content, committed first
		rename    map[string]string // then moved by hand: old name → new name
		write     map[string]string // then written in the work tree
		remove    []string          // then removed from the work tree
		wantHead  map[string]string // every memory file of the new HEAD
		wantFiles []string          // Result.Files: "status path [old path]"
		wantLeft  []string          // Result.LeftOut
	}{
		{
			name:      "a renamed memory whose unchanged version links to no memory keeps its old path in HEAD, and a new memory is committed",
			committed: map[string]string{"b.md": dangling},
			rename:    map[string]string{"b.md": "b2.md"},
			write:     map[string]string{"c.md": fresh},
			wantHead:  map[string]string{"b.md": dangling, "c.md": fresh},
			wantFiles: []string{"added c.md"},
			wantLeft:  []string{"b2.md"},
		},
		{
			name:      "a renamed memory changed to link to no memory keeps its old path and content in HEAD",
			committed: map[string]string{"a.md": target, "c.md": fresh},
			rename:    map[string]string{"a.md": "a2.md"},
			write:     map[string]string{"a2.md": testgit.Memory("aaaa000001", "links: [gone000001]\n", "A.\n")},
			remove:    []string{"c.md"},
			wantHead:  map[string]string{"a.md": target},
			wantFiles: []string{"deleted c.md"},
			wantLeft:  []string{"a2.md"},
		},
		{
			name:      "a renamed memory changed to hold a suspected secret keeps its old path and content in HEAD, and a modified memory is committed",
			committed: map[string]string{"a.md": target, "k.md": keyless},
			rename:    map[string]string{"k.md": "k2.md"},
			write:     map[string]string{"k2.md": testgit.Memory("kkkk000001", "", "The key is "+key+".\n"), "a.md": target + "More.\n"},
			wantHead:  map[string]string{"a.md": target + "More.\n", "k.md": keyless},
			wantFiles: []string{"modified a.md"},
			wantLeft:  []string{"k2.md"},
		},
		{
			name:      "a renamed memory whose new version cannot be parsed keeps its old path and content in HEAD as git pairs the rename, and a deletion is committed",
			committed: map[string]string{"a.md": target, "l.md": long, "c.md": fresh},
			rename:    map[string]string{"l.md": "l2.md"},
			write:     map[string]string{"l2.md": broken},
			remove:    []string{"c.md"},
			wantHead:  map[string]string{"a.md": target, "l.md": long},
			wantFiles: []string{"deleted c.md"},
			wantLeft:  []string{"l2.md"},
		},
		{
			name:      "a renamed memory that passes is committed as a rename beside a refused one",
			committed: map[string]string{"b.md": dangling, "c.md": fresh},
			rename:    map[string]string{"b.md": "b2.md", "c.md": "c2.md"},
			wantHead:  map[string]string{"b.md": dangling, "c2.md": fresh},
			wantFiles: []string{"renamed c2.md c.md"},
			wantLeft:  []string{"b2.md"},
		},
		{
			name:      "a new memory linking to a renamed memory whose new version is refused is committed, as HEAD keeps what it links to",
			committed: map[string]string{"b.md": dangling},
			rename:    map[string]string{"b.md": "b2.md"},
			write:     map[string]string{"d.md": linking},
			wantHead:  map[string]string{"b.md": dangling, "d.md": linking},
			wantFiles: []string{"added d.md"},
			wantLeft:  []string{"b2.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, res, left := commitLeavingRefused(t, workChanges{committed: tt.committed, rename: tt.rename, write: tt.write, remove: tt.remove})
			if !slices.Equal(left, tt.wantLeft) {
				t.Errorf("left out %v, want %v", res.LeftOut, tt.wantLeft)
			}
			var files []string
			for _, f := range res.Files {
				files = append(files, strings.TrimSpace(f.Status+" "+strings.TrimPrefix(f.Path, dir0)+" "+strings.TrimPrefix(f.OldPath, dir0)))
			}
			if !slices.Equal(files, tt.wantFiles) {
				t.Errorf("committed files %v, want %v", files, tt.wantFiles)
			}
			// HEAD holds exactly the memories it should, each at its
			// path and with its content.
			var head []string
			for _, p := range strings.Split(testgit.Run(t, dir, "ls-tree", "-r", "--name-only", "HEAD"), "\n") {
				head = append(head, strings.TrimPrefix(p, dir0))
			}
			var want []string
			for name, c := range tt.wantHead {
				want = append(want, name)
				if got := testgit.Run(t, dir, "show", "HEAD:"+dir0+name); got != strings.TrimSpace(c) {
					t.Errorf("HEAD:%s =\n%s\nwant\n%s", name, got, c)
				}
			}
			slices.Sort(want)
			if !slices.Equal(head, want) {
				t.Errorf("HEAD holds %v, want %v", head, want)
			}
			// The work tree is as it was left: the renamed files stay
			// renamed, with their content.
			for old, name := range tt.rename {
				if _, err := os.Stat(filepath.Join(dir, dir0+old)); !os.IsNotExist(err) {
					t.Errorf("%s, renamed to %s, is back in the work tree (%v)", old, name, err)
				}
				c, ok := tt.write[name]
				if !ok {
					c = tt.committed[old]
				}
				if b, err := os.ReadFile(filepath.Join(dir, dir0+name)); err != nil || string(b) != c {
					t.Errorf("%s changed in the work tree: %q, %v", name, b, err)
				}
			}
		})
	}
}
