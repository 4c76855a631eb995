// Package git is the one place contextfs runs the git CLI. go-git reads
// the repository where it can (gitstore); the plumbing it lacks or does
// slowly (the staged index, commit-tree with a temporary index, merge-file,
// config with includes, log over a long history) goes through Cmd.
//
// Every failure is a *Error carrying the arguments, the exit code and
// git's standard error, so callers branch on ExitCode (git config exits 1
// for an unset key, merge-file with the number of conflicts) instead of
// parsing messages.
package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// Cmd is where and how git runs. The zero value runs git in the current
// directory with the process's environment and no standard input.
type Cmd struct {
	// Dir is the working directory; "" is the current one.
	Dir string
	// Env is the whole environment; nil passes the process's own through
	// untouched, so GIT_DIR, GIT_INDEX_FILE and friends mean what they
	// mean to git itself.
	Env []string
	// Stdin feeds git's standard input; nil is empty input.
	Stdin io.Reader
}

// Error is a git command that failed: it exited non-zero, could not
// start, or was cancelled.
type Error struct {
	Args     []string // the arguments after "git"
	Dir      string   // the working directory, "" for the current one
	ExitCode int      // git's exit status; -1 when git did not run to completion
	Stderr   string   // git's standard error, trimmed
	Err      error    // the underlying error: *exec.ExitError, a start failure, or the context's error
}

// Error reads "git ARGS (in DIR): exit status N: STDERR".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("git " + strings.Join(e.Args, " "))
	if e.Dir != "" {
		b.WriteString(" (in " + e.Dir + ")")
	}
	b.WriteString(": " + e.Err.Error())
	if e.Stderr != "" {
		b.WriteString(": " + e.Stderr)
	}
	return b.String()
}

// Unwrap returns the underlying error, so errors.Is(err, context.Canceled)
// holds for a cancelled command.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns git's exit status from an error Run returned: 0 for
// nil, -1 when git did not run to completion or err is not a git error.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// Run runs git with args and returns its standard output. On failure the
// output so far is returned too, with a *Error: some commands (merge-file,
// rev-parse -q) report through their exit code and still print.
func (c Cmd) Run(ctx context.Context, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	err := c.run(ctx, &stdout, &stderr, args)
	if err != nil {
		err.Stderr = strings.TrimSpace(stderr.String())
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}

// Output runs git with args and returns its standard output without
// surrounding white space.
func (c Cmd) Output(ctx context.Context, args ...string) (string, error) {
	out, err := c.Run(ctx, args...)
	return strings.TrimSpace(string(out)), err
}

// Combined runs git with args and returns its standard output and error
// interleaved as a terminal would show them, for messages meant for
// people (tests, benchmarks). The *Error's Stderr is then empty: it is in
// the output.
func (c Cmd) Combined(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	if err := c.run(ctx, &out, &out, args); err != nil {
		return out.Bytes(), err
	}
	return out.Bytes(), nil
}

// Run runs git with args in dir with the process's environment; the
// shorthand for Cmd{Dir: dir}.Run.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return Cmd{Dir: dir}.Run(ctx, args...)
}

// Output runs git with args in dir and returns its trimmed standard
// output; the shorthand for Cmd{Dir: dir}.Output.
func Output(ctx context.Context, dir string, args ...string) (string, error) {
	return Cmd{Dir: dir}.Output(ctx, args...)
}

// run is the single exec of the git binary in this module.
func (c Cmd) run(ctx context.Context, stdout, stderr io.Writer, args []string) *Error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = c.Dir, c.Env, c.Stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if err == nil {
		return nil
	}
	e := &Error{Args: args, Dir: c.Dir, ExitCode: -1, Err: err}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.Err = ctx.Err()
	case errors.As(err, &ee):
		e.ExitCode = ee.ExitCode()
	}
	return e
}

// ReadBlobs returns the content of the given blobs, read by one
// `git cat-file --batch`. Empty IDs, missing objects and objects that are
// not blobs are left out.
func (c Cmd) ReadBlobs(ctx context.Context, oids []string) (map[string][]byte, error) {
	blobs := make(map[string][]byte, len(oids))
	var in strings.Builder
	seen := map[string]bool{"": true}
	for _, o := range oids {
		if !seen[o] {
			seen[o] = true
			in.WriteString(o + "\n")
		}
	}
	if in.Len() == 0 {
		return blobs, nil
	}
	c.Stdin = strings.NewReader(in.String())
	out, err := c.Run(ctx, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		header, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) && header == "" {
			return blobs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("git cat-file: truncated output: %w", err)
		}
		f := strings.Fields(header) // "<oid> <type> <size>" or "<oid> missing"
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(header))
		}
		b := make([]byte, n+1) // the content, then a newline
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("git cat-file: truncated object %s: %w", f[0], err)
		}
		if f[1] == "blob" {
			blobs[f[0]] = b[:n]
		}
	}
}
