package cache

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

// analyzeStatus is analyze with a status and superseded IDs on the first
// line: "TYPE [status=S] [supersedes=ID,ID]".
func analyzeStatus(path string, raw []byte) Analysis {
	head, body, _ := strings.Cut(string(raw), "\n")
	fields := strings.Fields(head)
	d := Doc{MID: strings.TrimSuffix(path, ".md"), Type: fields[0], Title: path, Body: body}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "status":
			d.Status = v
		case "supersedes":
			d.Supersedes = strings.Split(v, ",")
		}
	}
	return Analysis{Docs: []Doc{d}}
}

// A filter by type alone is answered from rows kept from one generation
// to the next by the change log (Cache.filtered). After every kind of
// change, in one long-lived cache, they must be the rows the filter's
// query gives afresh, and the filtered rankings the brute-force ones.
func TestTypeFilterFollowsEveryChange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	types := []string{"fact", "decision", "error"}
	write := func(i int, head string) {
		words := []string{"pool", "retry", "cache", "token", "shard", "queue", "lock", "upload"}
		var b strings.Builder
		for j := 0; j < 4+r.IntN(8); j++ {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		f.write(fmt.Sprintf("m%04d.md", i), head+"\n"+b.String())
	}
	sync := func() {
		t.Helper()
		if _, err := f.c.SyncFiles(ctx, KindMemory, f.root, f.entries(), analyzeStatus); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i++ {
		write(i, types[i%3])
	}
	sync()
	emb := embed.NewBuiltin()
	qv, _ := emb.Embed(ctx, []string{"retry the upload pool"})
	unit := slices.Clone(qv[0])
	normalize(unit)
	filters := map[string]Filter{
		"decision":               {Types: []string{"decision"}},
		"fact or error":          {Types: []string{"error", "fact", "error"}},
		"decision, hidden too":   {Types: []string{"decision"}, All: true},
		"an unknown type":        {Types: []string{"nope"}},
		"decision, by filter":    {Types: []string{"decision"}, Tags: nil},
		"every type, explicitly": {Types: types},
	}
	check := func(step string) {
		t.Helper()
		ds, err := f.c.docs(ctx, KindMemory)
		if err != nil {
			t.Fatal(err)
		}
		for name, flt := range filters {
			got, err := f.c.filtered(ctx, ds, flt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := f.c.candidates(ctx, KindMemory, flt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %s: kept rows differ from the query's:\nkept  %v\nquery %v", step, name, got, want)
			}
			// The filtered semantic ranking is the brute-force one over
			// those rows.
			var brute []Hit
			for _, row := range want {
				if v := ds.vector(row); v != nil {
					brute = append(brute, Hit{Row: row, Score: float64(dot(unit, v))})
				}
			}
			sortHits(brute)
			// Twice: the second scan of a type set over one base file reads
			// its vectors from a slab (slabFor), the later ones too. The
			// best 10, and the whole ranking.
			for _, k := range []int{10, 10, 1000} {
				want := brute[:min(k, len(brute))]
				hits, err := f.c.Semantic(ctx, KindMemory, qv[0], flt, k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(hits, want) {
					t.Fatalf("%s, %s, best %d: semantic %v, brute force %v", step, name, k, hits, want)
				}
			}
			// The keyword ranking with the filter the ranker applies is the
			// one with a filter applied row by row (any ID passes).
			var mids []string
			for i := 0; i < 400; i++ {
				mids = append(mids, fmt.Sprintf("m%04d", i))
			}
			rowByRow := flt
			rowByRow.MIDs = mids
			for _, q := range []string{"retry pool", "upload", "lock queue shard"} {
				a, err := f.c.Keyword(ctx, KindMemory, q, flt, 10)
				if err != nil {
					t.Fatal(err)
				}
				b, err := f.c.Keyword(ctx, KindMemory, q, rowByRow, 10)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a, b) {
					t.Fatalf("%s, %s, %q: keyword with the type filter %v, row by row %v", step, name, q, a, b)
				}
			}
		}
	}
	check("first index")
	// The filters of one type in three hold a slab now; those of more
	// than half the rows read the base in place.
	for key, tr := range f.c.typeRows {
		many := strings.Contains(key, "error")
		if got := tr.slab.Load() != nil; got == many {
			t.Errorf("type filter %q: slab %v, want %v", key, got, !many)
		}
	}
	for i := 300; i < 320; i++ {
		write(i, "decision")
	}
	sync()
	check("decisions added")
	for i := 0; i < 30; i += 3 {
		os.Remove(filepath.Join(f.root, fmt.Sprintf("m%04d.md", i)))
	}
	sync()
	check("memories deleted")
	for i := 1; i < 30; i += 3 {
		write(i, "decision")
	}
	sync()
	check("types changed")
	for i := 301; i < 306; i++ {
		write(i, "decision status=superseded")
	}
	sync()
	check("decisions marked superseded")
	write(399, "fact supersedes=m0307,m0308,m0001,m0199,m0202") // m0199, m0202: in the base
	sync()
	check("decisions superseded by a new memory")
	os.Remove(filepath.Join(f.root, "m0399.md"))
	sync()
	check("the superseding memory deleted")
	// Deleted rows give their rowids to new documents of another type.
	for i := 310; i < 320; i++ {
		os.Remove(filepath.Join(f.root, fmt.Sprintf("m%04d.md", i)))
	}
	sync()
	for i := 320; i < 330; i++ {
		write(i, "error")
	}
	sync()
	check("rowids reused")
	// Deleted decisions give their rowids to new decisions: the base's
	// dead rows, in the slab, must not be read for the new ones.
	for i := 100; i < 130; i += 3 {
		os.Remove(filepath.Join(f.root, fmt.Sprintf("m%04d.md", i)))
	}
	sync()
	for i := 330; i < 340; i++ {
		write(i, "decision")
	}
	sync()
	check("rowids reused by the same type")
}

func TestParseRowList(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []int64
		wantErr bool
	}{
		{"", nil, false},
		{"7", []int64{7}, false},
		{"3,1,2", []int64{3, 1, 2}, false},
		{"-4,9223372036854775807", []int64{-4, 9223372036854775807}, false},
		{"1,,2", nil, true},
		{"1,", nil, true},
		{"1,x", nil, true},
		{"12345678901234567890", nil, true},
		{"--1", nil, true},
	} {
		got, err := parseRowList(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseRowList(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
