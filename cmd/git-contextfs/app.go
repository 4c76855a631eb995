package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/cmd/git-contextfs/iostreams"
	"github.com/contextfs/contextfs/internal/warm"
	"github.com/contextfs/contextfs/internal/workflow"
	"github.com/contextfs/contextfs/memory"
)

// app is one run of the CLI: the streams its commands read and write, what
// it may start in the background, and the global flags. main builds it
// over the process's own streams (newApp(iostreams.System())); tests over
// buffers (iostreams.Test()), so commands run in-process.
type app struct {
	io *iostreams.IOStreams
	// startWatcher starts a change watcher for the work tree at root when
	// the watch mode asks for one; nil starts none.
	startWatcher func(root string) error
	// dir is --repo (-C): where to look for the repository; "" is the
	// current directory.
	dir string
	// askWarm lets read-only commands ask the repository's watcher for a
	// warm answer (warm.go).
	askWarm bool
	// warm is set when this app runs inside the watcher for a caller: the
	// stores are the watcher's, kept open across commands.
	warm *warm.Session
	// execve replaces the process with another program (syscall.Exec,
	// set by main); nil runs it as a child instead.
	execve func(path string, argv, env []string) error
}

// newApp returns the CLI over ios, starting watchers as this program
// (`git-contextfs watch run`).
func newApp(ios *iostreams.IOStreams) *app {
	a := &app{io: ios, startWatcher: warm.SpawnWatcher, askWarm: true}
	ios.SetColorConfig(a.gitColorConfig)
	return a
}

// open opens the store for the repository around --repo or the current
// directory, printing notices (such as a cache rebuild) to stderr.
func (a *app) open(cmd *cobra.Command) (*contextfs.Store, error) { return a.openStore(cmd.Context()) }

// openStore is open for a command's run function, which has a context
// rather than the cobra command.
func (a *app) openStore(ctx context.Context) (*contextfs.Store, error) {
	if a.warm != nil {
		return a.warm.Set.Repo, nil
	}
	return contextfs.Open(ctx, contextfs.Options{Dir: a.dir, Notices: a.io.ErrOut, StartWatcher: a.startWatcher})
}

// openScopes opens the service over the stores a command with --scope
// works with: the repository's (none outside a repository) and, on
// demand, the user's. Warnings about stores skipped go to stderr.
func (a *app) openScopes(ctx context.Context) (*workflow.Service, error) {
	if a.warm != nil {
		return workflow.Over(a.warm.Set.Borrow(), a.io.ErrOut), nil
	}
	return workflow.Open(ctx, contextfs.Options{Dir: a.dir, Notices: a.io.ErrOut, StartWatcher: a.startWatcher}, a.io.ErrOut)
}

// withService is withStore for a command body that runs a workflow of
// the repository's store: the service over it, with the user store
// opened on demand (and closed after the body).
func (a *app) withService(body func(cmd *cobra.Command, args []string, svc *workflow.Service) error) func(*cobra.Command, []string) error {
	return a.withStore(func(cmd *cobra.Command, args []string, s *contextfs.Store) error {
		svc := workflow.ForStore(s, nil, a.io.ErrOut)
		defer svc.Close() // the user store it opened; s stays withStore's
		return body(cmd, args, svc)
	})
}

// parseScope checks a --scope value: a bad one is a usage error (exit 2).
// one refuses all, for commands that write to a single store.
func parseScope(v string, one bool) (workflow.Scope, error) {
	sc, err := workflow.ParseScope(v)
	if err != nil {
		return "", &usageError{fmt.Errorf("--scope: %w", err)}
	}
	if one && sc == workflow.All {
		return "", &usageError{errors.New("--scope: a memory is saved in one store: repo or user, not all")}
	}
	return sc, nil
}

// scopeUsage is the help of --scope on commands that read.
const scopeUsage = "where to look: repo (this repository), user (your own store) or all"

// withStore adapts a command body that needs the store: it opens the store
// for the repository around --repo or the current directory, and closes it
// when the body returns.
func (a *app) withStore(body func(cmd *cobra.Command, args []string, s *contextfs.Store) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		s, err := a.open(cmd)
		if err != nil {
			return err
		}
		if a.warm == nil { // the watcher's store stays open for its next caller
			defer s.Close()
		}
		return body(cmd, args, s)
	}
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.io.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// args checks positional arguments and reports a usage error (exit 2).
func argsRange(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || (hi >= 0 && len(args) > hi) {
			want := fmt.Sprintf("%d", lo)
			switch {
			case hi < 0:
				want = fmt.Sprintf("at least %d", lo)
			case hi != lo:
				want = fmt.Sprintf("%d to %d", lo, hi)
			}
			return &usageError{fmt.Errorf("%s takes %s argument(s), got %d\nUsage: %s", cmd.Name(), want, len(args), cmd.UseLine())}
		}
		return nil
	}
}

// subcommandArgs is the Args of a command that only groups subcommands
// (hooks, watch, ...): a word after it is a mistyped subcommand, not an
// argument, so it is reported as the root reports an unknown command,
// with the valid ones (exit 2).
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // as the root's: cobra sets it only for the commands it looks up
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\nDid you mean " + strings.Join(s, " or ") + "?"
	}
	return &usageError{fmt.Errorf("%s\nValid commands: %s\nSee '%s -h'.", msg, strings.Join(names, ", "), cmd.CommandPath())}
}

