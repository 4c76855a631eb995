package cache

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

// TestLogOutlivesTheProcessThatWroteIt checks the cache's write path
// spends no fsync a command does not need: closing does not checkpoint,
// so the write-ahead log stays for the next opener (which then neither
// recreates it nor checkpoints at exit), every write is still seen after
// a reopen, also read-only, and Remove takes the log with the database.
func TestLogOutlivesTheProcessThatWroteIt(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := Open(ctx, dir, embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetMeta(ctx, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	wal := filepath.Join(dir, DBFile+"-wal")
	if fi, err := os.Stat(wal); err != nil || fi.Size() == 0 {
		t.Fatalf("the log was checkpointed away at close (%v): a checkpoint costs two fsyncs per command", err)
	}
	tests := []struct {
		name string
		open func() (*Cache, error)
	}{
		{"read-write", func() (*Cache, error) { return Open(ctx, dir, embed.NewBuiltin()) }},
		{"read-only", func() (*Cache, error) { return openReadOnly(ctx, dir, embed.NewBuiltin()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" sees the logged write", func(t *testing.T) {
			c, err := tt.open()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := c.Meta(ctx, "k"); got != "v1" {
				t.Errorf("meta k = %q, want v1", got)
			}
		})
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wal); !os.IsNotExist(err) {
		t.Errorf("Remove left the log: %v", err)
	}
}
