package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/config"
	"github.com/contextfs/contextfs/gitstore"
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
		{"an unknown key is an error", "serach:\n  mode: keyword\n", "field serach not found"},
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
