package cache

import (
	"strings"

	"github.com/contextfs/contextfs/gitstore"
)

// isVectorScratch reports whether name is a rebuild's vector scratch
// file (rebuildStreaming): docs-KIND.vectors-RANDOM.
func isVectorScratch(name string) bool {
	return strings.HasPrefix(name, "docs-") && strings.Contains(name, ".vectors-")
}

// sweepScratch removes the vector scratch files in the cache folder dir
// that killed rebuilds left (held by no live process; see
// gitstore.RemoveStaleScratch). Open runs it: a scratch file holds every
// vector of a kind, a gigabyte and more at a million documents, and
// nothing else would ever remove it.
func sweepScratch(dir string) []string {
	return gitstore.RemoveStaleScratch(dir, isVectorScratch)
}
