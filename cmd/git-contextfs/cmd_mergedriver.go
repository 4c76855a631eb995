package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/internal/workflow"
)

// exitMergeError is the merge driver's exit code when it could not merge
// at all. Git treats any non-zero exit as a conflict and keeps CURRENT,
// which the driver then has not touched, so nothing is lost.
const exitMergeError = 2

// mergeDriverCmd is the merge driver git runs for memory files. It is
// hidden: git calls it, people do not.
func (a *app) mergeDriverCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE CURRENT OTHER [PATH]",
		Short: "Merge three versions of a memory file (run by git)",
		Long: `Git runs this as the merge driver for memory files, as registered by
"git contextfs init":

  git config merge.contextfs.driver "git-contextfs merge-driver %O %A %B %P"
  echo '.contextfs/**/*.md merge=contextfs' >> .gitattributes

It merges the common ancestor BASE, our version CURRENT and their version
OTHER field by field: tags, links and supersedes as sets, created and
updated as the earliest and latest time, other fields and each data field
from the side that changed them, and the body line by line. The result
replaces CURRENT. Fields or lines both sides changed differently are
written between conflict markers that name the branches (ours: the
checked-out branch; theirs: the name git merge gives the other side in
GITHEAD_<commit>), as git's own markers do, each is reported on stderr prefixed with
PATH, and the exit status is 1 so that git marks the file conflicted.
Exit status 2 means the merge failed and CURRENT was left as it was.`,
		Hidden: true,
		Args:   argsRange(3, 4),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[1]
			if len(args) == 4 {
				name = args[3]
			}
			fail := func(err error) error {
				fmt.Fprintf(a.io.ErrOut, "git-contextfs merge-driver: %s: %v\n", name, err)
				return &exitError{exitMergeError}
			}
			// Git runs the driver at the top of the work tree, with no -C;
			// given one, the files are taken from it, as every PATH is.
			// Each side is a memory file: over limits.max_file_bytes it is
			// refused unread, and git marks the file conflicted.
			conflicts, err := workflow.MergeFiles(cmd.Context(), workflow.MergeFilesRequest{Dir: a.workDir(),
				Base: a.userPath(args[0]), Current: a.userPath(args[1]), Other: a.userPath(args[2])})
			if err != nil {
				return fail(err)
			}
			for _, c := range conflicts {
				fmt.Fprintf(a.io.ErrOut, "%s: %s\n", name, c)
			}
			if len(conflicts) > 0 {
				return &exitError{exitFail}
			}
			return nil
		},
	}
}
