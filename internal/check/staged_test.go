package check

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

func checkStaged(t *testing.T, dir string) *StagedCheck {
	t.Helper()
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := CheckStaged(context.Background(), repo)
	if err != nil {
		t.Fatalf("CheckStaged: %v", err)
	}
	return res
}

func rules(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Rule)
	}
	return out
}

func TestHookCheckStagedWithNothingStagedTouchesNoCache(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.WriteFile(t, dir, "main.go", "package main\n")
	testgit.WriteFile(t, dir, ".contextfs/memories/bad.md", "not a memory, but not staged either\n")
	testgit.Run(t, dir, "add", "main.go")

	res := checkStaged(t, dir)
	if res.Files != 0 || res.Blocking() {
		t.Errorf("CheckStaged = %+v, want nothing checked", res)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "contextfs")); !os.IsNotExist(err) {
		t.Errorf("the cache directory exists after a check with nothing staged (stat: %v)", err)
	}
}

func TestHookCheckStagedReadsTheIndexNotTheWorkTree(t *testing.T) {
	testgit.Isolate(t)
	const rel = ".contextfs/memories/m.md"
	valid := testgit.Memory("abcd1234", "", "Body.\n")
	invalid := strings.Replace(valid, "type: fact", "type: nonsense", 1)
	tests := []struct {
		name           string
		staged, onDisk string
		wantRules      []string
	}{
		{"invalid staged, fixed on disk only", invalid, valid, []string{"type"}},
		{"valid staged, broken on disk only", valid, invalid, nil},
		{"valid staged and on disk", valid, valid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			testgit.WriteFile(t, dir, rel, tt.staged)
			testgit.Run(t, dir, "add", rel)
			testgit.WriteFile(t, dir, rel, tt.onDisk)
			res := checkStaged(t, dir)
			if res.Files != 1 {
				t.Errorf("Files = %d, want 1", res.Files)
			}
			if got := rules(res.Problems); !slices.Equal(got, tt.wantRules) {
				t.Errorf("problem rules = %q, want %q (%v)", got, tt.wantRules, res.Problems)
			}
		})
	}
}

