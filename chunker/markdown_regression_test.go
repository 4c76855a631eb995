package chunker

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the output the tests get")

// markdownDocs are the Markdown cases whose chunks must not change: a file
// indexed before keeps its chunk IDs. They also seed FuzzMarkdownChunks.
var markdownDocs = []struct{ name, src string }{
	{"headings nest into sections", "# A\ntext\n## B\nmore\n### C\n## D\n# E\n"},
	{"text before the first heading is a block", "intro\n\n# A\nbody\n"},
	{"front matter is not a setext heading", "---\ntitle: x\n---\n# A\nbody\n"},
	{"front matter ended by dots", "---\na: 1\n...\nb\n---\n"},
	{"setext headings start sections", "Title\n=====\n\ntext\n\nSub\n---\nmore\n"},
	{"a hash in fenced code is not a heading", "# A\n```\n# not\n```\n## B\n"},
	{"a hash in indented code is not a heading", "# A\n\n    # not\n\n## B\n"},
	{"a hash in an HTML block is not a heading", "<div>\n# not\n</div>\n\n# A\n"},
	{"headings in quotes and lists are not sections", "> # not\n\n- # not\n\n# A\n"},
	{"heading text drops its markup", "# The `Chunk` *API* [link](/x) <b>tag</b>\n"},
	{"a heading over two lines", "one\ntwo\n===\n"},
	{"link definitions are blocks of their own", "# A\n[a]: /a\n[b]: /b\ntext [a]\n"},
	{"CRLF line ends", "# A\r\ntext\r\n\r\n## B\r\nmore\r\n"},
	{"no final newline", "# A\ntext"},
	{"blocks of a long section", "# A\n\n" + strings.Repeat("para one two three four five\n\n- item\n- item\n\n    code\n\n", 20)},
	{"tabs and lazy lines", "-\tone\ntwo\n\n>\tquote\nlazy\n# A\n"},
}

// TestMarkdownChunksStayAsIndexed compares the Markdown chunking with
// testdata/markdown_chunks.golden, written when the cases were checked
// against goldmark's reading (they were, by differential tests and fuzzing,
// while a block parser of our own stood in for goldmark): a change of
// chunking changes the chunks of every Markdown file already indexed.
func TestMarkdownChunksStayAsIndexed(t *testing.T) {
	_, guide := readFixture(t, "guide.md")
	docs := append([]struct{ name, src string }{{"guide.md", string(guide)}}, markdownDocs...)
	var got strings.Builder
	for _, max := range []int{0, 60, 200} {
		c := New(Options{MaxChunkBytes: max})
		for _, tt := range docs {
			fmt.Fprintf(&got, "%s/max=%d: %v\n", tt.name, max, c.markdown(newLines([]byte(tt.src))))
		}
		c.Close()
	}
	golden := filepath.Join("testdata", "markdown_chunks.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, %s has %d", len(gl), golden, len(wl))
	}
	for i := range gl {
		if gl[i] != wl[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
		}
	}
}
