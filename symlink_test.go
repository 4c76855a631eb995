package contextfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

// TestNothingGoesThroughASymlinkOutOfTheRepository: a .contextfs, or a
// folder in it, that is a symbolic link could lead anywhere; every read and
// write of memories refuses it, naming the link, and nothing outside the
// repository is written, read or removed.
func TestNothingGoesThroughASymlinkOutOfTheRepository(t *testing.T) {
	for _, link := range []string{".contextfs", ".contextfs/memories"} {
		t.Run(link, func(t *testing.T) {
			dir := testgit.Init(t)
			outside := t.TempDir()
			// A memory outside, where the link leads.
			victim := filepath.Join(outside, "victim-abcd1234.md")
			if err := os.WriteFile(victim, []byte("---\nid: abcd1234\ntype: fact\ntitle: Outside\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nOutside.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
			if err != nil {
				if !errors.Is(err, gitstore.ErrSymlink) {
					t.Fatalf("open: %v; want ErrSymlink", err)
				}
				return // refused at once (the settings are read through it)
			}
			defer s.Close()
			ops := map[string]func() error{
				"save": func() error {
					_, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "Written through a link."})
					return err
				},
				"list": func() error {
					// A linked folder inside .contextfs is skipped as any link
					// is (validate names it); .contextfs itself is refused.
					es, err := s.List(ctx, contextfs.ListOptions{})
					if err == nil && len(es) > 0 {
						return nil
					}
					return errors.New("nothing listed from outside")
				},
				"recall": func() error { _, err := s.Resolve(ctx, "abcd1234"); return err },
				"delete": func() error { _, err := s.Delete(ctx, "abcd1234"); return err },
			}
			for name, op := range ops {
				if err := op(); err == nil {
					t.Errorf("%s through the link succeeded", name)
				}
			}
			es, err := os.ReadDir(outside)
			if err != nil || len(es) != 1 {
				t.Errorf("the folder outside holds %d entries (%v), want the one it had", len(es), err)
			}
			if _, err := os.Stat(victim); err != nil {
				t.Errorf("the memory outside is gone: %v", err)
			}
		})
	}
}
