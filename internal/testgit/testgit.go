// Package testgit makes real git repositories for tests, with the git CLI
// and an isolated configuration, so tests never read the developer's
// ~/.gitconfig or hooks.
package testgit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/git"
)

// Env is the environment tests run git (and git-contextfs) with.
func Env() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com", "NO_COLOR=1")
}

// Run runs git in dir and returns its trimmed output, failing the test on
// error.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Try(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs git in dir and returns its trimmed combined output and error.
func Try(dir string, args ...string) (string, error) {
	out, err := git.Cmd{Dir: dir, Env: Env()}.Combined(context.Background(), args...)
	return strings.TrimSpace(string(out)), err
}

// Init makes a new repository on branch main in a temp dir.
func Init(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Run(t, dir, "init", "-q", "-b", "main")
	Run(t, dir, "config", "user.name", "Ada Lovelace")
	Run(t, dir, "config", "user.email", "ada@example.com")
	return dir
}

// Memory returns a valid fact memory file with the given id, extra
// frontmatter lines (each ending in a newline) and body.
func Memory(id, extra, body string) string {
	return "---\nid: " + id + "\ntype: fact\ntitle: Memory " + id + "\n" + extra +
		"created: 2024-05-01T10:00:00Z\nupdated: 2024-05-01T10:00:00Z\n---\n" + body
}

// WriteFile writes content to rel (slash-separated) under dir, making its
// folders.
func WriteFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Isolate makes the git processes the code under test starts see only the
// test's repositories: no user or system config, and none of the variables
// git sets when go test itself runs from a hook.
func Isolate(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}
