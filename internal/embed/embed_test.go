package embed

import (
	"strings"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantModel string
		wantErr   string
	}{
		{"zero config is the built-in embedder", Config{}, NewBuiltin().Model(), ""},
		{"builtin ignores HTTP settings", Config{Provider: "builtin", Model: "x", BaseURL: "::"}, NewBuiltin().Model(), ""},
		{"provider name is case-insensitive", Config{Provider: " OpenAI "}, "openai/all-minilm", ""},
		{"openai defaults the model", Config{Provider: "openai"}, "openai/all-minilm", ""},
		{"openai uses the given model", Config{Provider: "openai", Model: "text-embedding-3-small"}, "openai/text-embedding-3-small", ""},
		{"unknown provider lists the valid ones", Config{Provider: "bert"}, "", `unknown provider "bert": want "builtin" or "openai"`},
		{"base URL without scheme is rejected", Config{Provider: "openai", BaseURL: "localhost:11434/v1"}, "", "want an http:// or https:// URL"},
		{"base URL with another scheme is rejected", Config{Provider: "openai", BaseURL: "ftp://host/v1"}, "", "want an http:// or https:// URL"},
		{"negative timeout is rejected", Config{Provider: "openai", Timeout: -time.Second}, "", "negative timeout"},
		{"negative batch size is rejected", Config{Provider: "openai", BatchSize: -1}, "", "negative batch size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New(%+v) error = %v, want one containing %q", tt.cfg, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Model(); got != tt.wantModel {
				t.Errorf("Model() = %q, want %q", got, tt.wantModel)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	base := Config{Provider: "builtin", Model: "base-model", BaseURL: "http://base/v1", Timeout: time.Minute, BatchSize: 8}
	tests := []struct {
		name string
		env  map[string]string
		want Config
	}{
		{"no variables leave the base alone", nil, base},
		{"variables override their fields only",
			map[string]string{EnvProvider: "openai", EnvModel: "nomic-embed-text", EnvURL: "http://gpu:11434/v1", EnvAPIKey: "k1"},
			Config{Provider: "openai", Model: "nomic-embed-text", BaseURL: "http://gpu:11434/v1", APIKey: "k1", Timeout: time.Minute, BatchSize: 8}},
		{"empty variables are ignored",
			map[string]string{EnvProvider: "", EnvModel: "  "},
			base},
		{"openai falls back to OPENAI_API_KEY for OpenAI's own server",
			map[string]string{EnvProvider: "openai", EnvOpenAIKey: "sk-openai", EnvURL: "https://api.openai.com/v1"},
			Config{Provider: "openai", Model: "base-model", BaseURL: "https://api.openai.com/v1", APIKey: "sk-openai", Timeout: time.Minute, BatchSize: 8}},
		{"OPENAI_API_KEY is never sent to another server",
			map[string]string{EnvProvider: "openai", EnvOpenAIKey: "sk-openai"},
			Config{Provider: "openai", Model: "base-model", BaseURL: "http://base/v1", Timeout: time.Minute, BatchSize: 8}},
		{"contextfs key wins over OPENAI_API_KEY",
			map[string]string{EnvProvider: "openai", EnvAPIKey: "k1", EnvOpenAIKey: "sk-openai"},
			Config{Provider: "openai", Model: "base-model", BaseURL: "http://base/v1", APIKey: "k1", Timeout: time.Minute, BatchSize: 8}},
		{"builtin does not pick up OPENAI_API_KEY",
			map[string]string{EnvOpenAIKey: "sk-openai"},
			base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{EnvProvider, EnvModel, EnvURL, EnvAPIKey, EnvOpenAIKey} {
				t.Setenv(k, tt.env[k])
			}
			if got := ConfigFromEnv(base); got != tt.want {
				t.Errorf("ConfigFromEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}
