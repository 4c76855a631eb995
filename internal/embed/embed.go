// Package embed turns texts into vectors for the semantic half of contextfs's
// hybrid search, which ranks memories by cosine similarity of their vectors
// alongside BM25 keyword scores.
//
// # Providers
//
// Two providers implement Embedder. The built-in one (NewBuiltin, the
// default) needs no model file, no network and no cgo, so search works the
// moment contextfs is installed. The "openai" provider calls any server that
// speaks OpenAI's /v1/embeddings protocol (Ollama, LM Studio, the llama.cpp
// server, OpenAI itself) for users who want a neural model. Its HTTP client
// (package embed/openai) runs in the program git-contextfs-embed, which the
// embedder New returns starts on first use and speaks to over a pipe
// (ProgramName, ProtocolVersion, Serve), so that programs linking this
// package do not link net/http.
//
// # The built-in embedder
//
// The built-in embedder joins two vectors (docs/EMBEDDER.md): SIF averages
// of word vectors that make model learns with fastText from Debian's
// documentation of widely used software (wordvec.bin, embedded in the
// binary and read in place on the first vector), and the hashing
// embedder's features (NewHashing), described below. Texts lean on the
// hashing half and queries on the word vectors (QueryEmbedder).
//
// # The hashing embedder
//
// The hashing embedder is a lexical model made as semantic as a few
// kilobytes of tables allow. Each text becomes a bag of weighted features,
// hashed into 256 dimensions with a hash-derived sign (so colliding features
// cancel on average rather than add up) and L2-normalised:
//
//   - words, found with Unicode letter classes; code identifiers are split at
//     underscores, case changes and digits ("parseHTTPHeader" gives parse,
//     http, header) and also kept whole, so "user_id" matches "userId";
//   - each word is reduced to a canonical stem: irregular forms are mapped
//     to their base ("ran" to "run", "children" to "child"), a Porter stemmer
//     strips suffixes, and a small table merges synonyms and abbreviations
//     ("db" and "database", "kid" and "child");
//   - words are weighted like IDF without a corpus: function words get 0,
//     common words less than rare ones, by their rank in a built-in list of
//     frequent English words (Zipf's law makes log rank a stand-in for IDF);
//   - related but distinct words share concept features from a small
//     hand-written, WordNet-like table ("guitar" and "violin" share
//     "instrument"; "slice" and "chop" share "cut"), and agent nouns the
//     table lacks share their base ("printer" and "print");
//   - negation ("not", "no", "n't") adds a heavy feature of its own: people
//     rate "a man is not cooking" only moderately related to "a man is
//     cooking", so a negated text must not be a near-duplicate of its
//     positive form;
//   - adjacent content words form bigrams, which give word order a little
//     weight ("dog bites man" is not "man bites dog");
//   - character 3- to 5-grams of stems, at low weight, give partial credit
//     to compounds and misspellings the tables miss;
//   - repeated features count sublinearly (1 + ln tf).
//
// Its weights were tuned on the even-numbered pairs of the SICK relatedness
// set (Marelli et al. 2014: 4,500 sentence pairs scored 1-5 by people) and
// checked on the odd-numbered ones. The Spearman correlation between cosine
// similarity and the human scores is 0.717 on the held-out odd pairs, 0.716
// on the even ones and 0.717 on all 4,500, against 0.58 for plain
// bag-of-words cosine over stems; typical lexical methods score 0.55-0.65.
// Most of the gain comes from treating negation as meaning; the remaining
// gap to general-purpose neural sentence encoders (roughly 0.73-0.80) is
// word knowledge and word order that no table this size can supply. TestBuiltinSICKSpearman guards the
// figure. The embedder handles more than 100,000 short sentences a second on
// one core and allocates only its result.
package embed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// Embedder turns texts into vectors. Implementations must be safe for
// concurrent use.
type Embedder interface {
	// Model is a stable identity of the vector space, including a version
	// and the dimension, e.g. "builtin/hash-v1/256" or "openai/all-minilm".
	// Vectors cached under one Model are reused only for the same Model.
	Model() string
	// Dim is the vector dimension, or 0 if it is unknown until the first
	// call (an HTTP provider learns it from the server).
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// QueryEmbedder is an Embedder that embeds search queries differently
// from the texts they are compared with, as asymmetric retrieval models do
// (a question is not a paraphrase of its answer). The built-in embedder is
// one.
type QueryEmbedder interface {
	Embedder
	// EmbedQuery returns one vector per query, in the space of Embed's.
	EmbedQuery(ctx context.Context, queries []string) ([][]float32, error)
}

// EmbedQuery embeds search queries with e: with its EmbedQuery if it is a
// QueryEmbedder, else with Embed.
func EmbedQuery(ctx context.Context, e Embedder, queries []string) ([][]float32, error) {
	if q, ok := e.(QueryEmbedder); ok {
		return q.EmbedQuery(ctx, queries)
	}
	return e.Embed(ctx, queries)
}

// EmbedCodeQuery embeds the queries of a code search with e: with its
// EmbedCodeQuery if it has one, else with Embed (as texts, the way code
// search embedded them before).
func EmbedCodeQuery(ctx context.Context, e Embedder, queries []string) ([][]float32, error) {
	if q, ok := e.(interface {
		EmbedCodeQuery(context.Context, []string) ([][]float32, error)
	}); ok {
		return q.EmbedCodeQuery(ctx, queries)
	}
	return e.Embed(ctx, queries)
}

// CodeQueryScale is QueryScale for EmbedCodeQuery's vectors.
func CodeQueryScale(e Embedder) float64 {
	if s, ok := e.(interface{ codeQueryScale() float64 }); ok {
		return s.codeQueryScale()
	}
	return 1
}

// QueryScale is the cosine of a query with a text identical to it under
// e: 1 for a symmetric embedder, less for an asymmetric one whose query
// and text vectors differ (the built-in one: about 0.58). Search divides
// query cosines by it, so that they are on the scale the fusion and
// search.MinSemantic were made for.
func QueryScale(e Embedder) float64 {
	if s, ok := e.(interface{ queryScale() float64 }); ok {
		return s.queryScale()
	}
	return 1
}

// Providers accepted in Config.Provider.
const (
	ProviderBuiltin = "builtin"
	ProviderOpenAI  = "openai"
)

// Defaults applied by New to zero Config fields. The URL and model are
// Ollama's, the most common local server: `ollama pull all-minilm` is all a
// user needs to switch from the built-in embedder to a neural one.
const (
	DefaultBaseURL   = "http://localhost:11434/v1"
	DefaultModel     = "all-minilm"
	DefaultTimeout   = 30 * time.Second
	DefaultBatchSize = 64
)

// Config selects and configures an embedder. The zero Config is the
// built-in embedder.
type Config struct {
	// Provider is "builtin" (the default when empty) or "openai" for any
	// OpenAI-compatible /v1/embeddings server: Ollama, LM Studio, the
	// llama.cpp server, OpenAI.
	Provider string
	// Model is the server's model name for provider openai, e.g.
	// "all-minilm" or "text-embedding-3-small"; default DefaultModel.
	Model string
	// BaseURL is the API root, to which "/embeddings" is appended; default
	// DefaultBaseURL. One already ending in /embeddings is used as is.
	BaseURL string
	// APIKey is sent as a Bearer token if non-empty.
	APIKey string
	// Timeout bounds each HTTP request; default DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most texts sent in one request; default
	// DefaultBatchSize.
	BatchSize int
	// Program is the path of ProgramName, which makes provider openai's
	// requests; when empty it is looked for beside the running program,
	// then on PATH.
	Program string
}

// Environment variables read by ConfigFromEnv.
const (
	EnvProvider = "CONTEXTFS_EMBEDDER"
	EnvModel    = "CONTEXTFS_EMBED_MODEL"
	EnvURL      = "CONTEXTFS_EMBED_URL"
	EnvAPIKey   = "CONTEXTFS_EMBED_API_KEY"
	// EnvOpenAIKey is the key OpenAI's own tools read; provider openai
	// falls back to it so that users of OpenAI need not set it twice.
	EnvOpenAIKey = "OPENAI_API_KEY"
)

// ConfigFromEnv returns base with the fields whose environment variables
// are set and non-empty replaced: Provider from CONTEXTFS_EMBEDDER, Model
// from CONTEXTFS_EMBED_MODEL, BaseURL from CONTEXTFS_EMBED_URL and APIKey
// from CONTEXTFS_EMBED_API_KEY. If the provider is then openai, there is
// still no key and the server is OpenAI's own (api.openai.com),
// OPENAI_API_KEY is used; it is never sent to any other server.
func ConfigFromEnv(base Config) Config {
	set := func(field *string, name string) {
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			*field = v
		}
	}
	set(&base.Provider, EnvProvider)
	set(&base.Model, EnvModel)
	set(&base.BaseURL, EnvURL)
	set(&base.APIKey, EnvAPIKey)
	if base.APIKey == "" && normalizeProvider(base.Provider) == ProviderOpenAI && isOpenAI(base.BaseURL) {
		set(&base.APIKey, EnvOpenAIKey)
	}
	return base
}

