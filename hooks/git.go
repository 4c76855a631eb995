package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	gitcli "github.com/contextfs/contextfs/internal/git"
)

// git runs the git CLI in dir and returns its standard output without the
// final newline. The environment is passed through untouched, so GIT_DIR
// and friends mean what they mean to git itself. The error is a
// *git.Error carrying git's own message and exit code.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcli.Run(ctx, dir, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// exitCode returns git's exit status from an error git returned, or -1
// when git did not run to completion.
func exitCode(err error) int { return gitcli.ExitCode(err) }

// topLevel returns the absolute path of the top of the work tree holding
// dir. Paths git prints relative to the current directory are resolved
// against it, which avoids relying on how a given git version treats
// subdirectories.
func topLevel(ctx context.Context, dir string) (string, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	if top == "" {
		return "", fmt.Errorf("%s is not inside a git work tree", dir)
	}
	return filepath.Clean(filepath.FromSlash(top)), nil
}
