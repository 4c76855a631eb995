package chunker

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// extLanguages maps file extensions, lower-cased, to languages.
var extLanguages = sync.OnceValue(func() map[string]string {
	return map[string]string{
		".go": "go",
		".py": "python", ".pyi": "python",
		".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
		".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
		".tsx":  "tsx",
		".rs":   "rust",
		".java": "java",
		".c":    "c", ".h": "c",
		".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
		".rb":  "ruby",
		".cs":  "csharp",
		".php": "php",
		".sh":  "bash", ".bash": "bash",
		".md": "markdown", ".markdown": "markdown",
		// Text worth indexing, in windows.
		".txt": "text", ".text": "text", ".rst": "text", ".adoc": "text", ".org": "text",
		".json": "text", ".jsonc": "text", ".yaml": "text", ".yml": "text", ".toml": "text",
		".ini": "text", ".cfg": "text", ".conf": "text", ".env": "text", ".properties": "text",
		".xml": "text", ".html": "text", ".htm": "text", ".svg": "text",
		".css": "text", ".scss": "text", ".less": "text",
		".sql": "text", ".graphql": "text", ".proto": "text", ".tf": "text", ".hcl": "text",
		".mk": "text", ".cmake": "text", ".gradle": "text", ".csv": "text", ".tsv": "text",
	}
})

// nameLanguages maps whole file names to languages, for files that
// conventionally have no extension.
var nameLanguages = sync.OnceValue(func() map[string]string {
	return map[string]string{
		".bashrc": "bash", ".bash_profile": "bash", ".profile": "bash",
		"Makefile": "text", "GNUmakefile": "text", "Dockerfile": "text", "Containerfile": "text",
		"Gemfile": "ruby", "Rakefile": "ruby",
		"LICENSE": "text", "COPYING": "text", "README": "text", "CODEOWNERS": "text",
		".gitignore": "text", ".gitattributes": "text", ".dockerignore": "text", ".editorconfig": "text",
	}
})

// Language returns the language of the file at path judged by its name
// alone: one of "go", "python", "javascript", "typescript", "tsx", "rust",
// "java", "c", "cpp", "ruby", "csharp", "php", "bash", "markdown", or "text"
// for other well-known text files. It returns "" when the name says
// nothing; DetectLanguage also looks at the content.
func Language(p string) string {
	base := filepath.Base(p)
	if lang, ok := nameLanguages()[base]; ok {
		return lang
	}
	return extLanguages()[strings.ToLower(filepath.Ext(base))]
}

// shebangLanguages maps interpreter names on a "#!" line to languages.
var shebangLanguages = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"bash": "bash", "sh": "bash", "dash": "bash", "ash": "bash", "ksh": "bash", "zsh": "bash",
		"python": "python", "python2": "python", "python3": "python",
		"node": "javascript", "nodejs": "javascript",
		"ruby": "ruby", "php": "php",
	}
})

// DetectLanguage returns the language of a file from its name and, when
// the name says nothing, its "#!" line; otherwise "text" if the content is
// text and "" if it is not.
func DetectLanguage(p string, content []byte) string {
	if lang := Language(p); lang != "" {
		return lang
	}
	if lang := shebang(content); lang != "" {
		return lang
	}
	if nul(content) < 0 && utf8.Valid(content) {
		return "text"
	}
	return ""
}

