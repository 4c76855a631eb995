package chunker

import (
	"path"
	"strings"
	"sync"
)

// IsTest reports whether the file at p (slash-separated, relative to the
// repository root) holds tests by its language's conventions: Go's
// _test.go; Python's test_*.py and *_test.py; JavaScript and TypeScript
// *.test.* and *.spec.*; Ruby's _spec.rb and _test.rb; Java's *Test.java
// and *Tests.java; and anything under a tests/, test/, __tests__/, spec/
// or testing/ folder. The name alone decides, so it costs no parse.
func IsTest(p string) bool {
	p = strings.ToLower(path.Clean("/" + p))
	dir, base := path.Split(p)
	for _, d := range strings.Split(strings.Trim(dir, "/"), "/") {
		switch d {
		case "test", "tests", "__tests__", "spec", "specs", "testing", "testdata":
			return true
		}
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch ext {
	case ".go":
		return strings.HasSuffix(stem, "_test")
	case ".py", ".pyi":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest"
	case ".rb":
		return strings.HasSuffix(stem, "_spec") || strings.HasSuffix(stem, "_test")
	case ".java", ".cs", ".kt":
		return strings.HasSuffix(stem, "test") || strings.HasSuffix(stem, "tests")
	case ".rs", ".c", ".cc", ".cpp", ".php":
		return strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test_")
	}
	// JavaScript and TypeScript: a .test. or .spec. part before the extension.
	return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(stem, "_test")
}

// proseNames are file names without an extension that hold prose.
var proseNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"readme": true, "changelog": true, "changes": true, "history": true, "news": true,
		"authors": true, "contributors": true, "license": true, "copying": true, "notice": true,
		"install": true, "contributing": true, "todo": true,
	}
})

// IsProse reports whether the file at p is documentation rather than
// source: Markdown, reStructuredText, AsciiDoc, Org, plain text, and the
// conventional READMEs, changelogs and licences whatever their extension.
func IsProse(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	switch ext {
	case ".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".txt", ".text", ".org":
		return true
	}
	return proseNames()[strings.TrimSuffix(base, ext)]
}
