package chunker

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

var scratchLangs = map[string]func() unsafe.Pointer{
	"go": tsgo.Language, "python": tspython.Language, "javascript": tsjs.Language,
	"typescript": tsts.LanguageTypescript, "tsx": tsts.LanguageTSX, "rust": tsrust.Language,
	"java": tsjava.Language, "c": tsc.Language, "cpp": tscpp.Language, "ruby": tsruby.Language,
	"csharp": tscsharp.Language, "php": tsphp.LanguagePHP, "bash": tsbash.Language,
}

func TestScratchDump(t *testing.T) {
	lang, file := os.Getenv("DUMP_LANG"), os.Getenv("DUMP_FILE")
	if lang == "" {
		t.Skip()
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(sitter.NewLanguage(scratchLangs[lang]()))
	tree := p.Parse(src, nil)
	defer tree.Close()
	depth := 3
	var walk func(n *sitter.Node, d int, field string)
	walk = func(n *sitter.Node, d int, field string) {
		if !n.IsNamed() && d > 0 {
			return
		}
		txt := n.Utf8Text(src)
		if i := strings.IndexByte(txt, '\n'); i >= 0 {
			txt = txt[:i] + "…"
		}
		if len(txt) > 50 {
			txt = txt[:50]
		}
		fmt.Printf("%s%s%s [%d-%d] %q\n", strings.Repeat("  ", d), field, n.Kind(), n.StartPosition().Row+1, n.EndPosition().Row+1, txt)
		if d >= depth {
			return
		}
		for i := uint(0); i < n.ChildCount(); i++ {
			f := n.FieldNameForChild(uint32(i))
			if f != "" {
				f += ": "
			}
			walk(n.Child(i), d+1, f)
		}
	}
	if os.Getenv("DUMP_DEPTH") != "" {
		fmt.Sscan(os.Getenv("DUMP_DEPTH"), &depth)
	}
	walk(tree.RootNode(), 0, "")
}

func TestScratchChunks(t *testing.T) {
	file := os.Getenv("CHUNKS_FILE")
	if file == "" {
		t.Skip()
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var opts Options
	if m := os.Getenv("CHUNKS_MAX"); m != "" {
		fmt.Sscan(m, &opts.MaxChunkBytes)
	}
	c := New(opts)
	defer c.Close()
	chunks, err := c.Chunk(file, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		first, _, _ := strings.Cut(ch.Content, "\n")
		if len(first) > 60 {
			first = first[:60]
		}
		fmt.Printf("%3d-%-3d %-9s %-30s %5dB | %s\n", ch.StartLine, ch.EndLine, ch.Kind, ch.Name(), len(ch.Content), first)
	}
}
