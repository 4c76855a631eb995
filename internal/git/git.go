// Package git is the one place contextfs runs the git CLI. No program links
// go-git: git's index file is read by package gitindex and its
// configuration files by gitstore (gitconfig.go), without a process; the
// rest (trees and blobs at a ref, the staged index, commit-tree with a
// temporary index, merge-file, config with includes, log over a long
// history) goes through Cmd.
//
// Every failure is a *Error carrying the arguments, the exit code and
// git's standard error, so callers branch on ExitCode (git config exits 1
// for an unset key, merge-file with the number of conflicts) instead of
// parsing messages.
package git

import (
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
	blobs, _, err := c.ReadBlobsUpTo(ctx, oids, 0)
	return blobs, err
}

// ReadBlobsUpTo is ReadBlobs for blobs of at most max bytes (0: any
// size): a larger blob is streamed past, never held in memory, and
// reported in over with its size. A staged file of gigabytes then costs
// the reader nothing but the pipe's bandwidth.
func (c Cmd) ReadBlobsUpTo(ctx context.Context, oids []string, max int64) (blobs map[string][]byte, over map[string]int64, err error) {
	p := &batchReader{max: max, blobs: make(map[string][]byte, len(oids)), over: map[string]int64{}}
	var in strings.Builder
	seen := map[string]bool{"": true}
	for _, o := range oids {
		if !seen[o] {
			seen[o] = true
			in.WriteString(o + "\n")
		}
	}
	if in.Len() == 0 {
		return p.blobs, p.over, nil
	}
	c.Stdin = strings.NewReader(in.String())
	args := []string{"cat-file", "--batch"}
	if max > 0 {
		// git streams a blob over core.bigFileThreshold instead of
		// inflating it whole in its own memory.
		args = append([]string{"-c", "core.bigFileThreshold=" + strconv.FormatInt(max+1, 10)}, args...)
	}
	var stderr bytes.Buffer
	if e := c.run(ctx, p, &stderr, args); e != nil {
		e.Stderr = strings.TrimSpace(stderr.String())
		return nil, nil, e
	}
	if p.err != nil {
		return nil, nil, p.err
	}
	if p.state != wantHeader || len(p.line) > 0 {
		return nil, nil, errors.New("git cat-file: truncated output")
	}
	return p.blobs, p.over, nil
}

// batchReader parses `git cat-file --batch` output as it arrives: a
// header line "<oid> <type> <size>" (or "<oid> missing"), then the
// content and a newline.
type batchReader struct {
	max   int64
	blobs map[string][]byte
	over  map[string]int64
	err   error

	state int
	line  []byte // the header read so far
	oid   string
	keep  bool   // the current object is a blob within max
	left  int64  // bytes of the current object (and its newline) still to come
	buf   []byte // its content, when kept
}

const (
	wantHeader = iota
	inObject
)

func (p *batchReader) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 && p.err == nil {
		switch p.state {
		case wantHeader:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				p.line = append(p.line, b...)
				return n, nil
			}
			p.line = append(p.line, b[:i]...)
			b = b[i+1:]
			p.header(string(p.line))
			p.line = p.line[:0]
		case inObject:
			k := int(min(int64(len(b)), p.left))
			if p.keep {
				p.buf = append(p.buf, b[:k]...)
			}
			b, p.left = b[k:], p.left-int64(k)
			if p.left == 0 {
				if p.keep {
					p.blobs[p.oid] = p.buf[:len(p.buf)-1] // less the newline
				}
				p.buf, p.state = nil, wantHeader
			}
		}
	}
	if p.err != nil {
		return n, p.err
	}
	return n, nil
}

func (p *batchReader) header(h string) {
	f := strings.Fields(h)
	if len(f) == 2 && f[1] == "missing" {
		return
	}
	if len(f) != 3 {
		p.err = fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(h))
		return
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		p.err = fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(h))
		return
	}
	p.oid, p.left, p.state = f[0], size+1, inObject
	p.keep = f[1] == "blob" && (p.max <= 0 || size <= p.max)
	if f[1] == "blob" && !p.keep {
		p.over[p.oid] = size
	}
	if p.keep {
		p.buf = make([]byte, 0, size+1)
	}
}
