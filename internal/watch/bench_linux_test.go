package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkQuery measures a query's round trip, client to daemon and
// back, with nothing and with 100 paths to report.
func BenchmarkQuery(b *testing.B) {
	for _, n := range []int{0, 100} {
		b.Run(fmt.Sprintf("changes=%d", n), func(b *testing.B) {
			d := startDaemon(b, ServeOptions{Logf: func(string, ...any) {}})
			tok := d.token(b)
			for i := range n {
				writeFile(b, filepath.Join(d.mem, "memories", fmt.Sprintf("%d.md", i)), "x")
			}
			// Let the daemon take the events in, so that the loop
			// measures answering, not the first read of the events.
			if c := d.query(b, tok); len(c.Paths) != n {
				b.Fatalf("%d paths reported, want %d", len(c.Paths), n)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				c, err := Query(ctx, d.socket, tok)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.Paths) != n {
					b.Fatalf("%d paths reported, want %d", len(c.Paths), n)
				}
			}
		})
	}
}
