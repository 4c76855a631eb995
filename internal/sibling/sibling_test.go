package sibling

import (
	"errors"
	"os"
	"path/filepath"
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
