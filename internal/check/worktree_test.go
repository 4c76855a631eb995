package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestCheckWorkTreeFilesChecksTheFilesNamed checks the pre-commit
// framework's mode: the files named are read from the work tree (staged
// or not, committed or not), memories validated and scanned, other files
// under .contextfs/ scanned, files elsewhere left alone.
func TestCheckWorkTreeFilesChecksTheFilesNamed(t *testing.T) {
	testgit.Isolate(t)
	gh := "ghp_" + "Zx8Kq2Lm4Np6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2"
	mem := func(id string) string { return ".contextfs/memories/" + id + ".md" }
	cases := []struct {
		name       string
		files      map[string]string // written to the work tree
		link       string            // a symbolic link written too
		named      []string
		wantFiles  int
		wantRule   string // a problem rule, "" for none
		wantSecret bool
	}{
		{name: "a valid memory passes", files: map[string]string{mem("abcd"): testgit.Memory("abcd", "", "Fine.\n")},
			named: []string{mem("abcd")}, wantFiles: 1},
		{name: "a token in a memory is found", files: map[string]string{mem("abcd"): testgit.Memory("abcd", "", "token "+gh+"\n")},
			named: []string{mem("abcd")}, wantFiles: 1, wantSecret: true},
		{name: "an invalid memory is a problem", files: map[string]string{mem("abcd"): strings.Replace(testgit.Memory("abcd", "", "x\n"), "type: fact", "type: nonsense", 1)},
			named: []string{mem("abcd")}, wantFiles: 1, wantRule: "type"},
		{name: "an ID taken by a memory not named is a duplicate", files: map[string]string{
			mem("abcd"): testgit.Memory("abcd", "", "x\n"), mem("other-abcd"): testgit.Memory("abcd", "", "y\n")},
			named: []string{mem("abcd")}, wantFiles: 1, wantRule: "duplicate-id"},
		{name: "a token in the config is found", files: map[string]string{".contextfs/config.yaml": "embedder:\n  api_key: " + gh + "\n"},
			named: []string{".contextfs/config.yaml"}, wantSecret: true},
		{name: "a symlink is refused", link: mem("link-abcd"), named: []string{mem("link-abcd")}, wantRule: "symlink"},
		{name: "files outside .contextfs are not ours", files: map[string]string{"notes.md": "token " + gh + "\n"},
			named: []string{"notes.md"}},
		{name: "a file that does not exist is skipped", named: []string{mem("gone")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testgit.Init(t)
			for rel, content := range c.files {
				testgit.WriteFile(t, dir, rel, content)
			}
			if c.link != "" {
				os.MkdirAll(filepath.Join(dir, ".contextfs", "memories"), 0o755)
				if err := os.Symlink("/etc/hostname", filepath.Join(dir, filepath.FromSlash(c.link))); err != nil {
					t.Fatal(err)
				}
			}
			repo, err := gitstore.Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := CheckWorkTreeFiles(repo, c.named)
			if err != nil {
				t.Fatalf("CheckWorkTreeFiles: %v", err)
			}
			got := rules(res.Problems)
			if c.wantRule == "" && len(got) > 0 || c.wantRule != "" && !slices.Contains(got, c.wantRule) {
				t.Errorf("problems %v, want %q", res.Problems, c.wantRule)
			}
			if (len(res.Secrets) > 0) != c.wantSecret {
				t.Errorf("secrets %v, want some: %v", res.Secrets, c.wantSecret)
			}
			if res.Files != c.wantFiles {
				t.Errorf("checked %d memory files, want %d", res.Files, c.wantFiles)
			}
		})
	}
}
