package contextfs

import (
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
)

// The configuration lives in package config, which the layers below the
// root read too; these names keep the root's API as it was.
type (
	// Config is .contextfs/config.yaml; see config.Config.
	Config = config.Config
	// WatchConfig controls the change watcher; see config.WatchConfig.
	WatchConfig = config.WatchConfig
	// EmbedderConfig chooses the embedder; see config.EmbedderConfig.
	EmbedderConfig = config.EmbedderConfig
	// SearchConfig holds search defaults; see config.SearchConfig.
	SearchConfig = config.SearchConfig
	// IndexConfig controls auto-indexing; see config.IndexConfig.
	IndexConfig = config.IndexConfig
	// SecretsConfig lists allowed secret findings; see config.SecretsConfig.
	SecretsConfig = config.SecretsConfig
	// ContextConfig holds the context block's defaults; see config.ContextConfig.
	ContextConfig = config.ContextConfig
	// HygieneConfig tunes the checks at save and aging; see config.HygieneConfig.
	HygieneConfig = config.HygieneConfig
)

// DefaultConfig is what `init` writes; see config.Default.
const DefaultConfig = config.Default

// LoadConfig reads the repository's config; a missing file gives the
// defaults. See config.Load.
func LoadConfig(repo *gitstore.Repo) (Config, error) { return config.Load(repo) }
