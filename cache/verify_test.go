package cache

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardTrustsOwnWritesAndChecksOthers: after the cache's own syncs
// the files are trusted (Guard costs stats); a change made through
// another connection, as another program would, is checked in full and
// damage is reported as corrupt.
func TestGuardTrustsOwnWritesAndChecksOthers(t *testing.T) {
	f := newFixture(t)
	corpus(f, rand.New(rand.NewPCG(3, 3)), 50, 0)
	f.sync()
	f.write("extra.md", "fact\nanother note")
	f.sync()
	if !f.c.trusted() {
		t.Fatal("the cache's own sync left it untrusted")
	}
	db, err := sql.Open("sqlite3", filepath.Join(f.c.Dir(), DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO fts_1(fts_1, rowid, title, tags, body) SELECT 'delete', rowid, title, tags, body FROM docs WHERE mid='extra'`); err != nil {
		t.Fatal(err)
	}
	if f.c.trusted() {
		t.Fatal("a change by another connection left the cache trusted")
	}
	err = f.c.Guard(context.Background())
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "full-text") {
		t.Fatalf("Guard after a deleted full-text row: %v", err)
	}
}

// Every write of the cache's own leaves it trusted, so that the next
// command (or the next step of the same one) does not check the whole
// cache: SetMetaAt, which stores the watcher's token after each cold
// command, once left it untrusted, and every cold save with a watcher
// running then checked all of it (400 ms at 10K memories).
func TestEveryOwnWriteLeavesTheCacheTrusted(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		write func(c *Cache) error
	}{
		{"SetMeta", func(c *Cache) error { return c.SetMeta(ctx, "k", "v1") }},
		{"SetMetaAt", func(c *Cache) error { return c.SetMetaAt(ctx, c.ID(ctx), "watch", "token-2") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("a.md", "fact\na note")
			f.sync()
			if !f.c.trusted() {
				t.Fatal("the sync left the cache untrusted")
			}
			if err := tt.write(f.c); err != nil {
				t.Fatal(err)
			}
			if !f.c.trusted() {
				t.Fatalf("%s left the cache untrusted: the next sync checks all of it", tt.name)
			}
		})
	}
}

func verifyFixture(b *testing.B, n int) *fixture {
	f := newFixture(b)
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega pool cache retry upload token shard lock queue")
	for i := range n {
		var s strings.Builder
		for range 80 + r.IntN(120) { // about 700 bytes, a typical memory
			s.WriteString(words[r.IntN(len(words))] + fmt.Sprint(r.IntN(50)) + " ")
		}
		f.write(fmt.Sprintf("m%05d.md", i), []string{"fact", "decision", "error"}[r.IntN(3)]+"\n"+s.String())
	}
	f.sync()
	return f
}

// BenchmarkVerify is the full check (doctor, and Guard after a change by
// another program) at 1,000 and 10,000 memories of about 700 bytes.
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := verifyFixture(b, n)
			ctx := context.Background()
			for b.Loop() {
				if err := f.c.Verify(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifyParts times each part of Verify alone.
func BenchmarkVerifyParts(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		f := verifyFixture(b, n)
		ctx := context.Background()
		for name, q := range map[string]string{
			"quick_check":     `PRAGMA quick_check`,
			"integrity_check": `PRAGMA integrity_check(20)`,
			"fts5":            `INSERT INTO fts_1(fts_1, rank) VALUES ('integrity-check', 1)`,
		} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := f.c.db.ExecContext(ctx, q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("checksums/%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := f.c.verifyRows(ctx, f.c.db); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGuardTrusted is what every sync (so every search) adds when
// the cache is as this program left it.
func BenchmarkGuardTrusted(b *testing.B) {
	f := verifyFixture(b, 100)
	ctx := context.Background()
	if !f.c.trusted() {
		b.Fatal("not trusted")
	}
	for b.Loop() {
		if err := f.c.Guard(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
