package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

func TestEmbedderNamesAMissingOrForeignProgram(t *testing.T) {
	script := func(t *testing.T, body string) string {
		p := filepath.Join(t.TempDir(), embed.ProgramName)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		cfg     func(t *testing.T) embed.Config
		ok      bool
		message string
	}{
		{"the built-in embedder needs no program", func(t *testing.T) embed.Config { return embed.Config{} }, true, embed.NewBuiltin().Model()},
		{"openai with the program of this build", func(t *testing.T) embed.Config {
			return embed.Config{Provider: "openai", Program: script(t, `echo "git-contextfs-embed version x (protocol 1)"`)}
		}, true, "openai/all-minilm at http://localhost:11434/v1/embeddings, through /"},
		{"openai with a program of another protocol", func(t *testing.T) embed.Config {
			return embed.Config{Provider: "openai", Program: script(t, `echo "git-contextfs-embed version y (protocol 9)"`)}
		}, false, "speaks another protocol than this build's 1"},
		{"openai with a program that fails", func(t *testing.T) embed.Config {
			return embed.Config{Provider: "openai", Program: script(t, `exit 3`)}
		}, false, "does not run: exit status 3"},
		{"openai without the program", func(t *testing.T) embed.Config {
			t.Setenv("PATH", t.TempDir())
			return embed.Config{Provider: "openai"}
		}, false, "go install github.com/contextfs/contextfs/cmd/git-contextfs-embed@latest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := embed.New(tt.cfg(t))
			if err != nil {
				t.Fatal(err)
			}
			d := Embedder(context.Background(), e)
			if d.Name != "embedder" || d.OK != tt.ok || !strings.Contains(d.Message, tt.message) {
				t.Errorf("%+v; want ok %v and a message containing %q", d, tt.ok, tt.message)
			}
		})
	}
}