// isOpenAI reports whether a base URL points at OpenAI's API.
func isOpenAI(base string) bool {
	u, err := url.Parse(strings.TrimSpace(base))
	return err == nil && u.Scheme == "https" && strings.EqualFold(u.Hostname(), "api.openai.com")
}

func normalizeProvider(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if p == "" {
		return ProviderBuiltin
	}
	return p
}

// New returns the embedder cfg describes, filling in defaults. It does not
// contact the server or start a program: an openai embedder starts
// git-contextfs-embed (ProgramName) on its first Embed, and one that cannot
// reach its server fails there, with a hint on how to start it.
func New(cfg Config) (Embedder, error) {
	switch p := normalizeProvider(cfg.Provider); p {
	case ProviderBuiltin:
		return NewBuiltin(), nil
	case ProviderOpenAI:
		return newProgram(cfg)
	default:
		return nil, fmt.Errorf("embed: unknown provider %q: want %q or %q", cfg.Provider, ProviderBuiltin, ProviderOpenAI)
	}
}

// HTTPSettings are the settings of provider openai with the defaults
// filled in and checked: what an HTTP client of the server needs.
type HTTPSettings struct {
	// URL is the embeddings endpoint itself, not the API root.
	URL       string
	Model     string
	APIKey    string
	BatchSize int
	Timeout   time.Duration
}

