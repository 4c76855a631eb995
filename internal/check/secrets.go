package check

import (
	"fmt"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/secrets"
)

// Scanner returns the secret scanner with the repository's allow lists
// (config secrets:). A bad allow pattern is an error naming the config
// file, since that is where it must be fixed.
func Scanner(c config.SecretsConfig) (*secrets.Scanner, error) {
	sc, err := secrets.NewScanner(secrets.Allow{Patterns: c.Allow, Fingerprints: c.Fingerprints, Paths: c.Paths})
	if err != nil {
		return nil, fmt.Errorf("%s/%s: secrets: %w", gitstore.Dir, gitstore.ConfigFile, err)
	}
	return sc, nil
}

// ScanFile scans a memory file for secrets: its content, and its path,
// which is committed as well (a finding in the path has line 0).
func ScanFile(sc *secrets.Scanner, path string, content []byte) []secrets.Finding {
	out := sc.Scan(path, content)
	for _, f := range sc.Scan(path, []byte(path)) {
		f.Line, f.Column = 0, 0
		f.Description += " in the file name"
		out = append(out, f)
	}
	return out
}
