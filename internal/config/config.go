// Package config reads .contextfs/config.yaml, the settings a team commits
// with its memories. It is its own package because the layers below the
// front door (check's secret allow lists, search's defaults, the watcher
// policy) each read a part of it, and none of them may import the root.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// Watch modes (config watch.mode, or CONTEXTFS_WATCH).
const (
	WatchAuto = "auto"
	WatchOn   = "on"
	WatchOff  = "off"
)

// Config is .contextfs/config.yaml. Every key is optional.
type Config struct {
	Embedder EmbedderConfig `yaml:"embedder"`
	Search   SearchConfig   `yaml:"search"`
	Index    IndexConfig    `yaml:"index"`
	Secrets  SecretsConfig  `yaml:"secrets"`
	Watch    WatchConfig    `yaml:"watch"`
	Context  ContextConfig  `yaml:"context"`
	Hygiene  HygieneConfig  `yaml:"hygiene"`
	// Limits bound each memory (file size, data, tags); zero means the
	// safe default.
	Limits memory.Limits `yaml:"limits"`

	// What Load learned besides the values, for the notices a command
	// shows once (Notices) and for the stores opened beside this one.

	// File is the config file, relative to the work tree.
	File string `yaml:"-"`
	// Unknown are the keys of the file this release does not know
	// ("search.mod"): ignored, with a warning.
	Unknown []string `yaml:"-"`
	// Ignored are the keys the file sets that only a trusted clone may
	// (see TrustKey): the user's values are in force instead.
	Ignored []string `yaml:"-"`
	// EmbedderFromRepo says the embedder section in force is the
	// repository's (a trusted clone set it), not the user's.
	EmbedderFromRepo bool `yaml:"-"`
	// User is the user's own settings (UserConfigPath); UserError says
	// why they could not be read (the defaults are used then).
	User      User   `yaml:"-"`
	UserError string `yaml:"-"`
}

// HygieneConfig tunes the checks at save and the aging rules (packages
// dedup and aging read it; docs/HYGIENE.md describes each key).
type HygieneConfig struct {
	Dedup             string `yaml:"dedup"`              // skip (default), update, error or allow
	SupersedeProgress *bool  `yaml:"supersede_progress"` // default true
	SessionCap        int    `yaml:"session_cap"`        // default 3
	// NewestWins: a save that plainly changes a memory's position
	// supersedes it instead of only proposing it (default true).
	NewestWins *bool `yaml:"newest_wins"`
}

// ContextConfig holds the defaults of the context block (package
// contextblock).
type ContextConfig struct {
	// Budget is the block's size in estimated tokens; 0 means the
	// package's default.
	Budget int `yaml:"budget"`
	// PromptBudget is the size, in estimated tokens, of the memories the
	// agent's UserPromptSubmit hook adds to each prompt (package
	// capture); 0 means its default, 300.
	PromptBudget int `yaml:"prompt_budget"`
}

// WatchConfig controls the change watcher: a background process that
// tells commands which memory files changed, so that they need not stat
// every file (see package watch). CONTEXTFS_WATCH overrides Mode.
type WatchConfig struct {
	// Mode is auto (a watcher for repositories of WatchAutoFiles memory
	// files or more), on or off.
	Mode string `yaml:"mode"`
	// Idle is how long a watcher waits for a command before it exits,
	// as a Go duration ("30m"); empty means watch.DefaultIdle.
	Idle string `yaml:"idle"`
}

// EmbedderConfig chooses the embedder. Environment variables
// (CONTEXTFS_EMBEDDER, CONTEXTFS_EMBED_MODEL, CONTEXTFS_EMBED_URL,
// CONTEXTFS_EMBED_API_KEY) override it.
type EmbedderConfig struct {
	Provider  string `yaml:"provider"`
	Model     string `yaml:"model"`
	URL       string `yaml:"url"`
	APIKeyEnv string `yaml:"api_key_env"`
}

// SearchConfig holds search defaults.
type SearchConfig struct {
	Mode           string   `yaml:"mode"`
	Limit          int      `yaml:"limit"`
	SemanticWeight *float64 `yaml:"semantic_weight"`
}

// IndexConfig controls auto-indexing of code and history.
type IndexConfig struct {
	AutoIndex  *bool    `yaml:"auto_index"`
	MaxCommits int      `yaml:"max_commits"`
	Include    []string `yaml:"include"`
	Exclude    []string `yaml:"exclude"`
	Languages  []string `yaml:"languages"`
	// Workers is how many files are parsed at once (0: one per CPU the
	// process may use, runtime.GOMAXPROCS).
	Workers int `yaml:"workers"`
}

