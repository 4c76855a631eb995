package contextfs

import (
	"context"

	"github.com/contextfs/contextfs/internal/commitflow"
)

type (
	// CommitOptions configure CommitMemories; see commitflow.Options.
	CommitOptions = commitflow.Options
	// CommitFile is one file a memory commit changes; see commitflow.File.
	CommitFile = commitflow.File
	// CommitResult is what CommitMemories did; see commitflow.Result.
	CommitResult = commitflow.Result
	// VerifyError refuses a memory commit; see commitflow.VerifyError.
	VerifyError = commitflow.VerifyError
)

// Commit file statuses.
const (
	CommitAdded    = commitflow.Added
	CommitModified = commitflow.Modified
	CommitRenamed  = commitflow.Renamed
	CommitDeleted  = commitflow.Deleted
)

// CommitMemories commits the memory files that differ from HEAD in the
// work tree, and nothing else the user staged, after the pre-commit
// checks; see commitflow.Commit.
func (s *Store) CommitMemories(ctx context.Context, o CommitOptions) (*CommitResult, error) {
	return commitflow.Commit(ctx, s.Repo, s.Config.Secrets, o)
}

// CommitMessage generates a commit message for files; see
// commitflow.Message.
func CommitMessage(files []CommitFile) string { return commitflow.Message(files) }
