package config

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/memory"
)

// MaxSearchLimit is the largest search.limit: search.MaxLimit, the most
// results one search returns (package search reads this one, so it cannot
// be imported here; a test keeps the two equal).
const MaxSearchLimit = 1000

// languages are the names index.languages accepts: those the chunker
// gives files (chunker.Language), which imports the cgo parsers and so
// is not imported here; a test keeps the two in step. The names are lower
// case: the chunker compares them as written.
var languages = []string{"go", "python", "javascript", "typescript", "tsx", "rust", "java", "c", "cpp",
	"ruby", "csharp", "php", "bash", "markdown", "text"}

// Languages returns the names index.languages accepts.
func Languages() []string { return slices.Clone(languages) }

// dedupPolicies are the values of hygiene.dedup: dedup.ParsePolicy's
// (package dedup imports this one through the root package).
var dedupPolicies = []string{"skip", "update", "error", "allow", "supersede", "off"}

// DedupPolicies returns the values hygiene.dedup accepts.
func DedupPolicies() []string { return slices.Clone(dedupPolicies) }

// envName reports whether s is what a shell accepts as a variable's name.
// (A loop, not a regexp: every command loads the config, and nothing of
// ours may compile one at start, docs/DESIGN.md "Start-up".)
func envName(s string) bool {
	for i, c := range s {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// validate checks the values whose domain is narrower than their YAML
// type's, and returns the first that is outside it, naming the key and
// what it may be; file names the config in the message.
func (c Config) validate(file string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: "+format, append([]any{file}, args...)...)
	}
	e := c.Embedder
	switch strings.ToLower(strings.TrimSpace(e.Provider)) {
	case "", embed.ProviderBuiltin, embed.ProviderOpenAI:
	default:
		return bad("embedder.provider must be %s or %s, not %q", embed.ProviderBuiltin, embed.ProviderOpenAI, e.Provider)
	}
	if u := strings.TrimSpace(e.URL); u != "" {
		// The openai embedder's own check of its URL; making one
		// contacts no server.
		if _, err := embed.New(embed.Config{Provider: embed.ProviderOpenAI, BaseURL: u}); err != nil {
			return bad("embedder.url must be an http:// or https:// URL such as %s, not %q", embed.DefaultBaseURL, e.URL)
		}
	}
	if e.APIKeyEnv != "" && !envName(e.APIKeyEnv) {
		return bad("embedder.api_key_env must name an environment variable (letters, digits and _, not starting with a digit), not %q", e.APIKeyEnv)
	}

	s := c.Search
	switch s.Mode {
	case "", "hybrid", "keyword", "semantic":
	default:
		return bad("search.mode must be hybrid, keyword or semantic, not %q", s.Mode)
	}
	if s.Limit < 0 || s.Limit > MaxSearchLimit {
		return bad("search.limit must be from 1 to %d (0 or none: 10), not %d", MaxSearchLimit, s.Limit)
	}
	// NaN fails both comparisons, so it is named on its own.
	if w := s.SemanticWeight; w != nil && (math.IsNaN(*w) || *w < 0 || *w > 1) {
		return bad("search.semantic_weight must be a number from 0 to 1 (the share of the semantic score in hybrid search), not %v", *w)
	}

	ix := c.Index
	if ix.MaxCommits < -1 {
		return bad("index.max_commits must be 0 or more (0: 1000), or -1 for none, not %d", ix.MaxCommits)
	}
	for _, set := range []struct {
		key   string
		globs []string
	}{{"include", ix.Include}, {"exclude", ix.Exclude}} {
		for i, g := range set.globs {
			// The indexer takes a leading / to mean the root, as the
			// glob is relative to it anyway.
			if err := memory.CheckPathGlob(strings.TrimPrefix(g, "/")); err != nil {
				return bad("index.%s[%d] %v", set.key, i, err)
			}
		}
	}
	for _, l := range ix.Languages {
		if !slices.Contains(languages, l) {
			return bad("index.languages: unknown language %q: use %s", l, strings.Join(languages, ", "))
		}
	}
	if ix.Workers < 0 {
		return bad("index.workers must not be negative, not %d", ix.Workers)
	}

	if c.Watch.Mode != "" && !slices.Contains([]string{WatchAuto, WatchOn, WatchOff}, c.Watch.Mode) {
		return bad("watch.mode must be auto, on or off, not %q", c.Watch.Mode)
	}
	if c.Watch.Idle != "" {
		if d, err := time.ParseDuration(c.Watch.Idle); err != nil || d <= 0 {
			return bad("watch.idle must be a positive duration such as 30m, not %q", c.Watch.Idle)
		}
	}
	if c.Context.Budget < 0 {
		return bad("context.budget must not be negative, not %d", c.Context.Budget)
	}
	if c.Context.PromptBudget < 0 {
		return bad("context.prompt_budget must not be negative, not %d", c.Context.PromptBudget)
	}

	h := c.Hygiene
	if p := strings.TrimSpace(h.Dedup); p != "" && !slices.Contains(dedupPolicies, p) {
		return bad("hygiene.dedup must be %s, not %q", orList(dedupPolicies), h.Dedup)
	}
	if h.SessionCap < 0 {
		return bad("hygiene.session_cap must not be negative (0 or none: 3), not %d", h.SessionCap)
	}

	l := c.Limits
	for _, lim := range []struct {
		key string
		v   int64
	}{
		{"max_file_bytes", l.MaxFileBytes}, {"max_data_depth", int64(l.MaxDataDepth)}, {"max_data_bytes", int64(l.MaxDataBytes)},
		{"max_tags", int64(l.MaxTags)}, {"max_tag_length", int64(l.MaxTagLength)},
	} {
		if lim.v < 0 {
			return bad("limits.%s must not be negative (0 or none: the default), not %d", lim.key, lim.v)
		}
	}
	return nil
}

// orList writes "a, b or c".
func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}
