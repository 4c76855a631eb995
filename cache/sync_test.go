package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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
	// A listing comes sorted by path, which diffStat uses to find the
	// removed paths without a set of every path; in any other order it
	// must answer the same.
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	for _, tt := range tests {
		for _, order := range []struct {
			name    string
			entries []FileEntry
		}{{"listed in any order", entries}, {"listed sorted", sorted}} {
			t.Run(tt.name+"/"+order.name, func(t *testing.T) {
				stale, removed := diffStat(order.entries, known, tt.only, tt.reported, 0)
				got, want := paths(stale), slices.Clone(tt.wantStale)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("stale %q, want %q", got, want)
				}
				if !slices.Equal(removed, tt.wantRemoved) {
					t.Errorf("removed %q, want %q", removed, tt.wantRemoved)
				}
			})
		}
	}
}

// A reindex syncs a million files into an empty cache, and a sync of an
// unchanged large store finds every path it recorded: neither may
// allocate per file (a copy of the list as the stale files, a set of
// every path to find the removed ones), which held a reindex's memory at
// a million files. Counted in allocations at two sizes, not timed.
func TestDiffStatAllocatesNothingPerFileWhenItNeedNot(t *testing.T) {
	listing := func(n int) ([]FileEntry, map[string]pathRow) {
		es := make([]FileEntry, n)
		known := make(map[string]pathRow, n)
		for i := range es {
			es[i] = FileEntry{Path: fmt.Sprintf("m/%06d.md", i), Size: 10, Changed: 100, Ino: uint64(i + 1)}
			known[es[i].Path] = pathRow{size: 10, mtime: 100, ino: uint64(i + 1), oid: "x"}
		}
		return es, known
	}
	for _, n := range []int{1000, 20000} {
		es, known := listing(n)
		t.Run(fmt.Sprintf("a first index of %d files lists them all as stale, uncopied", n), func(t *testing.T) {
			var stale []FileEntry
			var removed []string
			allocs := testing.AllocsPerRun(5, func() { stale, removed = diffStat(es, map[string]pathRow{}, nil, false, 0) })
			if allocs != 0 || len(stale) != n || &stale[0] != &es[0] || cap(stale) != n || len(removed) != 0 {
				t.Errorf("%v allocations, %d stale (the listing itself: %v, capped: %v), %d removed; want none, %d, true, true, 0",
					allocs, len(stale), &stale[0] == &es[0], cap(stale) == n, len(removed), n)
			}
		})
		t.Run(fmt.Sprintf("an unchanged store of %d files costs no allocation", n), func(t *testing.T) {
			var stale []FileEntry
			var removed []string
			allocs := testing.AllocsPerRun(5, func() { stale, removed = diffStat(es, known, nil, false, 0) })
			if allocs != 0 || len(stale) != 0 || len(removed) != 0 {
				t.Errorf("%v allocations, %d stale, %d removed; want none", allocs, len(stale), len(removed))
			}
		})
		t.Run(fmt.Sprintf("a file gone from %d sorted files is found without a set of paths", n), func(t *testing.T) {
			gone := es[n/2].Path
			rest := slices.Delete(slices.Clone(es), n/2, n/2+1)
			var removed []string
			allocs := testing.AllocsPerRun(5, func() { _, removed = diffStat(rest, known, nil, false, 0) })
			if allocs > 4 || !slices.Equal(removed, []string{gone}) {
				t.Errorf("%v allocations, removed %q; want a few and [%s]", allocs, removed, gone)
			}
		})
	}
}

