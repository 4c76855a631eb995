package workflow

import (
	"fmt"
	"os"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
)

// Format puts the memory files paths of st (every one when none is
// named; work-tree relative) in canonical form, or with write false only
// says which would change. A path that is not a memory file (a .md file
// under .contextfs/; never a symbolic link, which rewriting would
// replace with a file) is an error, and nothing is written.
func Format(st *contextfs.Store, paths []string, write bool) (contextfs.FormatResult, error) {
	if len(paths) == 0 {
		entries, err := st.Repo.List()
		if err != nil {
			return contextfs.FormatResult{}, err
		}
		for _, e := range entries {
			paths = append(paths, e.Path)
		}
	}
	for _, p := range paths {
		fi, err := os.Lstat(st.Repo.Abs(p))
		if !gitstore.IsMemoryPath(p) || err != nil || !fi.Mode().IsRegular() {
			return contextfs.FormatResult{}, fmt.Errorf("%s: not a memory file (memories are .md files under %s/)", p, gitstore.Dir)
		}
	}
	return st.Format(paths, write), nil
}
