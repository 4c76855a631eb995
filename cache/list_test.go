package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestListRowsSkipsOldVersionsAndCountsOnlyCurrentOnes edits files so that
// the docs table holds versions no current file has (docs keeps them),
// and checks that a listing shows only current documents, newest first,
// that its limit counts those alone, and that the path shown is the
// current file's.
func TestListRowsSkipsOldVersionsAndCountsOnlyCurrentOnes(t *testing.T) {
	f := newFixture(t)
	for i := range 6 {
		f.write(fmt.Sprintf("m%d.md", i), fmt.Sprintf("fact\nfirst version of %d", i))
	}
	f.sync()
	for _, i := range []int{1, 3, 5} {
		f.write(fmt.Sprintf("m%d.md", i), fmt.Sprintf("decision\nsecond version of %d, longer", i))
	}
	f.sync()
	ctx := context.Background()
	var old int
	if err := f.c.db.QueryRow(`SELECT COUNT(*) FROM docs d WHERE NOT EXISTS (SELECT 1 FROM paths p WHERE p.oid=d.src)`).Scan(&old); err != nil || old == 0 {
		t.Fatalf("no old versions kept to skip (%d, %v): the test tests nothing", old, err)
	}
	for _, limit := range []int{0, 1, 4, 6, 10} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var got []string
			for r, err := range f.c.ListRows(ctx, KindMemory, Filter{}, limit) {
				if err != nil {
					t.Fatal(err)
				}
				if r.Path != r.MID+".md" {
					t.Errorf("%s listed with path %q", r.MID, r.Path)
				}
				if want := map[bool]string{true: "decision", false: "fact"}[strings.Contains("m1 m3 m5", r.MID)]; r.Type != want {
					t.Errorf("%s listed as %s, want its current version's %s", r.MID, r.Type, want)
				}
				got = append(got, r.MID)
			}
			want := min(6, limit)
			if limit == 0 {
				want = 6
			}
			if len(got) != want || len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
				t.Fatalf("listed %v, want %d distinct current memories", got, want)
			}
		})
	}
}

// TestListRowsReadsOnlyTheListingIndex keeps list --all from reading the
// docs table (each row beside its body): the query must be answered from
// the covering index docs_mlist and the paths index.
func TestListRowsReadsOnlyTheListingIndex(t *testing.T) {
	f := newFixture(t)
	f.write("a.md", "fact\nbody")
	f.sync()
	for _, flt := range []Filter{{}, {All: true}, {Types: []string{"fact"}, Tags: []string{"db"}}} {
		cond, args := flt.where(KindMemory, false)
		rs, err := f.c.db.Query(`EXPLAIN QUERY PLAN SELECT `+listCols+` FROM docs d WHERE d.kind=1 AND `+cond+` ORDER BY d.updated DESC, d.mid DESC`, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rs.Next() {
			var id, parent, unused int
			var detail string
			rs.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
		}
		rs.Close()
		if p := strings.Join(plan, "\n"); !strings.Contains(p, "COVERING INDEX docs_mlist") || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("filter %+v: the listing reads more than its index:\n%s", flt, p)
		}
	}
}
