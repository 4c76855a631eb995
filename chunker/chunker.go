// Package chunker splits source files into chunks small enough to index
// and search, along the boundaries a reader would choose: declarations in
// code, sections in Markdown, paragraphs in other text.
//
// # Code
//
// Code is parsed with tree-sitter (for Go, only the declarations that must
// be split: go/scanner finds the top level, with the same result; see
// goCode). A chunk is one declaration (function,
// method, class, struct, interface, type, impl, enum, trait, module, ...)
// together with the comments, attributes and decorators directly above it
// with no blank line between. Code between declarations (package clauses,
// imports, top-level statements, scripts) is not lost: it is gathered into
// chunks of Kind "block", up to MaxChunkBytes each. Tree-sitter recovers
// from syntax errors, so a file that does not compile still yields its
// intact declarations.
//
// A declaration that fits in MaxChunkBytes is one chunk, even a class with
// many methods: a method of a small class is found by the words of its
// chunk's Content, not by a chunk of its own, which keeps the index free of
// duplicated text. A larger declaration is split at its children: a class
// into one chunk per method (Parent the class) and chunks for the rest of
// its lines, which keep the class's Kind, Symbol and Parent: the header
// (doc, signature, fields) and, on its own, the closing line. A huge
// function becomes groups of statements, each keeping its Kind, Symbol and
// Parent. Splitting recurses, so no chunk exceeds MaxChunkBytes unless a
// single line does. Namespaces and modules (C++ and C# namespaces, Rust mod
// blocks, Ruby modules, TypeScript namespaces) are always split, whatever
// their size, because they usually wrap a whole file and a chunk the size
// of the file would hide every declaration in it. Chunks never overlap, and
// every non-blank line is in one.
//
// Chunks smaller than MinChunkBytes merge with an adjacent chunk of Kind
// "block", "const" or "var" when the result fits in MaxChunkBytes, so that a
// run of one-line constants becomes one chunk. Named declarations such as
// functions and types never merge: their Symbol matters more than their
// size.
//
// # Markdown
//
// Markdown is parsed by package markdown, as CommonMark reads it, rather
// than scanned line by line, because headings are easy to get wrong by
// hand: '#' lines inside fenced or indented code, HTML blocks, block
// quotes and list items are not headings, and setext headings have no '#'
// at all. Every heading starts a chunk of Kind "section" whose Symbol is
// the heading text and whose Parent is the text of the nearest enclosing
// heading. A section larger than MaxChunkBytes is split between its blocks
// (paragraphs, lists, code blocks). Text before the first heading,
// including YAML front matter, is a "block" chunk.
//
// # Other text
//
// Other text is cut into "block" windows of at most 60 lines and
// MaxChunkBytes, ending at a blank line where possible.
//
// # Skipped files
//
// Chunk returns a *SkipError, and SkipReason a non-empty reason, for files
// not worth indexing: binary files, files larger than MaxFileBytes,
// generated and minified files, vendored dependencies, lock files, and files
// that are not valid UTF-8. Invalid UTF-8 is skipped rather than repaired
// because a chunk's Content must be the exact text of its lines, and such
// files are almost always binary or in a legacy encoding that would index
// as noise anyway.
package chunker

