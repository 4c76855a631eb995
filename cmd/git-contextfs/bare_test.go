package main

import (
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// Commands that can run outside a repository (list, search: the user
// store) name a bare repository as such when they find no work tree.
func TestCommandsNameABareRepository(t *testing.T) {
	bare := t.TempDir() + "/b.git"
	testgit.Run(t, t.TempDir(), "init", "-q", "--bare", bare)
	for _, args := range [][]string{{"list"}, {"search", "x"}, {"status"}} {
		r := cli(t, bare, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "is a bare repository") || strings.Contains(r.stderr, "not a git repository") {
			t.Errorf("%v in a bare repository: exit %d %q", args, r.code, r.stderr)
		}
	}
}
