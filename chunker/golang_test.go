package chunker

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// goPair is a Chunker that takes the scanner's shortcut for Go and one
// that always parses whole files with tree-sitter.
type goPair struct{ fast, tree *Chunker }

func newGoPair(t testing.TB, opts Options) goPair {
	p := goPair{New(opts), New(opts)}
	p.tree.treeOnly = true
	t.Cleanup(func() { p.fast.Close(); p.tree.Close() })
	return p
}

// compare chunks src both ways. Where tree-sitter parses src without an
// error the chunks must be the same; where it does not, the scanner may
// read the file differently (tree-sitter's recovery can swallow whole
// declarations), but its chunks must keep the layout's invariants.
// scanned reports whether the shortcut handled the file, ranged whether
// it parsed some declarations.
func (p goPair) compare(t testing.TB, path string, src []byte) (scanned, ranged bool) {
	t.Helper()
	want, werr := p.tree.Chunk(path, src)
	parses := p.fast.rangeParses
	_, scanned = p.fast.goCode(newLines(src))
	ranged = scanned && p.fast.rangeParses > parses
	got, gerr := p.fast.Chunk(path, src)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: errors differ: tree-sitter %v, scanner %v", path, werr, gerr)
	}
	if reflect.DeepEqual(got, want) {
		return scanned, ranged
	}
	if p.treeErrs(src) {
		if tt, ok := t.(*testing.T); ok {
			checkLayout(tt, src, got)
		}
		return scanned, ranged
	}
	t.Errorf("%s: the scanner's chunks differ from tree-sitter's (tree | scanner):\n%s", path, chunkDiff(want, got))
	return scanned, ranged
}

// treeErrs reports whether tree-sitter finds a syntax error in src.
func (p goPair) treeErrs(src []byte) bool {
	ps, err := p.tree.parser("go")
	if err != nil {
		return false
	}
	tree := ps.Parse(src, nil)
	defer tree.Close()
	return tree.RootNode().HasError()
}

func chunkDiff(want, got []Chunk) string {
	line := func(cs []Chunk, i int) string {
		if i >= len(cs) {
			return ""
		}
		c := cs[i]
		return fmt.Sprintf("%s %s %d-%d", c.Kind, c.Name(), c.StartLine, c.EndLine)
	}
	var b strings.Builder
	for i := range max(len(want), len(got)) {
		w, g := line(want, i), line(got, i)
		mark := "  "
		if w != g {
			mark = "! "
		}
		fmt.Fprintf(&b, "%s%-40s | %s\n", mark, w, g)
	}
	return b.String()
}

// TestGoScanMatchesTreeSitter chunks real Go both ways: the standard
// library's go/ and net/http packages, and the compiler's and type
// checker's test data, which hold generics, new syntax and deliberate
// syntax errors. Set GOSCAN_ROOT to check another tree (all of GOROOT's
// src matched when this was written: 6,628 files).
func TestGoScanMatchesTreeSitter(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	roots := []string{
		filepath.Join(goroot, "src", "go"),
		filepath.Join(goroot, "src", "net", "http"),
		filepath.Join(goroot, "src", "math", "rand"),
		filepath.Join(goroot, "src", "cmd", "compile", "internal", "syntax"),
		filepath.Join(goroot, "src", "internal", "types", "testdata"),
	}
	if r := os.Getenv("GOSCAN_ROOT"); r != "" {
		roots = []string{r}
	}
	p := newGoPair(t, Options{})
	var files, scanned, ranged, all, fast int
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if SkipReason(path, src, p.fast.opts) != "" {
				return nil
			}
			s, r := p.compare(t, path, src)
			files++
			all += len(src)
			if s {
				scanned++
				fast += len(src)
			}
			if r {
				ranged++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files: %d scanned (%.1f%% of %d bytes), %d of them with declarations parsed",
		files, scanned, 100*float64(fast)/float64(all), all, ranged)
	// The shortcut must not quietly stop working: nearly all of this code
	// is plain Go, and some of it has functions too large for a chunk.
	if files < 500 || float64(fast) < 0.95*float64(all) || ranged == 0 {
		t.Errorf("the scanner handled %d of %d files (%d of %d bytes), %d with parsed declarations", scanned, files, fast, all, ranged)
	}
}