func TestHookCheckStagedFindsProblemsWithTheirLines(t *testing.T) {
	testgit.Isolate(t)
	tests := []struct {
		name     string
		files    map[string]string // committed first
		staged   map[string]string
		deleted  []string
		wantRule string // "" for no problem
		wantPath string
		wantLine int
	}{
		{
			name: "bad enum value in data",
			staged: map[string]string{".contextfs/d.md": "---\nid: abcd1234\ntype: decision\ntitle: T\ncreated: 2024-05-01T10:00:00Z\n" +
				"updated: 2024-05-01T10:00:00Z\ndata:\n  status: maybe\n---\nB\n"},
			wantRule: "schema", wantPath: ".contextfs/d.md", wantLine: 8,
		},
		{
			name:     "syntax error",
			staged:   map[string]string{".contextfs/s.md": "---\nid: abcd1234\ntitle: a: b\n---\nB\n"},
			wantRule: "syntax", wantPath: ".contextfs/s.md", wantLine: 3,
		},
		{
			name:     "leftover conflict marker",
			staged:   map[string]string{".contextfs/c.md": testgit.Memory("abcd1234", "", "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n")},
			wantRule: "conflict", wantPath: ".contextfs/c.md", wantLine: 8,
		},
		{
			name:     "duplicate of an ID already committed",
			files:    map[string]string{".contextfs/a.md": testgit.Memory("same1234", "", "A\n")},
			staged:   map[string]string{".contextfs/b.md": testgit.Memory("same1234", "", "B\n")},
			wantRule: "duplicate-id", wantPath: ".contextfs/b.md", wantLine: 2,
		},
		{
			name:     "duplicate between two staged files",
			staged:   map[string]string{".contextfs/a.md": testgit.Memory("same1234", "", "A\n"), ".contextfs/b.md": testgit.Memory("same1234", "", "B\n")},
			wantRule: "duplicate-id", wantPath: ".contextfs/b.md", wantLine: 2,
		},
		{
			name:    "an invalid memory deleted is not checked",
			files:   map[string]string{".contextfs/bad.md": "no frontmatter\n"},
			deleted: []string{".contextfs/bad.md"},
		},
		{
			name:   "an invalid memory already committed does not block others",
			files:  map[string]string{".contextfs/bad.md": "no frontmatter\n"},
			staged: map[string]string{".contextfs/good.md": testgit.Memory("good1234", "", "G\n")},
		},
		{
			name:   "README files and dot folders are not memories",
			staged: map[string]string{".contextfs/README.md": "# Memories\n", ".contextfs/.drafts/x.md": "draft\n"},
		},
		{
			name:   "non-canonical formatting is not a problem",
			staged: map[string]string{".contextfs/f.md": "---\ntitle: T\ntags: [b, a]\ntype: note\nupdated: 2024-05-01\nid: abcd1234\ncreated: 2024-05-01\n---\nB\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			if len(tt.files) > 0 {
				for rel, c := range tt.files {
					testgit.WriteFile(t, dir, rel, c)
				}
				testgit.Run(t, dir, "add", "-A")
				testgit.Run(t, dir, "commit", "-q", "--no-verify", "-m", "base")
			}
			for rel, c := range tt.staged {
				testgit.WriteFile(t, dir, rel, c)
				testgit.Run(t, dir, "add", "-f", rel)
			}
			for _, rel := range tt.deleted {
				testgit.Run(t, dir, "rm", "-q", rel)
			}
			res := checkStaged(t, dir)
			if tt.wantRule == "" {
				if res.Blocking() {
					t.Fatalf("problems %v, want none", res.All())
				}
				return
			}
			if len(res.Problems) != 1 {
				t.Fatalf("problems %v, want one %s", res.Problems, tt.wantRule)
			}
			p := res.Problems[0]
			if p.Rule != tt.wantRule || p.Path != tt.wantPath || p.Line != tt.wantLine {
				t.Errorf("problem %s, want %s:%d: %s", p, tt.wantPath, tt.wantLine, tt.wantRule)
			}
		})
	}
}

