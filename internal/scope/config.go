package scope

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/memory"
)

// ConfigFile is the user's config, in ConfigDir.
const ConfigFile = "config.yaml"

// Config is the user's own contextfs settings ($XDG_CONFIG_HOME/
// contextfs/config.yaml): they belong to the person, not to a team, so
// they are kept apart from any repository's .contextfs/config.yaml.
type Config struct {
	// Scopes maps a memory type to the scope its saves default to; types
	// not listed go to the repository, except user (see DefaultScope).
	Scopes map[string]Scope `yaml:"scopes,omitempty"`
	// UserStore configures the user store.
	UserStore UserStoreConfig `yaml:"user_store,omitempty"`
	// Repos are the registered repositories, searched by --repos.
	Repos []RepoEntry `yaml:"repos,omitempty"`
	// Embedder and Index are the settings no repository's config may
	// choose (package config reads them: config.User); they are here so
	// that this file's other keys are checked, and kept by Save.
	Embedder config.EmbedderConfig `yaml:"embedder,omitempty"`
	Index    config.UserIndex      `yaml:"index,omitempty"`
}

// UserStoreConfig configures the user store.
type UserStoreConfig struct {
	// CommitMessage is the message of the automatic commits; "" generates
	// one from what changed, as `git contextfs commit` does.
	CommitMessage string `yaml:"commit_message,omitempty"`
}

// RepoEntry is one registered repository.
type RepoEntry struct {
	// Name is what --repos takes; by default the last part of ID.
	Name string `yaml:"name"`
	// ID is stable across clones: the normalised remote URL
	// (host/owner/repo), or the path when there is no remote.
	ID string `yaml:"id"`
	// Path is the work tree of the clone last registered.
	Path string `yaml:"path"`
}

// ConfigPath is the user's config file.
func ConfigPath() (string, error) {
	d, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, ConfigFile), nil
}

// LoadConfig reads the user's config; a missing file is the defaults.
func LoadConfig() (Config, error) {
	var c Config
	p, err := ConfigPath()
	if err != nil {
		return c, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", p, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", p, err)
	}
	for t, sc := range c.Scopes {
		if _, err := memory.CanonicalType(t); err != nil {
			return c, fmt.Errorf("%s: scopes: %w", p, err)
		}
		if sc != Repo && sc != User {
			return c, fmt.Errorf("%s: scopes.%s must be repo or user, not %q", p, t, sc)
		}
	}
	return c, nil
}

// Save writes the config atomically.
func (c Config) Save() error {
	p, err := ConfigPath()
	if err != nil {
		return err
	}
	// Yours only, as the user store is: it names your repositories.
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	var b bytes.Buffer
	b.WriteString("# contextfs: your own settings (not a repository's). See docs/SCOPES.md.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := gitstore.WriteFileAtomic(p, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// DefaultScope is where a save of typ goes when no scope is given: the
// scope the config names for it, else user for the user type (a
// preference follows the person), else the repository.
func (c Config) DefaultScope(typ string) Scope {
	t, err := memory.CanonicalType(typ)
	if err != nil {
		return Repo
	}
	for k, sc := range c.Scopes {
		if ct, err := memory.CanonicalType(k); err == nil && ct == t {
			return sc
		}
	}
	if strings.EqualFold(t, "user") {
		return User
	}
	return Repo
}