// idArgs is argsRange(lo, hi) for a command whose first ids arguments
// (every one when ids < 0) are memory IDs: a blank one names no memory,
// so it is a usage error (exit 2), not a failed lookup.
func idArgs(lo, hi, ids int) cobra.PositionalArgs {
	return cobra.MatchAll(argsRange(lo, hi), func(cmd *cobra.Command, args []string) error {
		for i, arg := range args {
			if ids >= 0 && i >= ids {
				break
			}
			if strings.TrimSpace(arg) == "" {
				return &usageError{fmt.Errorf("%s: an empty ID names no memory\nUsage: %s", cmd.Name(), cmd.UseLine())}
			}
		}
		return nil
	})
}

// readContent returns the content from the arguments, or from stdin when
// the only argument is "-" or there is none and stdin is not a terminal.
func (a *app) readContent(args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" || len(args) == 0 && !a.io.StdinIsTerminal() {
		b, err := io.ReadAll(a.io.In)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(b), nil
	}
	return strings.Join(args, " "), nil
}

// workDir is where the repository is looked for: --repo, or the current
// directory.
func (a *app) workDir() string {
	if a.dir != "" {
		return a.dir
	}
	return "."
}

// userPath is the file or folder the user named on the command line (an
// argument such as index's or validate's PATH, or a flag's value such as
// --path FILE) where the command must look for it. As git does after -C, a
// relative path is taken from --repo (-C) DIR when it is given, as if the
// command had been started there; an absolute one, or any without --repo,
// is left as it is (the current directory's). Every command that reads a
// path the user gives resolves it here; its errors name the path as given.
func (a *app) userPath(p string) string {
	if p == "" || a.dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.dir, p)
}

// userAbs is userPath made absolute.
func (a *app) userAbs(p string) string {
	p = a.userPath(p)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// userAbsAll is userAbs of each of ps.
func (a *app) userAbsAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = a.userAbs(p)
	}
	return out
}

// repoRel is abs, an absolute path, relative to root, the top of the
// work tree (with forward slashes), and whether it is inside the work
// tree. The root or the path may be named through a symbolic link (a
// /tmp that is one, a -C DIR that is one): then the folders they resolve
// to are compared.
func repoRel(root, abs string) (string, bool) {
	rel := filepath.ToSlash(abs)
	if r, err := filepath.Rel(root, abs); err == nil {
		rel = filepath.ToSlash(r)
	}
	if outsideRepo(rel) {
		root, err1 := filepath.EvalSymlinks(root)
		dir, err2 := filepath.EvalSymlinks(filepath.Dir(abs))
		if err1 == nil && err2 == nil {
			if r, err := filepath.Rel(root, filepath.Join(dir, filepath.Base(abs))); err == nil {
				rel = filepath.ToSlash(r)
			}
		}
	}
	return rel, !outsideRepo(rel)
}

// outsideRepo reports whether rel, a path made relative to the
// repository root by repoRel, leads out of it.
func outsideRepo(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel)
}

// parseSince accepts a date, an RFC 3339 time, or an age like 7d, 2w, 3m,
// 1y, 12h.
func parseSince(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if len(s) >= 2 {
		var n int
		if _, err := fmt.Sscanf(s[:len(s)-1], "%d", &n); err == nil && n >= 0 {
			now := time.Now()
			switch s[len(s)-1] {
			case 'h':
				return now.Add(-time.Duration(n) * time.Hour), nil
			case 'd':
				return now.AddDate(0, 0, -n), nil
			case 'w':
				return now.AddDate(0, 0, -7*n), nil
			case 'm':
				return now.AddDate(0, -n, 0), nil
			case 'y':
				return now.AddDate(-n, 0, 0), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2024-05-01), a time (RFC 3339) or an age (12h, 7d, 2w, 3m, 1y)", s)
}

// checkTypes rejects a --type value that names no memory type (and, with
// kinds, is not code or commit either): a command-line mistake, exit 2.
// Values may be comma-separated.
func checkTypes(types []string, kinds bool) error {
	for _, v := range types {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "" || kinds && (strings.EqualFold(t, "code") || strings.EqualFold(t, "commit")) {
				continue
			}
			if _, err := memory.CanonicalType(t); err != nil {
				return &usageError{fmt.Errorf("--type: %w", err)}
			}
		}
	}
	return nil
}

// checkLimit rejects a negative --limit (0 means the default).
func checkLimit(n int) error {
	if n < 0 {
		return &usageError{fmt.Errorf("--limit must be 0 or more, not %d", n)}
	}
	return nil
}

// checkSearchLimit is checkLimit for search, which returns at most
// contextfs.MaxSearchLimit results.
func checkSearchLimit(n int) error {
	if n > contextfs.MaxSearchLimit {
		return &usageError{fmt.Errorf("--limit must be at most %d, not %d", contextfs.MaxSearchLimit, n)}
	}
	return checkLimit(n)
}

// parseData reads --data, which must be a JSON object. Any other JSON
// value is named in words (an array, a string), not as a Go type.
func parseData(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, &usageError{fmt.Errorf("--data must be a JSON object such as '{\"status\":\"accepted\"}': it is not valid JSON (%v)", err)}
	}
	d, ok := v.(map[string]any)
	if !ok {
		return nil, &usageError{fmt.Errorf("--data must be a JSON object such as '{\"status\":\"accepted\"}', not %s", jsonKind(v))}
	}
	return d, nil
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// noteSkipped says on stderr, in one line, how many memory files the read
// just made left out as unreadable, and how to see them: a read must not
// drop files without a word. Stdout, and so --json, is unchanged.
func (a *app) noteSkipped(ctx context.Context, s *contextfs.Store) {
	skipped, err := s.Skipped(ctx)
	if err != nil || len(skipped) == 0 {
		return
	}
	fmt.Fprintf(a.io.ErrOut, "contextfs: %d invalid memory file(s) left out (first: %s); run git contextfs validate to see them\n", len(skipped), skipped[0].Path)
}
