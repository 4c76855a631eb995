package mdtext

import (
	"testing"

	"github.com/yuin/goldmark/ast"
)

func TestPlainIsTheTextOfTheFirstBlock(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"markup is dropped", "# The `Chunk` *API* [link](/x) <b>tag</b>\n", "The Chunk API link tag"},
		{"a soft break is a space", "one\ntwo\n", "one two"},
		{"entities and escapes stay as written", "a &amp; b \\*c\\*\n", "a &amp; b \\*c\\*"},
		{"white space is folded", "  lots   of\t space  \n", "lots of space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			doc, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			first := doc.FirstChild()
			if first == nil {
				t.Fatal("no block")
			}
			if _, ok := first.(*ast.Heading); !ok {
				if _, ok := first.(*ast.Paragraph); !ok {
					t.Fatalf("first block is %T", first)
				}
			}
			if got := Plain(first, src); got != tt.want {
				t.Errorf("Plain = %q, want %q", got, tt.want)
			}
		})
	}
}
