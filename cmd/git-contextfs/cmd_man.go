package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/cmd/git-contextfs/manpage"
)

// ---------------------------------------------------------------------------
// git contextfs man DIR

// manCmd is the hidden `man DIR`: it writes the manual pages, one per
// command, generated from the command tree, so they never disagree with
// -h (written by package manpage, not cobra/doc, whose Markdown renderer
// would cost every run of the binary its initialisers). `make install` runs it; git needs git-contextfs.1 to answer
// `git contextfs --help`, which it turns into `git help contextfs`.
func (a *app) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages (git-contextfs.1 and one per command) into DIR",
		Long: `Writes the manual pages, generated from the commands' help, into DIR
(created if need be): git-contextfs.1 and git-contextfs-COMMAND.1 for each
command. make install puts them in $(PREFIX)/share/man/man1, where man
finds them when $(PREFIX)/bin is on PATH. SOURCE_DATE_EPOCH fixes the
date printed in the pages, for reproducible builds.`,
		Example: `  git-contextfs man ~/.local/share/man/man1
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
			hdr := manpage.Header{Section: "1", Date: date,
				Source: "contextfs " + version(), Manual: "contextfs Manual"}
			if err := manpage.WriteTree(cmd.Root(), hdr, dir); err != nil {
				return fmt.Errorf("man: write pages into %s: %w", args[0], err)
			}
			fmt.Fprintf(a.io.ErrOut, "wrote the manual pages into %s\n", args[0])
			return nil
		},
	}
}
