package scope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/git"
)

// UserStoreStatus is where the user store is and how it stands: what
// `status` and `doctor` show, so that a user can find their preferences
// and see whether they are all committed (and so can be pushed).
type UserStoreStatus struct {
	Path string `json:"path"`
	// Exists is false until the first user-scope save creates the store.
	Exists bool `json:"exists"`
	// Memories counts the memory files.
	Memories int `json:"memories"`
	// Uncommitted lists the memory files changed and not committed
	// (saves commit at once; these are hand edits or a failed commit).
	Uncommitted []string `json:"uncommitted,omitempty"`
	// Problem says why the store could not be read; "" when it could.
	Problem string `json:"problem,omitempty"`
	// Refused is true when Problem is why commands refuse the store
	// (another project's repository, not marked as a user store):
	// user-scope saves fail and reads leave it out.
	Refused bool `json:"refused,omitempty"`
}

// UserStatus reads the user store's state without creating it, marking it
// or opening its cache: a count of its memory files and `git status` of
// them, or why commands refuse it (see openUser).
func UserStatus(ctx context.Context) UserStoreStatus {
	dir, err := UserDir()
	if err != nil {
		return UserStoreStatus{Problem: err.Error()}
	}
	st := UserStoreStatus{Path: dir}
	if _, err := os.Stat(filepath.Join(dir, ".git")); errors.Is(err, os.ErrNotExist) {
		return st
	} else if err != nil {
		st.Problem = err.Error()
		return st
	}
	st.Exists = true
	r, err := gitstore.Discover(dir)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	if !sameDir(r.Root, dir) {
		st.Problem = fmt.Sprintf("not the root of its own git repository (it is inside %s)", r.Root)
		return st
	}
	// What User would refuse is said, not counted as an empty store;
	// nothing is marked here (status writes nothing).
	if !markedUserStore(ctx, dir) {
		why, err := notAUserStore(ctx, dir)
		if err != nil {
			st.Problem = err.Error()
			return st
		}
		if why != "" {
			st.Problem, st.Refused = why+"; if it is your user store and no team's repository, mark it so: "+markCommand(dir), true
			return st
		}
	}
	es, err := r.List()
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	st.Memories = len(es)
	out, err := git.Cmd{Dir: dir}.Run(ctx, "status", "--porcelain", "--untracked-files=all", "--", gitstore.Dir)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	for _, l := range strings.Split(string(out), "\n") {
		if len(l) > 3 {
			st.Uncommitted = append(st.Uncommitted, strings.TrimSpace(l[3:]))
		}
	}
	return st
}

// Summary is the state in a few words, for status and doctor.
func (u UserStoreStatus) Summary() string {
	switch {
	case u.Refused:
		return "refused: " + u.Problem
	case u.Problem != "":
		return "cannot be read: " + u.Problem
	case !u.Exists:
		return "not created yet: the first user-scope save creates it"
	case len(u.Uncommitted) > 0:
		return fmt.Sprintf("%d memories, %d uncommitted change(s): git -C %s commit -a", u.Memories, len(u.Uncommitted), u.Path)
	}
	return fmt.Sprintf("%d memories, all committed", u.Memories)
}

// Diagnosis is doctor's line for the user store: a warning when it cannot
// be read, is refused or holds uncommitted changes, never a failure (the repository's
// own setup does not depend on it).
func (u UserStoreStatus) Diagnosis() check.Diagnosis {
	return check.Diagnosis{Name: "user-store", OK: true, Warning: u.Problem != "" || len(u.Uncommitted) > 0,
		Message: u.Path + ": " + u.Summary()}
}