// HTTPSettings returns cfg's settings for provider openai, defaults
// applied, or an error naming what is wrong.
func (cfg Config) HTTPSettings() (HTTPSettings, error) {
	u, err := endpoint(cmp.Or(strings.TrimSpace(cfg.BaseURL), DefaultBaseURL))
	if err != nil {
		return HTTPSettings{}, err
	}
	if cfg.Timeout < 0 {
		return HTTPSettings{}, fmt.Errorf("embed: negative timeout %v", cfg.Timeout)
	}
	if cfg.BatchSize < 0 {
		return HTTPSettings{}, fmt.Errorf("embed: negative batch size %d", cfg.BatchSize)
	}
	return HTTPSettings{
		URL:       u,
		Model:     cmp.Or(strings.TrimSpace(cfg.Model), DefaultModel),
		APIKey:    cfg.APIKey,
		BatchSize: cmp.Or(cfg.BatchSize, DefaultBatchSize),
		Timeout:   cmp.Or(cfg.Timeout, DefaultTimeout),
	}, nil
}

// endpoint validates a base URL and returns its embeddings endpoint. A URL
// that already ends in /embeddings is taken as the endpoint itself, since
// that is what some servers' documentation shows.
func endpoint(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("embed: base URL %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("embed: base URL %q: want an http:// or https:// URL such as %s", base, DefaultBaseURL)
	}
	base = strings.TrimSuffix(base, "/")
	if strings.HasSuffix(base, "/embeddings") {
		return base, nil
	}
	return base + "/embeddings", nil
}

// ErrUnavailable is matched (errors.Is) by the error of an embedding server
// that cannot be reached (nothing listening, no such host), does not answer
// in time, or answers 502, 503 or 504. What can be answered without new
// vectors (list, recall, a keyword search) is then answered from the cache
// as it was, instead of failing: docs/RELIABILITY.md, "When the embedding
// server is down". Any other failure (a wrong model, a bad key, a malformed answer)
// is a mistake to fix, and stays an error.
var ErrUnavailable = errors.New("embedding server unavailable")

// Unavailable returns err marked as ErrUnavailable: errors.Is(e,
// ErrUnavailable) holds, and e reads as err.
func Unavailable(err error) error { return &unavailableError{err} }

// unavailableError is a failure that ErrUnavailable matches, with its own
// message and cause.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string   { return e.err.Error() }
func (e *unavailableError) Unwrap() []error { return []error{e.err, ErrUnavailable} }
