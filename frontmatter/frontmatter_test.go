package frontmatter

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantKeys []string
		wantBody string
		wantLine int // error line, 0 = no error
		hasFront bool
	}{
		{"frontmatter and body are split", "---\nid: a\ntype: fact\n---\nHello\n", []string{"id", "type"}, "Hello\n", 0, true},
		{"a file without frontmatter is all body", "# Title\ntext\n", nil, "# Title\ntext\n", 0, false},
		{"an empty block is an empty mapping", "---\n---\nbody", nil, "body", 0, true},
		{"CRLF delimiters are accepted", "---\r\nid: a\r\n---\r\nbody\r\n", []string{"id"}, "body\r\n", 0, true},
		{"a byte-order mark is tolerated", "\xef\xbb\xbf---\nid: a\n---\n", []string{"id"}, "", 0, true},
		{"... closes the block too", "---\nid: a\n...\nbody", []string{"id"}, "body", 0, true},
		{"broken YAML names the file line", "---\nid: a\nb: c\nd: : e\n---\n", nil, "", 4, true},
		{"an unclosed block is an error on line 1", "---\nid: a\n", nil, "", 1, true},
		{"a list at the top is not frontmatter", "---\n- a\n- b\n---\n", nil, "", 2, true},
		{"a repeated key names its second line", "---\nid: a\ntype: x\nid: b\n---\n", nil, "", 4, true},
		// yaml.v3 prints its parser's lines 0-based and its scanner's
		// 1-based: both must name the file's line.
		{"an unclosed flow list names its line", "---\nid: a\ntags: [a, b\nc: d\n---\n", nil, "", 3, true},
		{"an unclosed flow mapping names its line", "---\nid: a\nx: {a: 1, b\nc: d\n---\n", nil, "", 3, true},
		{"a stray bracket names its line", "---\nid: a\ntags: [a, b]]\n---\n", nil, "", 3, true},
		{"a mapping indented less names its line", "---\nid: a\ndata:\n  a: 1\n b: 2\n---\n", nil, "", 5, true},
		{"a scanner error names its line", "---\nid: a\ntitle: \"open\nc: d\n---\n", nil, "", 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.src))
			if tt.wantLine > 0 {
				var fe *Error
				if !errors.As(err, &fe) {
					t.Fatalf("want *Error, got %v", err)
				}
				if fe.Line != tt.wantLine {
					t.Fatalf("error line = %d, want %d (%v)", fe.Line, tt.wantLine, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Keys(); strings.Join(got, ",") != strings.Join(tt.wantKeys, ",") {
				t.Errorf("keys = %v, want %v", got, tt.wantKeys)
			}
			if string(d.Body) != tt.wantBody {
				t.Errorf("body = %q, want %q", d.Body, tt.wantBody)
			}
			if d.HasFront != tt.hasFront {
				t.Errorf("HasFront = %v", d.HasFront)
			}
		})
	}
}

func TestFormatIsStable(t *testing.T) {
	srcs := []string{
		"---\nid: a\n# a comment about tags\ntags:\n  - x\n  - y\nextra: {b: 1, a: 2}\n---\nbody *kept*  \n\n\n",
		"---\r\nid: a\r\ntitle: \"quoted: colon\"\r\n---\r\nbody\r\n",
		"---\r\nid: a\r\n# a comment in a CRLF file\r\ntags:\r\n  - x\r\n---\r\nbody\r\n",
		"---\nid: a\nnote: |\n  multi\n  line\n---\n",
		"---\n---\n",
	}
	for _, src := range srcs {
		d, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		once, err := d.Format()
		if err != nil {
			t.Fatal(err)
		}
		d2, err := Parse(once)
		if err != nil {
			t.Fatalf("reparse %q: %v", once, err)
		}
		twice, _ := d2.Format()
		if !bytes.Equal(once, twice) {
			t.Errorf("format not stable:\n%q\n%q", once, twice)
		}
		if !bytes.HasSuffix(once, d.Body) {
			t.Errorf("body changed: %q", once)
		}
		if strings.Contains(src, "# a comment about tags") && !strings.Contains(string(once), "# a comment about tags") {
			t.Errorf("comment lost: %s", once)
		}
	}
}

func TestCanonicalFilesRoundTripByteForByte(t *testing.T) {
	for _, src := range []string{
		"---\nid: a\n# keep me\ntags:\n  - x\n---\nbody\n",
		"---\r\nid: a\r\n# keep me\r\ntags:\r\n  - x\r\n---\r\nbody\r\n",
	} {
		d, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Format()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != src {
			t.Errorf("round trip changed bytes:\n%q\n%q", src, out)
		}
	}
}

func TestReorderAndSet(t *testing.T) {
	d, err := Parse([]byte("---\nzeta: 1\ntitle: T\nid: a\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	d.Set("tags", Strings([]string{"b", "a"}))
	d.Reorder([]string{"id", "title", "tags"})
	out, _ := d.Format()
	want := "---\nid: a\ntitle: T\ntags:\n  - b\n  - a\nzeta: 1\n---\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if !d.Delete("zeta") || d.Delete("zeta") {
		t.Error("Delete should report presence once")
	}
}

func TestDerive(t *testing.T) {
	tests := []struct {
		name, body, title, summary string
	}{
		{"the first heading is the title", "# Pool DB connections\n\nWe use pgxpool with **20** connections.\n", "Pool DB connections", "We use pgxpool with 20 connections."},
		{"without a heading the first sentence is the title", "Use port 0 in tests. Fixed ports collide in CI.\n", "Use port 0 in tests.", "Use port 0 in tests. Fixed ports collide in CI."},
		{"a path's dots do not end the first sentence", "go test ./... failed with exit 2. The TOML used single quotes.\n", "go test ./... failed with exit 2.", "go test ./... failed with exit 2. The TOML used single quotes."},
		{"an abbreviation does not end the first sentence", "Pool connections, e.g. with pgxpool. Twenty of them.\n", "Pool connections, e.g. with pgxpool.", "Pool connections, e.g. with pgxpool. Twenty of them."},
		{"code blocks are not summaries", "# T\n\n```go\nx := 1\n```\n\nReal text.\n", "T", "Real text."},
		{"an empty body gives nothing", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, sum := Derive([]byte(tt.body))
			if title != tt.title || sum != tt.summary {
				t.Errorf("Derive = %q, %q; want %q, %q", title, sum, tt.title, tt.summary)
			}
		})
	}
	if got := Cut(strings.Repeat("word ", 40), 30); len([]rune(got)) > 30 || !strings.HasSuffix(got, "…") {
		t.Errorf("Cut = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"---\nid: a\n---\nbody", "---\n[\n---\n", "no front", "---\r\na: b\r\n---\r\n", "---\n- x\n---\n", "---\na: &x 1\nb: *x\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse(src)
		if err != nil {
			return
		}
		out, err := d.Format()
		if err != nil {
			return
		}
		d2, err := Parse(out)
		if err != nil {
			t.Fatalf("formatted output does not parse: %v\n%q\n%q", err, src, out)
		}
		if !bytes.Equal(d2.Body, d.Body) {
			t.Fatalf("body changed: %q -> %q", d.Body, d2.Body)
		}
		out2, err := d2.Format()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("not idempotent:\n%q\n%q", out, out2)
		}
	})
}
