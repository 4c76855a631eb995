package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/buildinfo"
)

// versionCmd is version: the same line as --version, or its parts as
// JSON for scripts.
func (a *app) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the Go that built this program",
		Long: `Prints "contextfs vX.Y.Z (commit HASH, goX.Y.Z)", as --version does.
Releases are git tags vX.Y.Z; a build between releases names the last tag,
the commits since and its own commit (git describe), and a build from a
modified work tree says -dirty. go install ...@vX.Y.Z reports the module
version without a commit; a build that recorded neither says dev.`,
		Example: "  git contextfs version\n  git contextfs version --json",
		Args:    argsRange(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Read()
			if asJSON {
				return a.printJSON(struct {
					Version string `json:"version"`
					Commit  string `json:"commit,omitempty"`
					Go      string `json:"go"`
				}{info.Version, info.Commit, info.Go})
			}
			fmt.Fprintln(a.io.Out, info.String())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print version, commit and go as JSON")
	return cmd
}
