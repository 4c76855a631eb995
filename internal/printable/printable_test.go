package printable_test

import (
	"testing"

	"github.com/contextfs/contextfs/internal/printable"
)

func TestPathQuotesOnlyWhatWouldNotPrintAsItself(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"a plain name stays as it is", ".contextfs/memories/use-pgx-k3x9.md", ".contextfs/memories/use-pgx-k3x9.md"},
		{"spaces and non-ASCII letters stay", "notes/café au lait.md", "notes/café au lait.md"},
		{"a backslash inside stays", `a\b.md`, `a\b.md`},
		{"an escape sequence is quoted", "bad\x1b[31mred.md", `"bad\x1b[31mred.md"`},
		{"a newline is quoted", "two\nlines.md", `"two\nlines.md"`},
		{"a tab is quoted", "a\tb.md", `"a\tb.md"`},
		{"DEL is quoted", "a\x7fb.md", `"a\x7fb.md"`},
		{"a C1 control is quoted", "a\u009bb.md", `"a\u009bb.md"`},
		{"a bidirectional override is quoted", "a\u202eb.md", `"a\u202eb.md"`},
		{"invalid UTF-8 is quoted", "a\xffb.md", `"a\xffb.md"`},
		{"a leading double quote is quoted", `"x".md`, `"\"x\".md"`},
		{"the empty name stays empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := printable.Path(c.in); got != c.want {
				t.Errorf("Path(%q) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}
