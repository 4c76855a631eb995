package contextfs

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

// runGit runs the git CLI in dir (with env, or the process's environment
// when nil) and returns its standard output; the error carries git's
// standard error. Plumbing that go-git lacks or does slowly (the staged
// index, commit-tree with a temporary index) goes through here.
func runGit(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return out, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("git %s: %w: %s", args[0], err, msg)
		}
		return out, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// readBlobs returns the content of the given blobs, read by one
// `git cat-file --batch`. Empty IDs, missing objects and objects that are
// not blobs are left out.
func readBlobs(ctx context.Context, dir string, env []string, oids []string) (map[string][]byte, error) {
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
	out, err := runGit(ctx, dir, env, strings.NewReader(in.String()), "cat-file", "--batch")
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
