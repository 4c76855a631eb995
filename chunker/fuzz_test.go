package chunker

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzPaths name one file per language; the fuzzer picks one by index.
var fuzzPaths = []string{
	"a.go", "a.py", "a.js", "a.ts", "a.tsx", "a.rs", "A.java", "a.c", "a.cpp",
	"a.rb", "A.cs", "a.php", "a.sh", "a.md", "a.txt",
}

// FuzzChunk checks that no input panics and that every chunking keeps the
// layout invariants, including with limits small enough to force splits.
func FuzzChunk(f *testing.F) {
	for _, name := range fixtures {
		path, src := readFixture(f, name)
		lang := DetectLanguage(path, src)
		for i, p := range fuzzPaths {
			if DetectLanguage(p, nil) == lang {
				f.Add(uint8(i), uint16(0), src)
				f.Add(uint8(i), uint16(100), src)
			}
		}
	}
	f.Add(uint8(0), uint16(0), []byte("package p\nfunc (\n"))
	f.Add(uint8(8), uint16(10), []byte("namespace { class A { void f() { } }; }"))
	f.Add(uint8(13), uint16(0), []byte("---\n# a\n---\n## b\n```\n# c"))

	f.Fuzz(func(t *testing.T, lang uint8, max uint16, src []byte) {
		path := fuzzPaths[int(lang)%len(fuzzPaths)]
		opts := Options{}
		if max > 0 {
			opts.MaxChunkBytes = 20 + int(max)%2000
		}
		c := New(opts)
		defer c.Close()
		chunks, err := c.Chunk(path, src)
		var skip *SkipError
		if errors.As(err, &skip) {
			return
		}
		if err != nil {
			t.Fatalf("Chunk: %v", err)
		}
		checkLayout(t, src, chunks)
	})
}

func BenchmarkChunkGo(b *testing.B) {
	goroot := os.Getenv("GOROOT")
	if goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			b.Skipf("no GOROOT: %v", err)
		}
		goroot = strings.TrimSpace(string(out))
	}
	path := filepath.Join(goroot, "src", "net", "http", "server.go")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no large Go file to chunk: %v", err)
	}
	c := New(Options{})
	defer c.Close()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chunk("server.go", src); err != nil {
			b.Fatal(err)
		}
	}
}