// TestGoScanCases checks the forms the scanner must name like tree-sitter
// does, and those it must hand back.
func TestGoScanCases(t *testing.T) {
	big := "func Big() {\n" + strings.Repeat("\tx := 1\n\t_ = x\n", 400) + "}\n"
	bigDoc := strings.Repeat("// Doc of Near.\n", 350) + "func Near() { println() }\n"
	imports := "import (\n" + strings.Repeat("\t\"fmt\"\n", 1000) + ")\n"
	tests := []struct {
		name    string
		src     string
		scanned bool
	}{
		{"functions and methods", "package p\n\n// F does.\nfunc F() {}\n\nfunc (s *S) M() {}\nfunc (S) N() {}\nfunc (s S) O() {}\nfunc (*S) P() {}\n", true},
		{"generic function", "package p\n\nfunc Map[T, U any](xs []T, f func(T) U) []U { return nil }\n", true},
		{"generic receiver, named by tree-sitter", "package p\n\nfunc (l *List[T]) Push(v T) {}\nfunc (l List[K, V]) Len() int { return 0 }\n", true},
		{"method with type parameters, which tree-sitter cannot parse", "package p\n\nfunc (r *R) N[T any](x T) T { return x }\n", false},
		{"types", "package p\n\ntype S struct{ a int }\ntype I interface{ M() }\ntype T int\ntype A = struct{}\ntype B = int\ntype P *struct{}\n", true},
		{"generic types and arrays", "package p\n\ntype G[T any] struct{ v T }\ntype Arr [4]struct{}\ntype N[P *C] interface{}\n", true},
		{"type groups", "package p\n\ntype (\n\tOne struct{}\n)\n\ntype (\n\tA int\n\tB string\n)\n\ntype ()\n", true},
		{"constants and variables", "package p\n\nconst A = 1\nconst (\n\tB = iota\n\tC\n)\nvar x, y = 1, 2\nvar (\n\tz int\n)\nvar _ = z\nvar ()\nconst (\n\tD, E = 1, 2\n)\n", true},
		{"comments: doc, trailing, block and detached", "package p\n\n/* block\n   comment */\nfunc A() {} // trailing\n\n// detached\n\n// doc\nvar v = 1 /* mid */ + 2\n/* end */\n", true},
		{"raw strings across lines, with carriage returns", "package p\r\n\r\nvar s = `a\r\nb\r\n`\r\n\r\nfunc F() string { return `x\ny` }\r\n", true},
		{"two declarations on a row", "package p\n\nfunc A() {}; func B() {}\nvar a = 1; var b = 2\n", true},
		{"a declaration too large for a chunk", "package p\n\n" + big + "\nfunc Small() {}\n", true},
		{"a doc comment that makes a declaration too large", "package p\n\n" + bigDoc, true},
		{"an import block too large for a chunk", "package p\n\n" + imports + "\nfunc F() {}\n", true},
		{"no package clause", "func F() {}\n", true},
		{"no final newline", "package p\n\nfunc F() {}", true},
		{"empty", "", true},
		{"a statement at the top level", "package p\n\nx := 1\nfunc F() {}\n", false},
		{"unbalanced brackets", "package p\n\nfunc F() {\n\tif x {\n}\n\nfunc G() {}\n", false},
		{"mismatched brackets", "package p\n\nfunc F() { a[1} ]\n", false},
		{"an unterminated string", "package p\n\nvar s = \"abc\nfunc F() {}\n", false},
		{"a byte-order mark", "\ufeffpackage p\n\nfunc F() {}\n", false},
		{"a syntax error inside a function", "package p\n\nfunc F() {\n\tswitch {\n\tcase x {\n\t}\n\t}\n}\n\nfunc G() {}\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newGoPair(t, Options{})
			scanned, _ := p.compare(t, "a.go", []byte(tt.src))
			if scanned != tt.scanned {
				t.Errorf("scanned = %v, want %v", scanned, tt.scanned)
			}
		})
	}
}

// FuzzGoScan checks that wherever tree-sitter parses an input without
// error, the scanner's shortcut yields the same chunks, with limits small
// enough to force splits and merges.
func FuzzGoScan(f *testing.F) {
	_, src := readFixture(f, "server.go")
	f.Add(uint16(0), src)
	f.Add(uint16(300), src)
	f.Add(uint16(40), []byte("package p\n\n// d\nfunc (s *S[T]) M() {}\ntype (\n\tA int\n)\nvar a, b = 1, 2\n"))
	f.Add(uint16(0), []byte("package p\nfunc F() {\n\tswitch {\n\tcase x {\n}\n}\n"))
	pairs := map[int]goPair{}
	f.Cleanup(func() {
		for _, p := range pairs {
			p.fast.Close()
			p.tree.Close()
		}
	})
	f.Fuzz(func(t *testing.T, max uint16, src []byte) {
		if len(src) > 16<<10 {
			return
		}
		opts := Options{}
		if max > 0 {
			opts.MaxChunkBytes = 20 + int(max)%2000
		}
		p, ok := pairs[opts.MaxChunkBytes]
		if !ok {
			if len(pairs) >= 16 {
				for k, old := range pairs {
					old.fast.Close()
					old.tree.Close()
					delete(pairs, k)
				}
			}
			p = goPair{New(opts), New(opts)}
			p.tree.treeOnly = true
			pairs[opts.MaxChunkBytes] = p
		}
		p.compare(t, "a.go", src)
	})
}
