//go:build manpages

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// ---------------------------------------------------------------------------
// git contextfs man DIR (the manual-page generator)

// manCmd is the hidden `man DIR` of the generator build (-tags manpages):
// it writes the manual pages, one per command, with cobra/doc from the
// command tree, so they never disagree with -h. The shipped git-contextfs
// is built without the tag (cmd_man_stub.go) and so links neither cobra/doc
// nor its Markdown renderer (go-md2man, blackfriday), whose initialisers
// would run at every start for a command make install runs once. make
// install and scripts/release.sh build this generator and run it; git
// needs git-contextfs.1 to answer `git contextfs --help`, which it turns
// into `git help contextfs`.
func (a *app) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages (git-contextfs.1 and one per command) into DIR",
		Long: `Writes the manual pages, generated from the commands' help, into DIR
(created if need be): git-contextfs.1 and git-contextfs-COMMAND.1 for each
command. make install puts them in $(PREFIX)/share/man/man1, where man
finds them when $(PREFIX)/bin is on PATH. SOURCE_DATE_EPOCH fixes the
date printed in the pages, for reproducible builds.`,
		Example: `  go run -tags 'sqlite_fts5 manpages' ./cmd/git-contextfs man ~/.local/share/man/man1
  MANPATH="$HOME/.local/share/man:" git contextfs --help`,
		Hidden: true,
		Args:   argsRange(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.userPath(args[0]) // from DIR with -C DIR
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			date := time.Now()
			if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
				sec, err := strconv.ParseInt(epoch, 10, 64)
				if err != nil {
					return fmt.Errorf("man: SOURCE_DATE_EPOCH %q: not a number of seconds", epoch)
				}
				date = time.Unix(sec, 0).UTC()
			}
			root := cmd.Root()
			// No "Auto generated" history section: the pages are the
			// commands' help, and the date is in the header already.
			root.DisableAutoGenTag = true
			markdownLong(root)
			hdr := &doc.GenManHeader{Section: "1", Date: &date,
				Source: "contextfs " + version(), Manual: "contextfs Manual"}
			if err := doc.GenManTree(root, hdr, dir); err != nil {
				return fmt.Errorf("man: write pages into %s: %w", args[0], err)
			}
			fmt.Fprintf(a.io.ErrOut, "wrote the manual pages into %s\n", args[0])
			return nil
		},
	}
}

// markdownLong rewrites the long help of c and every command below it as
// the Markdown cobra/doc renders: help text is plain text whose paragraphs
// with indented lines (a table of checks, a command to type) are laid out
// by hand, which Markdown would run together, so those are fenced as code.
// The generator is a process of its own, run once, so changing the tree in
// place is safe.
func markdownLong(c *cobra.Command) {
	paras := strings.Split(strings.TrimSpace(c.Long), "\n\n")
	for i, p := range paras {
		if strings.HasPrefix(p, " ") || strings.Contains(p, "\n ") {
			paras[i] = "```\n" + p + "\n```"
		}
	}
	c.Long = strings.Join(paras, "\n\n")
	for _, sub := range c.Commands() {
		markdownLong(sub)
	}
}
