package contextfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// A sparse checkout that leaves .contextfs/ out: the team's config is
// tracked, only missing from the work tree. init (and doctor --fix, which
// runs it) must not write the defaults in its place, and status says why
// it sees no memories.
func TestASparseCheckoutWithoutContextfsIsNamedAndNotOverwritten(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	cfg := filepath.Join(dir, ".contextfs", "config.yaml")
	team, _ := os.ReadFile(cfg)
	team = append(team, []byte("# the team's own settings\n")...)
	if err := os.WriteFile(cfg, team, 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.WriteFile(t, dir, "src/a.go", "package a\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "team")
	testgit.Run(t, dir, "sparse-checkout", "set", "--cone", "src")
	if _, err := os.Stat(cfg); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sparse checkout kept %s (%v): the test shows nothing", cfg, err)
	}

	s, err = contextfs.Open(ctx, contextfs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var se *gitstore.SparseError
	if _, err := s.Init(ctx); !errors.As(err, &se) || !strings.Contains(err.Error(), "git sparse-checkout add .contextfs") {
		t.Fatalf("Init = %v; want a SparseError saying how to bring .contextfs in", err)
	}
	if _, err := os.Stat(cfg); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Init wrote %s in place of the team's", cfg)
	}
	if st := testgit.Run(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("the work tree changed:\n%s", st)
	}
	st, err := s.Status(ctx)
	if err != nil || !st.Sparse {
		t.Fatalf("Status = %+v, %v; want it to say .contextfs is outside the sparse checkout", st, err)
	}
}
