package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
)

// A repository is untrusted input (docs/DESIGN.md, principle 6): its
// committed config must not decide where data is sent, which environment
// variable is read, or which files outside git are read, as git ignores a
// clone's core.fsmonitor, hooks and merge drivers. Those settings (the
// embedder section and index.include) come from the user's own config
// file, UserFile, and the environment (CONTEXTFS_EMBEDDER and the rest);
// a repository's values for them count only in a clone whose user typed
// TrustCommand, which writes .git/config, a file no clone can ship.

// TrustKey is the git config key that makes a clone's committed config
// trusted for the settings that leave the machine or read the
// environment. Only the repository's own (local) git config is read: a
// --global value would trust every clone, including the next hostile one.
const TrustKey = "contextfs.trustRepoConfig"

// TrustCommand is what the user types to trust the repository they are in.
const TrustCommand = "git config " + TrustKey + " true"

// UserFile is the user's own config file, in UserConfigDir.
const UserFile = "config.yaml"

// UserConfigDir is where the user's own settings live:
// $XDG_CONFIG_HOME/contextfs, else ~/.config/contextfs.
func UserConfigDir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "contextfs"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("user config: no XDG_CONFIG_HOME or home directory: %w", err)
	}
	return filepath.Join(home, ".config", "contextfs"), nil
}

// UserConfigPath is the user's own config file.
func UserConfigPath() (string, error) {
	d, err := UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, UserFile), nil
}

// User is the part of the user's own config file that applies to every
// repository: the settings a repository's config may not choose. (The
// file holds the user's scopes and registered repositories too; package
// scope reads those.)
type User struct {
	// Embedder is the user's embedder, used in every repository whose
	// config is not trusted.
	Embedder EmbedderConfig `yaml:"embedder,omitempty"`
	// Index holds the globs of untracked files indexed in every
	// repository.
	Index UserIndex `yaml:"index,omitempty"`
}

// UserIndex is the index section of the user's config.
type UserIndex struct {
	// Include are globs of untracked files to index, in every repository.
	Include []string `yaml:"include,omitempty"`
}

// LoadUser reads the embedder and index sections of the user's config
// file; a missing file gives the defaults. Other sections are package
// scope's, and are not looked at here.
func LoadUser() (User, error) {
	var u User
	p, err := UserConfigPath()
	if err != nil {
		return u, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("read %s: %w", p, err)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return u, fmt.Errorf("%s: %w", p, err)
	}
	if len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
		top := doc.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			k, v := top.Content[i].Value, top.Content[i+1]
			var target any
			var t reflect.Type
			switch k {
			case "embedder":
				target, t = &u.Embedder, reflect.TypeFor[EmbedderConfig]()
			case "index":
				target, t = &u.Index, reflect.TypeFor[UserIndex]()
			default:
				continue
			}
			if _, err := checkShape(v, t, k); err != nil {
				return u, fmt.Errorf("%s: %w", p, err)
			}
			if err := v.Decode(target); err != nil {
				return u, fmt.Errorf("%s: %s: %w", p, k, err)
			}
		}
	}
	c := Config{Embedder: u.Embedder, Index: IndexConfig{Include: u.Index.Include}}
	return u, c.validate(p)
}

// Trusted reports whether the repository's committed config is trusted for
// the settings that leave the machine: TrustKey set true in its own git
// config. The file is read here, not by git (every command may ask); git
// answers only when the file uses what gitstore does not read (includes).
func Trusted(repo *gitstore.Repo) bool {
	v, _, err := repo.LocalConfigBool(TrustKey)
	if err == nil {
		return v
	}
	out, err := git.Cmd{Dir: repo.Root}.Output(context.Background(), "config", "--local", "--includes", "--type=bool", "--get", TrustKey)
	return err == nil && out == "true"
}

// untrustedKeys lists the keys of c, as read from a repository's file,
// that only a trusted repository may set. provider: builtin counts as
// unset: it sends nothing anywhere, and the file init writes carries it.
func (c Config) untrustedKeys() []string {
	var keys []string
	e := c.Embedder
	if p := strings.ToLower(strings.TrimSpace(e.Provider)); p != "" && p != embed.ProviderBuiltin {
		keys = append(keys, "embedder.provider")
	}
	for _, k := range []struct{ key, v string }{
		{"embedder.model", e.Model}, {"embedder.url", e.URL}, {"embedder.api_key_env", e.APIKeyEnv},
	} {
		if strings.TrimSpace(k.v) != "" {
			keys = append(keys, k.key)
		}
	}
	if len(c.Index.Include) > 0 {
		keys = append(keys, "index.include")
	}
	return keys
}

// applyTrust makes c, read from repo's file, the settings in force: the
// user's embedder and include globs, or, in a trusted clone, the
// repository's embedder section (whole, never mixed with the user's: the
// user's key variable must not go to a repository's URL) and both lists
// of globs.
func (c *Config) applyTrust(repo *gitstore.Repo, u User) {
	c.User = u
	keys := c.untrustedKeys()
	if len(keys) > 0 && !Trusted(repo) {
		c.Ignored = keys
		keys = nil
	}
	repoEmbedder := slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "embedder.") })
	if !repoEmbedder {
		c.Embedder = u.Embedder
	}
	c.EmbedderFromRepo = repoEmbedder
	include := slices.Clone(u.Index.Include)
	if slices.Contains(keys, "index.include") {
		for _, g := range c.Index.Include {
			if !slices.Contains(include, g) {
				include = append(include, g)
			}
		}
	}
	c.Index.Include = include
}

// TrustNotice is the one line that says which of the repository's
// settings were ignored and how to trust them; "" when none were.
func (c Config) TrustNotice() string {
	if len(c.Ignored) == 0 {
		return ""
	}
	return fmt.Sprintf("contextfs: %s sets %s: ignored, since a repository's config does not choose where data is sent, which environment variable is read or which untracked files are indexed; your own settings apply (docs/SECRETS.md). To trust this clone: %s",
		c.File, strings.Join(c.Ignored, ", "), TrustCommand)
}

// Notices are the lines to show once per command about the config: its
// unknown keys, a user's file that could not be read, and the settings
// ignored for trust.
func (c Config) Notices() []string {
	var out []string
	if len(c.Unknown) > 0 {
		out = append(out, fmt.Sprintf("contextfs: warning: %s: unknown key%s %s ignored (a newer contextfs may know %s)",
			c.File, plural(len(c.Unknown)), strings.Join(c.Unknown, ", "), them(len(c.Unknown))))
	}
	if c.UserError != "" {
		out = append(out, "contextfs: warning: "+c.UserError+" (your embedder and index settings are not used)")
	}
	if n := c.TrustNotice(); n != "" {
		out = append(out, n)
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
