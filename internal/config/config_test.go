package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/testgit"
)

func repoWithConfig(t *testing.T, content string) *gitstore.Repo {
	t.Helper()
	dir := testgit.Init(t)
	if content != "" {
		if err := os.MkdirAll(filepath.Join(dir, gitstore.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, gitstore.Dir, gitstore.ConfigFile), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestLoadReadsTheDefaultsAndRejectsBadValues(t *testing.T) {
	tests := []struct {
		name    string
		content string
		wantErr string // "" for none
	}{
		{"no file gives the defaults", "", ""},
		{"the file init writes is valid", config.Default, ""},
		{"a bad search mode names the file", "search:\n  mode: fuzzy\n", ".contextfs/config.yaml: search.mode must be"},
		{"a bad watch mode", "watch:\n  mode: always\n", "watch.mode must be auto, on or off"},
		{"a non-positive idle", "watch:\n  idle: -5m\n", "watch.idle must be a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Load(repoWithConfig(t, tt.content))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if !c.Index.AutoIndexOn() {
					t.Error("auto_index is off, want on by default")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Load error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestUnknownKeysAreWarningsAndBadShapesAreClearErrors: a key this release
// does not know (a teammate's newer release wrote it) is left out and
// named, with its file, never an error; a value of the wrong shape for a
// known key is an error in the file's own words, with no Go type name.
func TestUnknownKeysAreWarningsAndBadShapesAreClearErrors(t *testing.T) {
	tests := []struct {
		name, content string
		unknown       []string
		wantErr       []string // all in the error; none: no error
	}{
		{"an unknown key in a section", "search:\n  mod: keyword\n  limit: 5\n", []string{"search.mod"}, nil},
		{"an unknown section", "telemetry:\n  on: true\nsearch:\n  mode: keyword\n", []string{"telemetry"}, nil},
		{"several unknown keys, in file order", "index:\n  depth: 3\nwatch:\n  poll: 1s\n", []string{"index.depth", "watch.poll"}, nil},
		{"a list where a mapping goes", "search: [1, 2]\n", nil, []string{".contextfs/config.yaml: line 1: search must be a mapping", "mode", "not a list"}},
		{"a word where a number goes", "search:\n  limit: ten\n", nil, []string{"line 2: search.limit must be a whole number", `not "ten"`}},
		{"a mapping where a list goes", "index:\n  include: {a: b}\n", nil, []string{"index.include must be a list, not a mapping"}},
		{"a list where a word goes", "watch:\n  mode: [on]\n", nil, []string{"watch.mode must be a single value, not a list"}},
		{"a word where true or false goes", "index:\n  auto_index: sometimes\n", nil, []string{"index.auto_index must be true or false"}},
		{"a known key's bad value is still an error", "search:\n  mode: fuzzy\n  future: 1\n", nil, []string{"search.mode must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			c, err := config.Load(repoWithConfig(t, tt.content))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Load: no error, want %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q, want it to contain %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "config.") && !strings.Contains(err.Error(), "config.yaml") {
					t.Errorf("error %q names a Go type", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if strings.Join(c.Unknown, ",") != strings.Join(tt.unknown, ",") {
				t.Errorf("unknown keys %q, want %q", c.Unknown, tt.unknown)
			}
			notes := strings.Join(c.Notices(), "\n")
			if n := strings.Count(notes, "unknown key"); n != 1 || !strings.Contains(notes, ".contextfs/config.yaml") || !strings.Contains(notes, tt.unknown[0]) {
				t.Errorf("notices %q: want one warning naming the file and %s", notes, tt.unknown[0])
			}
		})
	}
}

// TestRepositoryConfigChoosesNoEmbedderUntilTrusted: the embedder section
// and index.include of a repository's committed config are ignored (and
// named, with the command that trusts them) until the user sets
// contextfs.trustRepoConfig in the clone's own git config; the user's own
// file gives them instead. Trusted, the repository's embedder section is
// taken whole (never mixed with the user's key variable) and its globs
// are added to the user's.
func TestRepositoryConfigChoosesNoEmbedderUntilTrusted(t *testing.T) {
	const repoCfg = "embedder:\n  provider: openai\n  url: http://127.0.0.1:9/v1\n  api_key_env: SOME_TOKEN\nindex:\n  include: [\".env\"]\n"
	tests := []struct {
		name, user    string
		trust         string // value of contextfs.trustRepoConfig; "" unset
		wantIgnored   string
		wantURL       string
		wantKeyEnv    string
		wantInclude   string
		wantFromRepo  bool
		wantTrustNote bool
	}{
		{"untrusted: the repository's values are ignored, with one notice", "", "", "embedder.provider,embedder.url,embedder.api_key_env,index.include", "", "", "", false, true},
		{"untrusted: the user's own settings apply", "embedder:\n  provider: openai\n  url: http://localhost:11434/v1\n  api_key_env: MY_KEY\nindex:\n  include: [\"notes/*.txt\"]\n",
			"", "embedder.provider,embedder.url,embedder.api_key_env,index.include", "http://localhost:11434/v1", "MY_KEY", "notes/*.txt", false, true},
		{"trust set false is not trust", "", "false", "embedder.provider,embedder.url,embedder.api_key_env,index.include", "", "", "", false, true},
		{"trusted: the repository's embedder, whole, and both globs", "embedder:\n  api_key_env: MY_KEY\nindex:\n  include: [\"notes/*.txt\"]\n",
			"true", "", "http://127.0.0.1:9/v1", "SOME_TOKEN", "notes/*.txt,.env", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			if tt.user != "" {
				os.MkdirAll(filepath.Join(xdg, "contextfs"), 0o700)
				if err := os.WriteFile(filepath.Join(xdg, "contextfs", config.UserFile), []byte(tt.user), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			repo := repoWithConfig(t, repoCfg)
			if tt.trust != "" {
				testgit.Run(t, repo.Root, "config", config.TrustKey, tt.trust)
			}
			c, err := config.Load(repo)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(c.Ignored, ","); got != tt.wantIgnored {
				t.Errorf("ignored %q, want %q", got, tt.wantIgnored)
			}
			if c.Embedder.URL != tt.wantURL || c.Embedder.APIKeyEnv != tt.wantKeyEnv || c.EmbedderFromRepo != tt.wantFromRepo {
				t.Errorf("embedder %+v (from repo %v), want url %q key %q from repo %v", c.Embedder, c.EmbedderFromRepo, tt.wantURL, tt.wantKeyEnv, tt.wantFromRepo)
			}
			if got := strings.Join(c.Index.Include, ","); got != tt.wantInclude {
				t.Errorf("include %q, want %q", got, tt.wantInclude)
			}
			note := c.TrustNotice()
			if tt.wantTrustNote != (note != "") {
				t.Fatalf("trust notice %q, want one: %v", note, tt.wantTrustNote)
			}
			if tt.wantTrustNote && (!strings.Contains(note, config.TrustCommand) || !strings.Contains(note, "embedder.url") || !strings.Contains(note, ".contextfs/config.yaml")) {
				t.Errorf("trust notice %q: want the file, the keys and %q", note, config.TrustCommand)
			}
		})
	}
}

// TestTheDefaultConfigNeedsNoTrust: the file init writes sets only
// provider: builtin, which sends nothing anywhere: no notice.
func TestTheDefaultConfigNeedsNoTrust(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	c, err := config.Load(repoWithConfig(t, config.Default))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Notices()) != 0 {
		t.Errorf("notices for the default file: %q", c.Notices())
	}
}

// TestABadUserFileIsAWarningAndTheDefaultsApply: the user's own file with
// a bad value stops no command in any repository: it is named in a
// warning and the defaults (which send nothing anywhere) apply.
func TestABadUserFileIsAWarningAndTheDefaultsApply(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	os.MkdirAll(filepath.Join(xdg, "contextfs"), 0o700)
	user := filepath.Join(xdg, "contextfs", config.UserFile)
	os.WriteFile(user, []byte("embedder:\n  provider: openai\n  url: not a url\n"), 0o600)
	c, err := config.Load(repoWithConfig(t, ""))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	notes := strings.Join(c.Notices(), "\n")
	if !strings.Contains(notes, user) || !strings.Contains(notes, "embedder.url") {
		t.Errorf("notices %q: want a warning naming %s and embedder.url", notes, user)
	}
	if c.Embedder != (config.EmbedderConfig{}) {
		t.Errorf("embedder %+v, want the defaults", c.Embedder)
	}
}
