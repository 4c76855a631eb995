package check

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// CheckWorkTreeFiles validates and scans the work-tree files paths, given
// relative to the top of the work tree as the pre-commit framework passes
// them to a hook: the staged files during a commit (the framework has
// stashed the rest), every tracked file with `pre-commit run
// --all-files`. It is CheckStaged for the files named rather than the
// index: memory files are validated (IDs unique against every memory of
// the work tree) and scanned for secrets; other files under .contextfs/
// are scanned for secrets, and temporary files, symbolic links and names
// with control characters there are problems; files outside .contextfs/
// are not ours and are skipped. A path that does not exist is skipped
// too: the framework never names a deleted file, but a hand-written list
// may.
func CheckWorkTreeFiles(repo *gitstore.Repo, paths []string) (*StagedCheck, error) {
	res := &StagedCheck{Problems: []Problem{}, Secrets: []secrets.Finding{}}
	sc, warn := stagedScanner(repo)
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	var memories []string // absolute, for validate
	var files []File      // the memories' content, for the secret scan
	seen := map[string]bool{}
	for _, p := range paths {
		rel := filepath.ToSlash(filepath.Clean(p))
		if filepath.IsAbs(p) {
			rel = repo.Rel(p)
		}
		if seen[rel] || !strings.HasPrefix(rel, gitstore.Dir+"/") {
			continue
		}
		seen[rel] = true
		abs := filepath.Join(repo.Root, filepath.FromSlash(rel))
		fi, err := os.Lstat(abs)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", rel, err)
		}
		base := path.Base(rel)
		switch {
		case gitstore.IsTempName(base):
			res.Problems = append(res.Problems, Problem{Path: rel, Rule: string(gitstore.OddTemp), Message: "a temporary file of an interrupted write, not a memory: remove it"})
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			res.Problems = append(res.Problems, Problem{Path: rel, Rule: string(gitstore.OddSymlink), Message: "a symbolic link is never read as a memory: commit the file instead"})
			continue
		case !gitstore.ValidFileName(base):
			res.Problems = append(res.Problems, Problem{Path: rel, Rule: string(gitstore.OddName), Message: "the name holds a control character: rename it"})
		case !fi.Mode().IsRegular():
			continue
		}
		content, err := gitstore.ReadFileLimited(abs, repo.MaxFileBytes)
		if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
			res.Problems = append(res.Problems, Problem{Path: rel, Rule: "size", Message: tl.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", rel, err)
		}
		if gitstore.IsMemoryPath(rel) {
			memories = append(memories, abs)
			files = append(files, File{Path: rel, Content: content})
		} else {
			res.Secrets = append(res.Secrets, ScanFile(sc, rel, content)...)
		}
	}
	res.Files = len(memories)
	if len(memories) == 0 {
		return res, nil
	}
	probs, _, err := Validate(repo, memories)
	if err != nil {
		return nil, err
	}
	res.Problems = append(res.Problems, probs...)
	for _, f := range files {
		res.Secrets = append(res.Secrets, ScanFile(sc, f.Path, f.Content)...)
	}
	return res, nil
}
