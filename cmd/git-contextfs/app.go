package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
)

// app holds the streams every command writes to; tests run the real
// binary, so these are the process's own.
type app struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	dir            string
}

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "git-contextfs",
		Short: "A git-native memory for AI coding assistants",
		Long: `contextfs gives a repository a memory that people and agents share.

Memories are Markdown files with YAML frontmatter under .contextfs/: typed
(decision, fact, error, procedural, ...), tagged and linked. They are
committed, branched, merged and reviewed like code. A disposable cache in
the git directory makes them searchable by keyword and by meaning.

Run it as "git contextfs COMMAND" (use -h for help there: git turns --help
into "git help contextfs") or as "git-contextfs COMMAND".`,
		Example: `  git contextfs init
  git contextfs save --type decision --tag db "Use pgx with a pool of 20 connections"
  git contextfs search "how do we pool db connections"
  git contextfs recall k3x9`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().StringVarP(&a.dir, "repo", "C", "", "run as if started in `DIR`")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w\nSee '%s -h'.", err, c.CommandPath())}
	})
	root.AddCommand(a.initCmd(), a.saveCmd(), a.searchCmd(), a.recallCmd(), a.listCmd(), a.updateCmd(),
		a.deleteCmd(), a.statusCmd(), a.reindexCmd(), a.schemaCmd(), a.validateCmd())
	a.addExtra(root)
	a.addHygiene(root)
	return root
}

// open opens the store for the repository around --repo or the current
// directory, printing notices (such as a cache rebuild) to stderr.
func (a *app) open(cmd *cobra.Command) (*contextfs.Store, error) {
	return contextfs.Open(cmd.Context(), contextfs.Options{Dir: a.dir, Notices: a.stderr, StartWatcher: spawnWatcher})
}

// withStore adapts a command body that needs the store: it opens the store
// for the repository around --repo or the current directory, and closes it
// when the body returns.
func (a *app) withStore(body func(cmd *cobra.Command, args []string, s *contextfs.Store) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		s, err := a.open(cmd)
		if err != nil {
			return err
		}
		defer s.Close()
		return body(cmd, args, s)
	}
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
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

// readContent returns the content from the arguments, or from stdin when
// the only argument is "-" or there is none and stdin is not a terminal.
func (a *app) readContent(args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" || len(args) == 0 && !isTerminal(os.Stdin) {
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(b), nil
	}
	return strings.Join(args, " "), nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
