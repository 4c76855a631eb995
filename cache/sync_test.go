package cache

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
)

func TestDiffStat(t *testing.T) {
	known := map[string]pathRow{
		"same.md":  {size: 10, mtime: 100, ino: 1, oid: "a"},
		"grew.md":  {size: 10, mtime: 100, ino: 2, oid: "b"},
		"racy.md":  {size: 10, mtime: 0, ino: 3, oid: "c"}, // racily clean when recorded
		"moved.md": {size: 10, mtime: 100, ino: 4, oid: "d"},
		"gone.md":  {size: 10, mtime: 100, ino: 5, oid: "e"},
		"other.md": {size: 10, mtime: 100, ino: 6, oid: "f"},
	}
	entries := []FileEntry{
		{Path: "same.md", Size: 10, Changed: 100, Ino: 1},
		{Path: "grew.md", Size: 11, Changed: 100, Ino: 2},
		{Path: "racy.md", Size: 10, Changed: 0, Ino: 3},
		{Path: "moved.md", Size: 10, Changed: 100, Ino: 40},
		{Path: "new.md", Size: 1, Changed: 100, Ino: 7},
	}
	paths := func(es []FileEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Path)
		}
		return out
	}
	tests := []struct {
		name        string
		only        map[string]bool
		reported    bool
		wantStale   []string
		wantRemoved []string
	}{
		{"a full sync reads what changed stat and removes what is gone", nil, false,
			[]string{"grew.md", "racy.md", "moved.md", "new.md"}, []string{"gone.md", "other.md"}},
		{"a sync of some paths removes only among them", map[string]bool{"gone.md": true}, false,
			[]string{"grew.md", "racy.md", "moved.md", "new.md"}, []string{"gone.md"}},
		{"paths a watcher saw written are read whatever their stat", map[string]bool{"same.md": true, "gone.md": true}, true,
			[]string{"same.md", "grew.md", "racy.md", "moved.md", "new.md"}, []string{"gone.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stale, removed := diffStat(entries, known, tt.only, tt.reported, 0)
			if got := paths(stale); !slices.Equal(got, tt.wantStale) {
				t.Errorf("stale %q, want %q", got, tt.wantStale)
			}
			if !slices.Equal(removed, tt.wantRemoved) {
				t.Errorf("removed %q, want %q", removed, tt.wantRemoved)
			}
		})
	}
}

func TestBatchAnalyzed(t *testing.T) {
	run := func(files []analyzedFile) ([]analyzedBatch, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		in := make(chan analyzedFile, len(files))
		for _, f := range files {
			in <- f
		}
		close(in)
		out := make(chan analyzedBatch, len(files)+1)
		err := batchAnalyzed(ctx, cancel, in, out)
		close(out)
		var bs []analyzedBatch
		for b := range out {
			bs = append(bs, b)
		}
		return bs, err
	}
	file := func(i int) analyzedFile {
		oid := "oid" + strconv.Itoa(i)
		return analyzedFile{change: change{e: FileEntry{Path: oid + ".md"}, oid: oid}, analysis: &Analysis{}}
	}

	t.Run("files are grouped in batches of syncBatch", func(t *testing.T) {
		var files []analyzedFile
		for i := range syncBatch + 3 {
			files = append(files, file(i))
		}
		files = append(files, analyzedFile{change: change{e: FileEntry{Path: "vanished.md"}}}) // no oid: gone while read
		bs, err := run(files)
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) != 2 || bs[0].stale != syncBatch || bs[1].stale != 4 || len(bs[1].changes) != 3 || len(bs[1].blobs) != 3 {
			t.Fatalf("batches %d (first %d stale, last %d stale, %d changes), want %d then 4 stale with 3 changes",
				len(bs), bs[0].stale, bs[len(bs)-1].stale, len(bs[len(bs)-1].changes), syncBatch)
		}
	})
	t.Run("a batch ends once it holds syncBatchBytes of files", func(t *testing.T) {
		big := func(i int) analyzedFile {
			f := file(i)
			f.change.e.Size = syncBatchBytes / 2
			return f
		}
		bs, err := run([]analyzedFile{big(1), big(2), big(3)})
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) != 2 || bs[0].stale != 2 || bs[1].stale != 1 {
			t.Fatalf("%d batches, want 2 of 2 and 1 files", len(bs))
		}
	})
	t.Run("content met twice is stored once, with the first file in order", func(t *testing.T) {
		a, b := file(1), file(1)
		b.change.e.Path = "copy.md"
		bs, err := run([]analyzedFile{a, b, file(2)})
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) != 1 || len(bs[0].changes) != 3 || len(bs[0].blobs) != 2 || bs[0].blobs[0].oid != "oid1" || bs[0].blobs[1].oid != "oid2" {
			t.Fatalf("batches %+v, want one with 3 changes and the blobs oid1, oid2 in order", bs)
		}
	})
	t.Run("an analysis error stops the batches and is returned", func(t *testing.T) {
		boom := errors.New("boom")
		bs, err := run([]analyzedFile{file(1), {err: boom}, file(2)})
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want boom", err)
		}
		if len(bs) != 0 {
			t.Errorf("%d batches written after an error, want none", len(bs))
		}
	})
}
