package contextfs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/testgit"
)

// A change of limits.max_file_bytes changes which memories the index
// holds, as a rebuild would, though no memory file changed: the stat
// comparison used to keep an indexed file that the new limit leaves out
// until reindex.
func TestALimitChangeIndexesAsARebuildWould(t *testing.T) {
	ctx := context.Background()
	dir := testgit.Init(t)
	open := func() *contextfs.Store {
		t.Helper()
		s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Notices: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open()
	if _, err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "Short note about the tapir."}); err != nil {
		t.Fatal(err)
	}
	big, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "Long note about the okapi. " + strings.Repeat("More words. ", 300)})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(s *contextfs.Store) []string {
		t.Helper()
		es, err := s.List(ctx, contextfs.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	if got := ids(s); len(got) != 2 {
		t.Fatalf("listed %v, want both memories", got)
	}
	cfg := filepath.Join(dir, ".contextfs", "config.yaml")
	setLimit := func(line string) {
		t.Helper()
		raw, _ := os.ReadFile(cfg)
		if err := os.WriteFile(cfg, append(raw, []byte("\nlimits:\n  max_file_bytes: "+line+"\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig, _ := os.ReadFile(cfg)
	setLimit("2048")
	if got := ids(open()); len(got) != 1 || got[0] == big.Memory.ID {
		t.Fatalf("with a 2 KB limit listed %v, want only the short memory (the long one is %s)", got, big.Memory.ID)
	}
	if err := os.WriteFile(cfg, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ids(open()); len(got) != 2 {
		t.Fatalf("with the default limit again listed %v, want both memories", got)
	}
}
