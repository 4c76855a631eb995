package workflow

import (
	"context"
	"os"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/memmerge"
	"github.com/contextfs/contextfs/memory"
)

// MergeFilesRequest is git's merge driver run on a memory file: the
// common ancestor Base, our version Current (which the result replaces)
// and their version Other, each a file path.
type MergeFilesRequest struct {
	Base, Current, Other string
	// Dir is the work tree git runs the driver in: its limits apply (a
	// side over limits.max_file_bytes is refused unread), and its
	// checked-out branch names our side of the conflict markers.
	Dir string
}

// MergeFiles merges the three versions field by field (package
// memmerge) and writes the result over Current. The conflicts, when
// there are any, are between markers that name the branches as git's
// own do, and are listed for a person. An error leaves Current as it was.
func MergeFiles(ctx context.Context, req MergeFilesRequest) (conflicts []string, err error) {
	limit := int64(memory.DefaultMaxFileBytes)
	if repo, _, err := openFiles(req.Dir, nil); err == nil {
		limit = repo.MaxFileBytes
	}
	var in [3][]byte
	for i, p := range []string{req.Base, req.Current, req.Other} {
		b, err := gitstore.ReadFileLimited(p, limit)
		if err != nil {
			return nil, err
		}
		in[i] = b
	}
	res, err := memmerge.Merge(in[0], in[1], in[2])
	if err != nil {
		return nil, err
	}
	res = res.Labeled(mergeLabels(ctx, req.Dir))
	if err := gitstore.WriteFileAtomic(req.Current, res.Content, 0o644); err != nil {
		return nil, err
	}
	return res.Conflicts, nil
}

// mergeLabels names the two sides of the merge git is running, for the
// conflict markers: ours is the branch checked out in the work tree git
// runs the driver in, theirs what `git merge` called the other side
// (it exports GITHEAD_<commit>=NAME for each merged head). A side that
// cannot be named is "" and keeps the word ours or theirs; without one
// git merge naming the other side (a rebase or cherry-pick sets no
// GITHEAD_ variable) neither side is named.
func mergeLabels(ctx context.Context, dir string) (ours, theirs string) {
	var names []string
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GITHEAD_") && v != "" {
			names = append(names, v)
		}
	}
	if len(names) != 1 {
		return "", "" // not one git merge: name neither side
	}
	if b, err := (git.Cmd{Dir: dir}).Output(ctx, "symbolic-ref", "--short", "-q", "HEAD"); err == nil {
		ours = b
	}
	return ours, names[0]
}
