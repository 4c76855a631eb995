//go:build !manpages

package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// manCmd is the hidden `man DIR` of the shipped git-contextfs: it only
// says where the pages come from. The generator is this program built
// with -tags manpages (cmd_man.go), so that the binary users run links
// neither cobra/doc nor its Markdown renderer.
func (a *app) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the manual pages (a build with -tags manpages does)",
		Hidden: true,
		Args:   argsRange(1, 1),
		RunE: func(*cobra.Command, []string) error {
			return &usageError{errors.New("man: this build writes no manual pages; make install does " +
				"(or: go run -tags 'sqlite_fts5 manpages' ./cmd/git-contextfs man DIR)")}
		},
	}
}
