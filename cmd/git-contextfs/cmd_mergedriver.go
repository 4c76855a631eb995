package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs/git"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memmerge"
	"github.com/contextfs/contextfs/memory"
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
			limit := int64(memory.DefaultMaxFileBytes)
			if repo, _, err := a.openFiles(); err == nil {
				limit = repo.MaxFileBytes
			}
			var in [3][]byte
			for i, p := range args[:3] {
				b, err := gitstore.ReadFileLimited(a.userPath(p), limit)
				if err != nil {
					return fail(err)
				}
				in[i] = b
			}
			res, err := memmerge.Merge(in[0], in[1], in[2])
			if err != nil {
				return fail(err)
			}
			res = res.Labeled(mergeLabels(cmd.Context()))
			if err := gitstore.WriteFileAtomic(a.userPath(args[1]), res.Content, 0o644); err != nil {
				return fail(err)
			}
			for _, c := range res.Conflicts {
				fmt.Fprintf(a.io.ErrOut, "%s: %s\n", name, c)
			}
			if len(res.Conflicts) > 0 {
				return &exitError{exitFail}
			}
			return nil
		},
	}
}

// mergeLabels names the two sides of the merge git is running, for the
// conflict markers: ours is the branch checked out in the work tree git
// runs the driver in, theirs what `git merge` called the other side
// (it exports GITHEAD_<commit>=NAME for each merged head). A side that
// cannot be named is "" and keeps the word ours or theirs; without one
// git merge naming the other side (a rebase or cherry-pick sets no
// GITHEAD_ variable) neither side is named.
func mergeLabels(ctx context.Context) (ours, theirs string) {
	var names []string
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GITHEAD_") && v != "" {
			names = append(names, v)
		}
	}
	if len(names) != 1 {
		return "", "" // not one git merge: name neither side
	}
	if b, err := (git.Cmd{}).Output(ctx, "symbolic-ref", "--short", "-q", "HEAD"); err == nil {
		ours = b
	}
	return ours, names[0]
}