import (
	"errors"
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Chunk is one searchable piece of a file: a whole number of its lines.
type Chunk struct {
	Path      string // as given
	Language  string // "go", "python", ..., "markdown", or "text"
	Kind      string // "function", "method", "class", "section", "block", ...
	Symbol    string // declared name or heading text; "" for blocks
	Parent    string // enclosing symbol, e.g. the class of a method; "" if none
	StartLine int    // 1-based, inclusive; includes the doc comment
	EndLine   int    // 1-based, inclusive
	Content   string // exact source text of those lines, without the final newline
}

// Name returns the chunk's qualified name, "Parent.Symbol" or "Symbol", or
// "" if the chunk has no symbol.
func (c Chunk) Name() string {
	switch {
	case c.Symbol == "":
		return ""
	case c.Parent == "":
		return c.Symbol
	default:
		return c.Parent + "." + c.Symbol
	}
}

// Version changes whenever the chunks a file yields change (new languages,
// different boundaries, names or kinds): caches of chunks made by another
// version are rebuilt.
const Version = "chunker/3"

// Options tune a Chunker. Zero values select the defaults.
type Options struct {
	// MaxChunkBytes bounds a chunk's size; larger declarations are split
	// at child boundaries. Default 6000.
	MaxChunkBytes int
	// MinChunkBytes is the size below which adjacent blocks, constants and
	// variables merge. Default 200; negative disables merging.
	MinChunkBytes int
	// MaxFileBytes is the size above which files are skipped. Default 1 MiB.
	MaxFileBytes int64
	// Languages lists the languages to chunk, by the names Language
	// returns; files in other languages are skipped. Empty (nil, or the
	// "languages: []" of a config file) means all.
	Languages []string
}

// Defaults for the zero Options.
const (
	DefaultMaxChunkBytes       = 6000
	DefaultMinChunkBytes       = 200
	DefaultMaxFileBytes  int64 = 1 << 20
)

// withDefaults returns o with zero fields replaced by their defaults.
func (o Options) withDefaults() Options {
	if o.MaxChunkBytes <= 0 {
		o.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if o.MinChunkBytes == 0 {
		o.MinChunkBytes = DefaultMinChunkBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	return o
}

// SkipError reports that a file was deliberately not chunked.
type SkipError struct {
	Path   string
	Reason string
}

// Error says which file was skipped and why.
func (e *SkipError) Error() string { return "skip " + e.Path + ": " + e.Reason }

// A Chunker splits files into chunks. It keeps one tree-sitter parser per
// language, created on first use, because creating parsers is costly
// relative to parsing a small file.
//
// A Chunker is not safe for concurrent use: its parsers hold parse state.
// Use one Chunker per goroutine, and Close it when done to free the
// parsers' C memory.
type Chunker struct {
	opts    Options
	parsers map[string]*sitter.Parser
	parses  int
	// rangeParses counts goCode's parses of single declarations.
	rangeParses int
	// treeOnly turns off the Go scanner's shortcut (goCode), so that
	// tests can compare it with a full parse.
	treeOnly bool
}

// New returns a Chunker configured by opts.
func New(opts Options) *Chunker {
	useLibcAllocator()
	return &Chunker{opts: opts.withDefaults(), parsers: make(map[string]*sitter.Parser)}
}

// Close frees the Chunker's parsers. The Chunker must not be used after.
func (c *Chunker) Close() {
	for lang, p := range c.parsers {
		p.Close()
		delete(c.parsers, lang)
	}
}

// Parses reports how many code files the Chunker has parsed: with
// tree-sitter or, for most Go files, go/scanner (see goCode).
func (c *Chunker) Parses() int { return c.parses }

// Chunk splits content, the contents of the file at path, into chunks in
// file order. Path selects the language and is copied into each chunk; the
// file is not read. If the file should not be chunked, Chunk returns a
// *SkipError saying why.
func (c *Chunker) Chunk(path string, content []byte) ([]Chunk, error) {
	if reason := SkipReason(path, content, c.opts); reason != "" {
		return nil, &SkipError{Path: path, Reason: reason}
	}
	lang := DetectLanguage(path, content)
	li := newLines(content)
	var ps []piece
	switch lang {
	case "markdown":
		ps = c.markdown(li)
	case "text":
		if IsProse(path) {
			ps = c.prose(li)
		} else {
			ps = textWindows(li, c.opts.MaxChunkBytes)
		}
	default:
		var err error
		if ps, err = c.code(lang, li); err != nil {
			return nil, fmt.Errorf("chunker: %s: %w", path, err)
		}
	}
	chunks := make([]Chunk, 0, len(ps))
	for _, p := range ps {
		chunks = append(chunks, Chunk{
			Path:      path,
			Language:  lang,
			Kind:      p.kind,
			Symbol:    p.symbol,
			Parent:    p.parent,
			StartLine: p.start + 1,
			EndLine:   p.end + 1,
			Content:   li.text(p.start, p.end),
		})
	}
	return chunks, nil
}

// parser returns the Chunker's parser for lang, creating it on first use.
func (c *Chunker) parser(lang string) (*sitter.Parser, error) {
	if p := c.parsers[lang]; p != nil {
		return p, nil
	}
	spec := specs()[lang]
	if spec == nil {
		return nil, errors.New("no grammar for " + lang)
	}
	p := sitter.NewParser()
	if err := p.SetLanguage(sitter.NewLanguage(spec.grammar())); err != nil {
		p.Close()
		return nil, fmt.Errorf("loading %s grammar: %w", lang, err)
	}
	c.parsers[lang] = p
	return p, nil
}

// piece is a chunk before its text is attached: an identity and a range of
// 0-based rows.
type piece struct {
	ident
	start, end int
}

// ident is what a chunk says about itself besides its lines.
type ident struct{ kind, symbol, parent string }

// textWindows cuts a whole file into "block" windows.
func textWindows(li lines, maxBytes int) []piece {
	var ps []piece
	for _, w := range li.split(0, li.count()-1, maxBytes, textWindowLines, li.paragraph) {
		ps = append(ps, piece{ident{kind: "block"}, w[0], w[1]})
	}
	return ps
}

// textWindowLines bounds a text window: long enough for a few paragraphs,
// short enough that a search hit points somewhere specific.
const textWindowLines = 60

// clean collapses runs of white space in a name to single spaces.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }
