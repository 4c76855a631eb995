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

	// Execs must stay cheap: every input that finds new coverage is
	// minimised (for -fuzzminimizetime, 60s by default) before fuzzing
	// goes on, and the execs spent minimising are not counted, so a slow
	// target shows 0 execs/s for minutes after its seed corpus. Chunkers
	// are reused across execs (making one costs more than chunking), and
	// inputs past 16 KiB, which only slow minimisation, are skipped.
	chunkers := map[int]*Chunker{}
	f.Cleanup(func() {
		for _, c := range chunkers {
			c.Close()
		}
	})
	f.Fuzz(func(t *testing.T, lang uint8, max uint16, src []byte) {
		if len(src) > 16<<10 {
			return
		}
		path := fuzzPaths[int(lang)%len(fuzzPaths)]
		opts := Options{}
		if max > 0 {
			opts.MaxChunkBytes = 20 + int(max)%2000
		}
		c := chunkers[opts.MaxChunkBytes]
		if c == nil {
			if len(chunkers) >= 16 {
				for k, old := range chunkers {
					old.Close()
					delete(chunkers, k)
				}
			}
			c = New(opts)
			chunkers[opts.MaxChunkBytes] = c
		}
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
