package frontmatter

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the output the tests get")

// deriveBodies are the bodies whose derived title and summary must not
// change: a memory saved without a title keeps the one it was given. They
// also seed FuzzDerive.
var deriveBodies = []struct{ name, body string }{
	{"a heading and a paragraph", "# Pool DB connections\n\nWe use pgxpool with **20** connections.\n"},
	{"paragraphs only", "Use port 0 in tests. Fixed ports collide in CI.\n\nSecond paragraph.\n"},
	{"a heading after paragraphs", "First. More.\n\nSecond.\n\n# Late title\n\nThird.\n"},
	{"a setext heading", "Title here\n==========\n\nSummary *text*.\n"},
	{"a heading inside a list", "- # Listed title\n- item\n\nParagraph.\n"},
	{"a heading inside a block quote", "> ## Quoted\n> text\n"},
	{"tight list items are not paragraphs", "- first item\n- second item\n\nThe paragraph.\n"},
	{"loose list items are paragraphs", "- first item\n\n- second item\n"},
	{"code and HTML are skipped", "```\n# no\n```\n\n    code\n\n<div>\n# no\n</div>\n\nText.\n"},
	{"an empty heading leaves the title to the next", "#\n\n## Real\n\nBody.\n"},
	{"link definitions are not paragraphs", "[a]: /url\n\nSee [a] and [b](/b).\n"},
	{"inline markup is dropped", "`code` <b>raw</b> <http://x.y> ![img](/i) \\*esc\\* &amp;\n"},
	{"a long title is cut", "# " + strings.Repeat("word ", 30) + "\n\n" + strings.Repeat("more text ", 40) + "\n"},
	{"a title ending the paragraph", "Only one sentence\n"},
}

// TestDeriveStaysAsSaved compares Derive with testdata/derive.golden,
// written when these bodies were checked against goldmark's reading.
func TestDeriveStaysAsSaved(t *testing.T) {
	var got strings.Builder
	for _, tt := range deriveBodies {
		title, sum := Derive([]byte(tt.body))
		fmt.Fprintf(&got, "%s: %q %q\n", tt.name, title, sum)
	}
	golden := filepath.Join("testdata", "derive.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("Derive changed:\n got:\n%s\nwant:\n%s", got.String(), want)
	}
}

// FuzzDerive: any body gives a title and summary within their lengths,
// in valid UTF-8 where the body is, without a panic.
func FuzzDerive(f *testing.F) {
	for _, tt := range deriveBodies {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		title, sum := Derive(body)
		if n := utf8.RuneCountInString(title); n > 80 {
			t.Errorf("title of %d runes", n)
		}
		if n := utf8.RuneCountInString(sum); n > 200 {
			t.Errorf("summary of %d runes", n)
		}
		if utf8.Valid(body) && (!utf8.ValidString(title) || !utf8.ValidString(sum)) {
			t.Errorf("invalid UTF-8 out of a valid body: %q %q", title, sum)
		}
	})
}
