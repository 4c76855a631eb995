package contextfs

import (
	"context"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/secrets"
)

type (
	// Problem is one thing wrong with a memory file; see check.Problem.
	Problem = check.Problem
	// File is a memory file's path and content; see check.File.
	File = check.File
	// StagedCheck is what CheckStaged found; see check.StagedCheck.
	StagedCheck = check.StagedCheck
)

// CheckFiles validates memory files; see check.CheckFiles.
func CheckFiles(files []File, others map[string]string) []Problem {
	return check.CheckFiles(files, others)
}

// CheckStaged validates and scans the memory files staged in repo's git
// index; see check.CheckStaged.
func CheckStaged(ctx context.Context, repo *gitstore.Repo) (*StagedCheck, error) {
	return check.CheckStaged(ctx, repo)
}

// ScanFile scans a memory file's content and path for secrets; see
// check.ScanFile.
func ScanFile(sc *secrets.Scanner, path string, content []byte) []secrets.Finding {
	return check.ScanFile(sc, path, content)
}

// Validate checks the given memory files (work-tree paths, relative to
// the current directory or absolute), or every memory file when none is
// given. It reads files, not the cache.
func (s *Store) Validate(ctx context.Context, paths []string) ([]Problem, int, error) {
	return check.Validate(s.Repo, paths)
}

// ValidateWithSecrets is Validate that also scans the files for secrets
// with the repository's configured scanner (its allow lists apply).
func (s *Store) ValidateWithSecrets(ctx context.Context, paths []string) ([]Problem, int, error) {
	sc, err := s.SecretScanner()
	if err != nil {
		return nil, 0, err
	}
	return check.ValidateWithSecrets(s.Repo, paths, sc)
}

// SecretScanner returns the scanner configured for this repository.
func (s *Store) SecretScanner() (*secrets.Scanner, error) { return check.Scanner(s.Config.Secrets) }

// FormatResult is what Format did; see check.FormatResult.
type FormatResult = check.FormatResult

// Format puts the given memory files (work-tree relative) in canonical
// form, or with write off reports which would change; see check.Format.
func (s *Store) Format(paths []string, write bool) FormatResult {
	return check.Format(s.Repo, paths, write)
}
