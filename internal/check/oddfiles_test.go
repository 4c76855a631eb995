package check

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestHookCheckStagedScansAndRefusesFilesThatAreNotMemories stages files
// under .contextfs/ that are not memories: each is scanned for secrets,
// and a temp file, a symlink or a name with a newline is refused.
func TestHookCheckStagedScansAndRefusesFilesThatAreNotMemories(t *testing.T) {
	testgit.Isolate(t)
	gh := "ghp_" + "Zx8Kq2Lm4Np6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2"
	cases := []struct {
		name       string
		rel        string
		content    string
		link       bool
		wantRule   string // problem rule, "" for none
		wantSecret bool
	}{
		{name: "a temp file left by kill -9 is refused and scanned", rel: ".contextfs/memories/" + gitstore.TempPrefix + "123", content: testgit.Memory("abcd", "", "token "+gh+"\n"), wantRule: "temp-file", wantSecret: true},
		{name: "an old-style temp file is refused", rel: ".contextfs/memories/.m-abcd.md.tmp-42", content: testgit.Memory("abcd", "", "x\n"), wantRule: "temp-file"},
		{name: "a secret in the config is found", rel: ".contextfs/config.yaml", content: "embedder:\n  api_key: " + gh + "\n", wantSecret: true},
		{name: "a symlink is refused", rel: ".contextfs/memories/link-abcd.md", link: true, wantRule: "symlink"},
		{name: "a name with a newline is refused", rel: ".contextfs/memories/a\nb-abcd.md", content: testgit.Memory("abcd", "", "x\n"), wantRule: "odd-name"},
		{name: "the gitignore init writes passes", rel: ".contextfs/.gitignore", content: gitstore.GitignoreRules},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testgit.Init(t)
			if c.link {
				os.MkdirAll(filepath.Join(dir, ".contextfs", "memories"), 0o755)
				if err := os.Symlink("/etc/hostname", filepath.Join(dir, filepath.FromSlash(c.rel))); err != nil {
					t.Fatal(err)
				}
			} else {
				testgit.WriteFile(t, dir, c.rel, c.content)
			}
			testgit.Run(t, dir, "add", "-f", "--", c.rel)
			res := checkStaged(t, dir)
			got := rules(res.Problems)
			if c.wantRule == "" && len(got) > 0 || c.wantRule != "" && !slices.Contains(got, c.wantRule) {
				t.Errorf("problems %v, want %q", res.Problems, c.wantRule)
			}
			if (len(res.Secrets) > 0) != c.wantSecret {
				t.Errorf("secrets %v, want some: %v", res.Secrets, c.wantSecret)
			}
		})
	}
}
