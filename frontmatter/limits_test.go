package frontmatter

import (
	"errors"
	"testing"
)

// TestFormatRefusesNestingThatWouldBlowUp checks that a small, deeply
// nested value is refused instead of written as a file quadratic in its
// depth, and that nesting up to MaxDepth is still written.
func TestFormatRefusesNestingThatWouldBlowUp(t *testing.T) {
	nested := func(n int) any {
		var v any = 1
		for range n {
			v = []any{v}
		}
		return v
	}
	cases := []struct {
		name  string
		depth int
		fails bool
	}{
		{"nesting at the limit is written", MaxDepth - 1, false},
		{"nesting past the limit is refused", MaxDepth, true},
		{"10,000 levels are refused", 10000, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := New([]byte("body\n"))
			v, err := Value(nested(c.depth))
			if err != nil {
				t.Fatal(err)
			}
			d.Set("data", v)
			out, err := d.Format()
			if c.fails {
				if !errors.Is(err, ErrTooDeep) {
					t.Fatalf("got %d bytes, %v; want ErrTooDeep", len(out), err)
				}
				return
			}
			if err != nil || len(out) > 1<<20 {
				t.Fatalf("got %d bytes, %v", len(out), err)
			}
		})
	}
}