// SecretsConfig lists allowed secret findings (false positives).
type SecretsConfig struct {
	Allow        []string `yaml:"allow"`
	Fingerprints []string `yaml:"fingerprints"`
	Paths        []string `yaml:"paths"`
}

// AutoIndexOn reports whether code is indexed automatically (the default).
func (c IndexConfig) AutoIndexOn() bool { return c.AutoIndex == nil || *c.AutoIndex }

// Default is what `init` writes: every default, commented, so the
// file documents itself.
const Default = `# contextfs configuration. Every key is optional; the values shown are the
# defaults. Memories are the *.md files beside this file; the search cache
# lives in the git directory and is never committed.

embedder:
  # Only provider: builtin counts here until each user trusts their clone
  # (git config contextfs.trustRepoConfig true): a repository's config
  # does not choose where data is sent. Your own embedder goes in
  # ~/.config/contextfs/config.yaml (the same keys) or CONTEXTFS_EMBED*.
  # builtin: works offline with no model download (the default).
  # openai: any OpenAI-compatible /v1/embeddings server: Ollama, LM Studio,
  #         llama.cpp's server, or OpenAI itself.
  provider: builtin
  # model: all-minilm                 # with provider: openai
  # url: http://localhost:11434/v1    # Ollama's OpenAI-compatible endpoint
  # api_key_env: OPENAI_API_KEY       # name of the variable holding the key

search:
  mode: hybrid          # hybrid | keyword | semantic
  limit: 10             # results shown, 1 to 1000
  semantic_weight: 0.5  # 0 to 1: hybrid score = w*semantic + (1-w)*keyword

index:
  auto_index: true      # keep the code and commit index fresh on every command
  max_commits: 1000     # commits of the current branch made searchable (-1: none)
  include: []           # extra globs to index (untracked; needs the trust above)
  exclude: []           # globs never indexed, e.g. "testdata/**"
  # languages: go, python, javascript, typescript, tsx, rust, java, c, cpp,
  # ruby, csharp, php, bash, markdown, text
  languages: []         # restrict code indexing to these languages (empty: all)
  workers: 0            # files parsed at once (0: one per CPU)

secrets:
  allow: []             # regular expressions of accepted false positives
  fingerprints: []      # fingerprints printed by the scanner to accept
  paths: []             # globs of memory files never scanned

watch:
  # A background process that tells commands which memory files changed,
  # instead of each command checking every file (Linux).
  # auto: started for repositories of 10,000 memory files or more; on; off.
  mode: auto
  idle: 30m             # it exits after this long without a command

context:
  budget: 2000          # tokens of the block agents read at start (estimated high)
  prompt_budget: 300    # tokens of the memories added to each prompt (setup claude's hook)
`

// Load reads the repository's config; a missing file gives the
// defaults. A value outside what its key allows is an error naming the
// file, the key and the values allowed (validate); a key this release
// does not know is left out and named in c.Unknown. The embedder section
// and index.include in force are the user's (LoadUser), unless the clone
// is trusted (TrustKey); c.Ignored names what the file set in vain.
func Load(repo *gitstore.Repo) (Config, error) {
	c, err := loadFile(repo)
	if err != nil {
		return c, err
	}
	// The user's file, unreadable or invalid, is warned about and left
	// out, as package scope does with the rest of it: a typo there must
	// not stop work in every repository, and without it the defaults
	// apply, which send nothing anywhere.
	u, err := LoadUser()
	if err != nil {
		c.UserError = err.Error()
		u = User{}
	}
	c.applyTrust(repo, u)
	return c, nil
}

// loadFile reads and checks repo's .contextfs/config.yaml, as written.
func loadFile(repo *gitstore.Repo) (Config, error) {
	rel := gitstore.Dir + "/" + gitstore.ConfigFile
	c := Config{File: rel}
	if err := repo.NoSymlink(rel); err != nil {
		return c, err // the settings come from the repository, not through a link out of it
	}
	p := filepath.Join(repo.MemoryDir(), gitstore.ConfigFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", p, err)
	}
	c.File = repo.Rel(p)
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", c.File, err)
	}
	unknown, err := checkShape(&doc, reflect.TypeFor[Config](), "")
	if err != nil {
		return c, fmt.Errorf("%s: %w", c.File, err)
	}
	// The shapes fit, so this decodes every known key; unknown ones are
	// skipped (not KnownFields) and were collected above.
	if len(doc.Content) > 0 {
		if err := doc.Decode(&c); err != nil {
			return c, fmt.Errorf("%s: %w", c.File, err)
		}
	}
	c.Unknown = unknown
	return c, c.validate(c.File)
}
