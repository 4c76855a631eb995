//go:build !unix

package gitstore

import "os"

// tryLock always succeeds where flock is missing: writers then rely on
// the re-read before each rewrite alone.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) {}

// flockWorks says HoldScratch's lock tells live scratch files from
// abandoned ones: not without flock, where age alone does.
const flockWorks = false
