package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs the git CLI in dir and returns its standard output without the
// final newline. The environment is passed through untouched, so GIT_DIR
// and friends mean what they mean to git itself. The error carries git's
// own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("git %s (in %s): %w", strings.Join(args, " "), dir, err)
		}
		return "", fmt.Errorf("git %s (in %s): %w: %s", strings.Join(args, " "), dir, err, msg)
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// exitCode returns git's exit status from an error git returned, or -1
// when git did not run to completion.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

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