func TestHookCheckStagedFindsSecretsUnlessAllowed(t *testing.T) {
	testgit.Isolate(t)
	aws := "AKIA" + "Z7QWERTYUIOPASDF"
	gh := "ghp_" + "Zx8Kq2Lm4Np6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2"
	pem := "-----BEGIN " + "RSA PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"-----END RSA PRIVATE KEY-----\n"
	fpAWS := "" // filled from a first scan
	tests := []struct {
		name     string
		body     string
		config   string
		wantRule string // secret rule ID, "" for none
		wantLine int
		wantWarn bool
	}{
		{name: "AWS access key", body: "Key: " + aws + "\n", wantRule: "aws-access-key-id", wantLine: 8},
		{name: "GitHub token", body: "Intro.\n\ntoken " + gh + "\n", wantRule: "github-token", wantLine: 10},
		{name: "PEM private key", body: "Deploy key:\n\n" + pem, wantRule: "private-key", wantLine: 10},
		{name: "no secret", body: "Keys live in the vault.\n"},
		{name: "inline allow marker", body: "Key: " + aws + " <!-- contextfs:allow-secret -->\n"},
		{name: "allow pattern in config", body: "Key: " + aws + "\n", config: "secrets:\n  allow: ['^AKIAZ7QW']\n"},
		{name: "allowed path in config", body: "Key: " + aws + "\n", config: "secrets:\n  paths: ['.contextfs/m.md']\n"},
		{name: "fingerprint in config", body: "Key: " + aws + "\n", config: "secrets:\n  fingerprints: [FP]\n"},
		{name: "broken config scans with no allow list", body: "Key: " + aws + "\n", config: "secrets:\n  allow: ['(']\n",
			wantRule: "aws-access-key-id", wantLine: 8, wantWarn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			if tt.config != "" {
				cfg := tt.config
				if strings.Contains(cfg, "FP") {
					if fpAWS == "" {
						d := testgit.Init(t)
						testgit.WriteFile(t, d, ".contextfs/m.md", testgit.Memory("abcd1234", "", "Key: "+aws+"\n"))
						testgit.Run(t, d, "add", "-A")
						fpAWS = checkStaged(t, d).Secrets[0].Fingerprint
					}
					cfg = strings.Replace(cfg, "FP", fpAWS, 1)
				}
				testgit.WriteFile(t, dir, ".contextfs/config.yaml", cfg)
			}
			testgit.WriteFile(t, dir, ".contextfs/m.md", testgit.Memory("abcd1234", "", tt.body))
			testgit.Run(t, dir, "add", ".contextfs/m.md")
			res := checkStaged(t, dir)
			if len(res.Problems) > 0 {
				t.Fatalf("validation problems %v; the fixture must be valid", res.Problems)
			}
			if got := len(res.Warnings) > 0; got != tt.wantWarn {
				t.Errorf("warnings %q, want some: %v", res.Warnings, tt.wantWarn)
			}
			if tt.wantRule == "" {
				if len(res.Secrets) > 0 {
					t.Fatalf("secrets %v, want none", res.Secrets)
				}
				return
			}
			if len(res.Secrets) != 1 {
				t.Fatalf("secrets %v, want one %s", res.Secrets, tt.wantRule)
			}
			f := res.Secrets[0]
			if f.Rule != tt.wantRule || f.Path != ".contextfs/m.md" || f.Line != tt.wantLine {
				t.Errorf("finding %s, want .contextfs/m.md:%d %s", f, tt.wantLine, tt.wantRule)
			}
			all := res.All()
			if len(all) != 1 || all[0].Rule != "secret" || strings.Contains(all[0].String(), aws) || strings.Contains(all[0].String(), gh) {
				t.Errorf("All() = %v: want one secret problem that does not disclose the secret", all)
			}
		})
	}
}

func TestHookCheckStagedOnUnbornBranch(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t) // no commit yet: HEAD names nothing
	testgit.WriteFile(t, dir, ".contextfs/m.md", "---\nid: x\n---\n")
	testgit.Run(t, dir, "add", "-A")
	res := checkStaged(t, dir)
	if res.Files != 1 || !slices.Contains(rules(res.Problems), "field") {
		t.Errorf("CheckStaged = %+v, want the staged file checked and its fields reported", res)
	}
}

func TestHookQuickIDMatchesTheDecoder(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"plain", "---\nid: abcd1234\ntype: fact\n---\nbody\n", "abcd1234"},
		{"after other keys", "---\ntype: fact\ntitle: x\nid: k3x9m2\n---\n", "k3x9m2"},
		{"double quoted", "---\nid: \"abcd1234\"\n---\n", "abcd1234"},
		{"single quoted", "---\nid: 'abcd1234'\n---\n", "abcd1234"},
		{"trailing comment", "---\nid: abcd1234 # mine\n---\n", "abcd1234"},
		{"CRLF", "---\r\nid: abcd1234\r\n---\r\n", "abcd1234"},
		{"byte-order mark", "\xef\xbb\xbf---\nid: abcd1234\n---\n", "abcd1234"},
		{"YAML tag falls back to the decoder", "---\nid: !!str abcd1234\n---\n", "abcd1234"},
		{"id only in the body", "---\ntype: fact\n---\nid: nope1234\n", ""},
		{"indented id belongs to data", "---\ndata:\n  id: nope1234\n---\n", ""},
		{"no frontmatter", "id: nope1234\n", ""},
		{"not a key", "---\nid:abcd1234\n---\n", ""},
		{"broken YAML", "---\nid: [abcd\n---\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuickID("x.md", []byte(tt.content)); got != tt.want {
				t.Errorf("QuickID = %q, want %q", got, tt.want)
			}
		})
	}
}