// shebang returns the language named by content's "#!" line, if any.
func shebang(content []byte) string {
	if !bytes.HasPrefix(content, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(content[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) > 0 && path.Base(fields[0]) == "env" {
		fields = fields[1:]
		for len(fields) > 0 && strings.HasPrefix(fields[0], "-") { // env -S
			fields = fields[1:]
		}
	}
	if len(fields) == 0 {
		return ""
	}
	name := path.Base(fields[0])
	if strings.HasPrefix(name, "python") {
		name = "python" // python3.12
	}
	return shebangLanguages()[name]
}

// vendorDirs are directories holding other people's code.
var vendorDirs = []string{"vendor", "node_modules", "third_party"}

// lockFiles are package managers' generated dependency pins.
var lockFiles = []string{
	"go.sum", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml",
	"Cargo.lock", "Gemfile.lock", "composer.lock", "poetry.lock", "Pipfile.lock", "uv.lock",
}

// SkipReason returns why the file at path with the given content should
// not be chunked, or "" if it should be. Only opts.MaxFileBytes and
// opts.Languages matter; zero values mean the defaults.
func SkipReason(p string, content []byte, opts Options) string {
	opts = opts.withDefaults()
	slashed := filepath.ToSlash(p)
	dirs := strings.Split(path.Dir(slashed), "/")
	for _, d := range vendorDirs {
		if slices.Contains(dirs, d) {
			return "vendored (under " + d + "/)"
		}
	}
	base := path.Base(slashed)
	if slices.Contains(lockFiles, base) {
		return "lock file"
	}
	if minifiedName(base) {
		return "generated (minified: " + base + ")"
	}
	if n := int64(len(content)); n > opts.MaxFileBytes {
		return fmt.Sprintf("too large (%d bytes, limit %d)", n, opts.MaxFileBytes)
	}
	if i := nul(content); i >= 0 {
		return fmt.Sprintf("binary (NUL byte at offset %d)", i)
	}
	if !utf8.Valid(content) {
		return fmt.Sprintf("not valid UTF-8 (invalid byte at offset %d)", invalidUTF8(content))
	}
	lang := DetectLanguage(p, content)
	if line := generatedHeader(content); line > 0 {
		return fmt.Sprintf("generated (marker on line %d)", line)
	}
	if specs()[lang] != nil {
		if why := minified(content); why != "" {
			return "generated (minified: " + why + ")"
		}
	}
	if len(opts.Languages) > 0 && !slices.Contains(opts.Languages, lang) {
		return "language " + lang + " not enabled"
	}
	return ""
}

// binarySniffBytes is how far into a file to look for a NUL byte, as git
// does to tell binary from text.
const binarySniffBytes = 8 << 10

// nul returns the offset of the first NUL byte in content's first
// binarySniffBytes, or -1.
func nul(content []byte) int {
	return bytes.IndexByte(content[:min(len(content), binarySniffBytes)], 0)
}

// invalidUTF8 returns the offset of the first byte that is not valid UTF-8.
func invalidUTF8(content []byte) int {
	for i := 0; i < len(content); {
		r, n := utf8.DecodeRune(content[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// generatedComment matches the text of a comment line that marks its file
// as generated: Go's convention ("Code generated by stringer; DO NOT
// EDIT.", https://go.dev/s/generatedcode), used by many generators in other
// languages too, and Facebook's "@generated".
var generatedComment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(Code generated .* DO NOT EDIT\.?|@generated\b)`)
})

// commentLeaders are the comment markers stripped from a line before
// matching generatedComment.
var commentLeaders = []string{"//", "#", "/*", "*", "--", "<!--", ";"}

// generatedHeaderLines is how far down generated-code markers are looked
// for; they belong to a file's header.
const generatedHeaderLines = 40

// generatedHeader returns the 1-based line of a generated-code marker in
// content's header, or 0.
func generatedHeader(content []byte) int {
	rest := content
	for n := 1; n <= generatedHeaderLines && len(rest) > 0; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		text := strings.TrimSpace(string(line))
		for _, l := range commentLeaders {
			if after, ok := strings.CutPrefix(text, l); ok {
				if generatedComment().MatchString(strings.TrimSpace(after)) {
					return n
				}
				break
			}
		}
	}
	return 0
}

// minifiedName reports whether a file name marks minified code.
func minifiedName(base string) bool {
	base = strings.ToLower(base)
	for _, suffix := range []string{".min.js", "-min.js", ".min.mjs", ".min.css", ".bundle.min.js"} {
		if strings.HasSuffix(base, suffix) {
			return true
		}
	}
	return false
}

// Thresholds for minified code. Hand-written code averages well under 80
// bytes a line and rarely has a line over a few hundred bytes.
const (
	minifiedMinBytes    = 1 << 10
	minifiedAvgLine     = 250
	minifiedLongestLine = 16 << 10
)

// minified returns why content looks minified or machine-generated, or "".
func minified(content []byte) string {
	if len(content) < minifiedMinBytes {
		return ""
	}
	n, longest, at := 0, 0, 0
	for rest := content; len(rest) > 0; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(line) > longest {
			longest, at = len(line), n+1
		}
	}
	if longest > minifiedLongestLine {
		return fmt.Sprintf("line %d is %d bytes long", at, longest)
	}
	if avg := len(content) / n; avg > minifiedAvgLine {
		return fmt.Sprintf("lines average %d bytes", avg)
	}
	return ""
}
