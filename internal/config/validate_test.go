package config_test

import (
	"path"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/chunker"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/dedup"
	"github.com/contextfs/contextfs/internal/search"
)

// TestLoadRejectsValuesOutsideTheirDomain: every documented setting whose
// values are narrower than its YAML type is checked when the file is read,
// and the error names the file, the key and what is allowed. Before, a
// semantic_weight of 1.5 inverted the ranking, NaN found nothing, and the
// rest were used (or silently replaced by a default) without a word.
func TestLoadRejectsValuesOutsideTheirDomain(t *testing.T) {
	const file = ".contextfs/config.yaml: "
	tests := []struct {
		name, content string
		want          []string // all in the error
	}{
		{"a weight above 1", "search:\n  semantic_weight: 1.5\n", []string{file + "search.semantic_weight must be a number from 0 to 1", "not 1.5"}},
		{"a negative weight", "search:\n  semantic_weight: -0.1\n", []string{file + "search.semantic_weight must be a number from 0 to 1", "not -0.1"}},
		{"a NaN weight", "search:\n  semantic_weight: .nan\n", []string{file + "search.semantic_weight", "not NaN"}},
		{"an infinite weight", "search:\n  semantic_weight: .inf\n", []string{file + "search.semantic_weight", "not +Inf"}},
		{"a negative search limit", "search:\n  limit: -3\n", []string{file + "search.limit must be from 1 to 1000", "not -3"}},
		{"a search limit above the most a search returns", "search:\n  limit: 100000000\n", []string{file + "search.limit must be from 1 to 1000", "not 100000000"}},
		{"max_commits below -1", "index:\n  max_commits: -2\n", []string{file + "index.max_commits must be", "-1", "not -2"}},
		{"an unknown language", "index:\n  languages: [go, klingon]\n", []string{file + "index.languages", `"klingon"`, "go, python"}},
		{"a language in capitals", "index:\n  languages: [Go]\n", []string{file + "index.languages", `"Go"`}},
		{"an exclude glob that does not compile", "index:\n  exclude: [\"[unclosed\"]\n", []string{file + "index.exclude[0]", "not a valid glob", `"[unclosed"`}},
		{"an empty include glob", "index:\n  include: [\"*.txt\", \"\"]\n", []string{file + "index.include[1]", "must not be empty"}},
		{"an include glob out of the repository", "index:\n  include: [\"../other/**\"]\n", []string{file + "index.include[0]", ".."}},
		{"a negative file size limit", "limits:\n  max_file_bytes: -1\n", []string{file + "limits.max_file_bytes must not be negative", "not -1"}},
		{"a negative data depth", "limits:\n  max_data_depth: -2\n", []string{file + "limits.max_data_depth must not be negative"}},
		{"a negative data size", "limits:\n  max_data_bytes: -2\n", []string{file + "limits.max_data_bytes must not be negative"}},
		{"a negative tag count", "limits:\n  max_tags: -1\n", []string{file + "limits.max_tags must not be negative"}},
		{"a negative tag length", "limits:\n  max_tag_length: -1\n", []string{file + "limits.max_tag_length must not be negative"}},
		{"a negative session cap", "hygiene:\n  session_cap: -1\n", []string{file + "hygiene.session_cap must not be negative", "not -1"}},
		{"an unknown dedup policy", "hygiene:\n  dedup: maybe\n", []string{file + "hygiene.dedup must be skip, update, error, allow, supersede or off", `not "maybe"`}},
		{"an unknown embedder", "embedder:\n  provider: bogus\n", []string{file + "embedder.provider must be builtin or openai", `not "bogus"`}},
		{"an embedder URL that is not one", "embedder:\n  provider: openai\n  url: not a url\n", []string{file + "embedder.url must be an http:// or https:// URL", `not "not a url"`}},
		{"an embedder URL without a host", "embedder:\n  url: http://\n", []string{file + "embedder.url"}},
		{"a key variable that cannot be one", "embedder:\n  api_key_env: X Y\n", []string{file + "embedder.api_key_env must name an environment variable", `not "X Y"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(repoWithConfig(t, tt.content))
			if err == nil {
				t.Fatalf("Load accepted\n%s", tt.content)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestLoadAcceptsEveryValueInTheDomain: the edges of each range, the
// values that mean "the default", and every name the readers accept.
func TestLoadAcceptsEveryValueInTheDomain(t *testing.T) {
	for _, content := range []string{
		"search:\n  semantic_weight: 0\n",
		"search:\n  semantic_weight: 1\n",
		"search:\n  semantic_weight: 0.3\n  limit: 1000\n",
		"search:\n  limit: 0\n",
		"index:\n  max_commits: -1\n",
		"index:\n  max_commits: 0\n",
		"index:\n  languages: [go, python, javascript, typescript, tsx, rust, java, c, cpp, ruby, csharp, php, bash, markdown, text]\n",
		"index:\n  include: [\"*.txt\", \"docs/**/*.md\"]\n  exclude: [\"testdata/**\", \"/vendor/**\", \"**/fixtures/*.json\", \"*.pb.go\"]\n",
		"limits:\n  max_file_bytes: 0\n  max_data_depth: 0\n  max_data_bytes: 0\n  max_tags: 0\n  max_tag_length: 0\n",
		"limits:\n  max_file_bytes: 1024\n  max_tags: 3\n",
		"hygiene:\n  dedup: skip\n  session_cap: 0\n",
		"hygiene:\n  dedup: update\n", "hygiene:\n  dedup: error\n", "hygiene:\n  dedup: allow\n", "hygiene:\n  dedup: \"off\"\n",
		"embedder:\n  provider: openai\n  model: all-minilm\n  url: http://localhost:11434/v1\n  api_key_env: OPENAI_API_KEY\n",
		"embedder:\n  provider: OpenAI\n  url: https://api.openai.com/v1/embeddings\n  api_key_env: _KEY_2\n",
		"embedder:\n  provider: builtin\n",
	} {
		if _, err := config.Load(repoWithConfig(t, content)); err != nil {
			t.Errorf("Load rejected\n%s: %v", content, err)
		}
	}
}

// TestAllowedValuesMatchTheirReaders: the lists config checks against are
// copies of what other packages accept (config cannot import them: they
// import it, or the cgo parsers); this keeps the copies in step.
func TestAllowedValuesMatchTheirReaders(t *testing.T) {
	if config.MaxSearchLimit != search.MaxLimit {
		t.Errorf("config.MaxSearchLimit %d, search.MaxLimit %d", config.MaxSearchLimit, search.MaxLimit)
	}
	// Every language config accepts is one the chunker names for some
	// file: a name it does not know would index nothing.
	named := map[string]bool{}
	for _, ext := range []string{".go", ".py", ".js", ".ts", ".tsx", ".rs", ".java", ".c", ".cpp", ".rb", ".cs", ".php", ".sh", ".md", ".txt"} {
		named[chunker.Language(path.Join("dir", "f"+ext))] = true
	}
	for _, l := range config.Languages() {
		if !named[l] {
			t.Errorf("config accepts language %q, which the chunker gives no file", l)
		}
		delete(named, l)
	}
	for l := range named {
		t.Errorf("the chunker names language %q, which config refuses", l)
	}
	for _, p := range config.DedupPolicies() {
		if _, err := dedup.ParsePolicy(p); err != nil {
			t.Errorf("config accepts hygiene.dedup %q, dedup does not: %v", p, err)
		}
	}
	if _, err := dedup.ParsePolicy("maybe"); err == nil {
		t.Error("dedup accepts maybe")
	}
}