// The content a sync has sent to be stored is kept as OID bytes where
// the key is a plain OID, and as the key otherwise: each is new once.
func TestSentSetKeepsEachKeyOnce(t *testing.T) {
	sha1 := strings.Repeat("ab", 20)
	sha256 := strings.Repeat("cd", 32)
	var s sentSet
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{sha1, true}, {sha256, true}, {sha1 + ":path.go", true}, {"oid1", true},
		{sha1, false}, {sha256, false}, {sha1 + ":path.go", false}, {"oid1", false},
		{strings.Repeat("ab", 19) + "ac", true}, {strings.Repeat("zz", 20), true}, {strings.Repeat("zz", 20), false},
	} {
		if got := s.add(tt.key); got != tt.want {
			t.Errorf("add(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	if len(s.sha1) != 2 || len(s.sha256) != 1 {
		t.Errorf("%d SHA-1 and %d SHA-256 keys kept as bytes, want 2 and 1", len(s.sha1), len(s.sha256))
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
	withText := func(i, n int) analyzedFile {
		f := file(i)
		f.change.e.Size = int64(n)
		f.analysis = &Analysis{Docs: []Doc{{Body: strings.Repeat("x", n)}}}
		return f
	}
	sizes := func(bs []analyzedBatch) []int {
		var n []int
		for _, b := range bs {
			n = append(n, b.stale)
		}
		return n
	}
	t.Run("batches hold syncBatchBytes of new text, the first ones less so the writer starts early", func(t *testing.T) {
		const unit = 64 << 10
		if firstBatchBytes != 4*unit || syncBatchBytes != 64*unit {
			t.Fatalf("the test assumes firstBatchBytes %d and syncBatchBytes %d", 4*unit, 64*unit)
		}
		var files []analyzedFile
		for i := range 4 + 8 + 16 + 32 + 64 + 64 + 1 {
			files = append(files, withText(i, unit))
		}
		bs, err := run(files)
		if err != nil {
			t.Fatal(err)
		}
		// 256 KB, doubling to 4 MB, then 4 MB batches and the rest.
		if want := []int{4, 8, 16, 32, 64, 64, 1}; !slices.Equal(sizes(bs), want) {
			t.Fatalf("batches of %v files, want %v", sizes(bs), want)
		}
	})
	t.Run("files that bring no new text do not fill a batch, however large", func(t *testing.T) {
		var files []analyzedFile
		for i := range 10 {
			f := file(i)
			f.change.e.Size = 2 * syncBatchBytes // generated or binary: skipped, no documents
			f.analysis = &Analysis{Note: "skipped: generated"}
			files = append(files, f)
		}
		files = append(files, withText(10, syncBatchBytes))
		bs, err := run(files)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{11}; !slices.Equal(sizes(bs), want) {
			t.Fatalf("batches of %v files, want %v", sizes(bs), want)
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

// While the writer stores a batch it holds a processor slot, so that with
// as many workers as slots at most all but one analyse at once: the
// writer, the pipeline's serial stage, never waits behind them for a
// processor. Files are still analysed while it writes.
func TestTheWriterHasAProcessorToItself(t *testing.T) {
	f := newFixture(t)
	const files = 120
	for i := range files {
		f.write(fmt.Sprintf("f%03d.md", i), "fact\n"+strings.Repeat(fmt.Sprintf("word%d ", i), 3000))
	}
	var (
		mu               sync.Mutex
		writing          bool
		busy, busyInside int
		overlapped       int
		writes           int
	)
	slow := func(path string, raw []byte) Analysis {
		mu.Lock()
		busy++
		if writing {
			overlapped++
			busyInside = max(busyInside, busy)
		}
		mu.Unlock()
		time.Sleep(2 * time.Millisecond) // long enough for writes to meet analyses
		mu.Lock()
		busy--
		mu.Unlock()
		return analyze(path, raw)
	}
	const workers = 3
	o := SyncOptions{
		Workers:     workers,
		NewAnalyzer: func() (Analyzer, func()) { return slow, func() {} },
		writing: func(on bool) {
			mu.Lock()
			defer mu.Unlock()
			writing = on
			if on {
				writes++
				busyInside = max(busyInside, busy)
			}
		},
	}
	st, err := f.c.SyncFilesWith(context.Background(), KindMemory, f.root, f.entries(), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Analyzed != files || writes < 3 {
		t.Fatalf("analysed %d files in %d batches, want %d in several", st.Analyzed, writes, files)
	}
	if busyInside > workers-1 {
		t.Errorf("%d files analysed at once while a batch was written, want at most %d", busyInside, workers-1)
	}
	if overlapped == 0 {
		t.Errorf("no file was analysed while a batch was written: the writer no longer overlaps the workers")
	}
}

// TestFullTextIndexGrowsBySegmentsPerBatch checks that a batch of new
// documents enters the full-text index as one segment, not one per row.
// When an insert trigger wrote the full-text table, each insert into
// docs ran in a statement savepoint, at which FTS5 writes out what it
// holds: every row became a segment, and merging them took a quarter of
// a full index's CPU. The documents must still be found, and replacing
// and deleting files must leave the index in step.
func TestFullTextIndexGrowsBySegmentsPerBatch(t *testing.T) {
	f := newFixture(t)
	const files = 200
	for i := range files {
		f.write(fmt.Sprintf("f%03d.md", i), fmt.Sprintf("fact\nalpha%d beta shared words", i))
	}
	if st := f.sync(); st.Analyzed != files {
		t.Fatalf("analysed %d files, want %d", st.Analyzed, files)
	}
	var segs int
	if err := f.c.db.QueryRow(`SELECT count(DISTINCT segid) FROM fts_1_idx`).Scan(&segs); err != nil {
		t.Fatal(err)
	}
	if segs > 2 {
		t.Errorf("%d documents in one batch made %d full-text segments, want 1 or 2", files, segs)
	}
	if got := f.keyword("alpha123", Filter{}); len(got) != 1 {
		t.Errorf(`search "alpha123" = %v, want one hit`, got)
	}
	// Replace one file and delete another: search finds the new words and
	// not the old (whose documents stay cached, as content, for a switch
	// back), and the index stays consistent with docs.
	f.write("f123.md", "fact\ngamma replaced")
	if err := os.Remove(filepath.Join(f.root, "f124.md")); err != nil {
		t.Fatal(err)
	}
	f.sync()
	for q, want := range map[string]int{"alpha123": 0, "gamma": 1, "alpha124": 0, "alpha125": 1} {
		if got := f.keyword(q, Filter{}); len(got) != want {
			t.Errorf("search %q = %v, want %d hits", q, got, want)
		}
	}
	if _, err := f.c.db.Exec(`INSERT INTO fts_1(fts_1) VALUES ('integrity-check')`); err != nil {
		t.Errorf("full-text integrity check: %v", err)
	}
}

// A sync whose listing predates a file that another process wrote and
// indexed before this sync read the paths table sees the file as
// removed; recheck keeps it (reading it again when its stat changed) and
// says so, so that the listing's stat sum is not recorded.
func TestRecheckKeepsFilesTheListingMissed(t *testing.T) {
	known := map[string]pathRow{
		"same.md":    {size: 10, mtime: 100, ino: 1, oid: "a"},
		"changed.md": {size: 10, mtime: 100, ino: 2, oid: "b"},
		"gone.md":    {size: 10, mtime: 100, ino: 3, oid: "c"},
	}
	removed := []string{"changed.md", "gone.md", "same.md"}
	tests := []struct {
		name        string
		there       []FileEntry
		wantRemoved []string
		wantStale   []string
		wantRescued bool
	}{
		{"files there after all are kept, a changed one is read", []FileEntry{
			{Path: "same.md", Size: 10, Changed: 100, Ino: 1},
			{Path: "changed.md", Size: 12, Changed: 200, Ino: 20},
		}, []string{"gone.md"}, []string{"changed.md"}, true},
		{"files gone stay removed", nil, removed, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			o := SyncOptions{Recheck: func(ps []string) []FileEntry { asked = ps; return tt.there }}
			gotRemoved, stale, rescued := recheck(slices.Clone(removed), nil, known, o)
			var gotStale []string
			for _, e := range stale {
				gotStale = append(gotStale, e.Path)
			}
			if !slices.Equal(asked, removed) {
				t.Errorf("asked about %q, want %q", asked, removed)
			}
			if !slices.Equal(gotRemoved, tt.wantRemoved) || !slices.Equal(gotStale, tt.wantStale) || rescued != tt.wantRescued {
				t.Errorf("removed %q, stale %q, rescued %v; want %q, %q, %v", gotRemoved, gotStale, rescued, tt.wantRemoved, tt.wantStale, tt.wantRescued)
			}
		})
	}
}
