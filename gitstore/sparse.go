package gitstore

import (
	"bytes"
	"context"
	"fmt"

	"github.com/contextfs/contextfs/internal/git"
)

// SparseError is .contextfs/ left out of a sparse checkout: its files are
// tracked, but not in the work tree. Every command would see no memories,
// and a default config written there would replace the team's.
type SparseError struct {
	Root string
}

// Error says what is wrong and the git command that brings the folder in.
func (e *SparseError) Error() string {
	return fmt.Sprintf("%s/ is outside the sparse checkout of %s: its files are tracked but not checked out; bring it in with: git sparse-checkout add %s", Dir, e.Root, Dir)
}

// OutsideSparse reports, as a *SparseError, that the repository tracks
// files under .contextfs/ that a sparse checkout leaves out of the work
// tree (git's skip-worktree entries). It runs git, so it is asked only
// where a file is about to be written in their place or found missing.
func (r *Repo) OutsideSparse(ctx context.Context) error {
	out, err := git.Cmd{Dir: r.Root}.Run(ctx, "ls-files", "-t", "-z", "--", Dir+"/")
	if err != nil {
		return nil // not a question git can answer here (no index yet): nothing left out
	}
	for _, ent := range bytes.Split(out, []byte{0}) {
		if bytes.HasPrefix(ent, []byte("S ")) {
			return &SparseError{Root: r.Root}
		}
	}
	return nil
}
