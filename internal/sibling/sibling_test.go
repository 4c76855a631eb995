package sibling

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// program writes an executable (or, with mode 0o644, a plain file) name
// in dir and returns its path.
func program(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindLooksBesideTheRunningProgramThenOnPATH(t *testing.T) {
	install, onPath, linkDir := t.TempDir(), t.TempDir(), t.TempDir()
	exe := program(t, install, "git-contextfs", 0o755)
	besideIt := program(t, install, "git-contextfs-mcp", 0o755)
	program(t, onPath, "git-contextfs-mcp", 0o755)
	pathOnly := program(t, onPath, "only-on-path", 0o755)
	program(t, install, "not-executable", 0o644)
	link := filepath.Join(linkDir, "git-contextfs")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", onPath)
	for _, tc := range []struct {
		name, exe, program, want string
	}{
		{"beside the program before PATH", exe, "git-contextfs-mcp", besideIt},
		{"beside the program a link points to", link, "git-contextfs-mcp", besideIt},
		{"on PATH when not beside it", exe, "only-on-path", pathOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := find(tc.program, tc.exe)
			if err != nil || got != tc.want {
				t.Fatalf("find(%q) = %q, %v; want %q", tc.program, got, err, tc.want)
			}
		})
	}
	t.Run("neither beside it nor on PATH, nor a file that does not run", func(t *testing.T) {
		for _, name := range []string{"missing", "not-executable"} {
			_, err := find(name, exe)
			var nf *NotFoundError
			if !errors.As(err, &nf) || nf.Name != name || nf.Dir != install {
				t.Fatalf("find(%q): %v; want a NotFoundError naming %s", name, err, install)
			}
		}
	})
}

func TestInstallHintNamesTheRunningRelease(t *testing.T) {
	tests := []struct {
		name, tags, version, want string
	}{
		{"a release installs the same release", "sqlite_fts5", "v1.2.3",
			"CGO_ENABLED=1 go install -tags sqlite_fts5 github.com/contextfs/contextfs/cmd/git-contextfs-mcp@v1.2.3"},
		{"a build between releases asks for the latest", "sqlite_fts5", "v1.2.3-4-g0123456",
			"github.com/contextfs/contextfs/cmd/git-contextfs-mcp@latest"},
		{"a dev build asks for the latest, without cgo when no tags", "", "dev",
			"  go install github.com/contextfs/contextfs/cmd/git-contextfs-mcp@latest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InstallHint("git-contextfs-mcp", tt.tags, tt.version); !strings.Contains(got, tt.want) {
				t.Errorf("InstallHint = %q, want it to hold %q", got, tt.want)
			}
		})
	}
}

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{"v1.2.3": true, "v0.10.0": true, "v1.2": false, "1.2.3": false,
		"v1.2.3-4-g0123456": false, "v1.2.3-dirty": false, "dev": false, "v1..3": false, "": false} {
		if got := isRelease(v); got != want {
			t.Errorf("isRelease(%q) = %v, want %v", v, got, want)
		}
	}
}
