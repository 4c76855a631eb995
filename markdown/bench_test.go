package markdown

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark/text"

	"github.com/contextfs/contextfs/internal/goldmarkref"
)

// benchDoc is a README of a few KB with the usual mix: headings, prose with
// inline markup, lists, code, a table as text, quotes and references.
var benchDoc = []byte(`# contextfs

[![build](https://example.com/badge.svg)](https://example.com/ci) [![docs][docs-badge]][docs]

A **git-native** memory store for AI coding assistants: memories are
Markdown files with YAML front matter, committed with your code, and
searched with SQLite FTS5 and *optional* embeddings.

## Install

` + "```sh\ngo install github.com/contextfs/contextfs/cmd/git-contextfs@latest\ngit contextfs init\n```" + `

Then run ` + "`git contextfs doctor`" + ` to check the hooks and the merge driver.

## Quick start

1. Save a memory: ` + "`git contextfs save --type decision \"Use pgxpool\"`" + `.
2. Search: ` + "`git contextfs search pool`" + `.
3. Commit as usual; the pre-commit hook checks what you stage.

   Memories are plain files, so review them in pull requests like code.

- **Decisions** record why, not what.
- **Progress** notes supersede each other.
- **Sessions** keep an agent's working notes between runs.
  - They expire after 30 days.
  - See [aging](docs/AGING.md) for the rules.

> Note: the cache lives in ` + "`.git/contextfs`" + ` and is rebuilt from the
> files at any time with ` + "`git contextfs reindex`" + `.

### Search syntax

| Query | Meaning |
|---|---|
| ` + "`pool db`" + ` | both words |
| ` + "`\"connection pool\"`" + ` | the phrase |
| ` + "`pool -mysql`" + ` | excludes a word |

Phrases, prefixes (` + "`conn*`" + `) and ` + "`OR`" + ` combine freely; see
<https://example.com/docs/search> or mail <help@example.com>.

## How it works

Each memory is one file under ` + "`.contextfs/memories/`" + `:

    ---
    id: pool-db-connections
    type: decision
    ---
    We use pgxpool with 20 connections, because the default of 4
    starved the workers under load.

The chunker splits code with tree-sitter and Markdown by headings; the
indexer stores chunks, and search fuses keyword and vector ranks
(reciprocal rank fusion, k = 60). Results carry snippets with the
matched words in <mark>marks</mark>.

Setext headings work too
------------------------

Lorem ipsum dolor sit amet, *consectetur* adipiscing elit, sed do
eiusmod tempor incididunt ut labore et __dolore__ magna aliqua. Ut enim
ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut
aliquip ex ea commodo consequat.\
Duis aute irure dolor in reprehenderit in voluptate velit esse cillum
dolore eu fugiat nulla pariatur.

<details>
<summary>Why not a database?</summary>

Files diff, merge and review like code; a database does not.

</details>

***

## License

MIT, see [LICENSE](LICENSE). Built on [goldmark][] before, now on its own
reader.

[docs-badge]: https://example.com/docs.svg
[docs]: https://example.com/docs "Documentation"
[goldmark]: https://github.com/yuin/goldmark
`)

// BenchmarkParse compares reading a document and the plain text of all its
// headings and paragraphs with goldmark's parse of it, which builds every
// block's inline tree: the most Derive or the chunker can ask of either.
func BenchmarkParse(b *testing.B) {
	b.Run("markdown", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		b.ReportAllocs()
		for b.Loop() {
			doc := Parse(benchDoc)
			for i, blk := range doc.Blocks {
				if blk.Kind == Heading || blk.Kind == Paragraph {
					_ = doc.Text(i)
				}
			}
		}
	})
	b.Run("markdown-blocks", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		b.ReportAllocs()
		for b.Loop() {
			_ = Parse(benchDoc)
		}
	})
	b.Run("goldmark", func(b *testing.B) {
		p := goldmarkref.NewParser()
		b.SetBytes(int64(len(benchDoc)))
		b.ReportAllocs()
		for b.Loop() {
			_ = p.Parse(text.NewReader(benchDoc))
		}
	})
}

func TestBenchDocReadsAsGoldmarkDoes(t *testing.T) {
	if got, want := ours(benchDoc), theirs(benchDoc); got.String() != want.String() {
		t.Errorf("--- goldmark\n%s\n--- ours\n%s", want, got)
	}
	if n := strings.Count(ours(benchDoc).String(), "heading@"); n != 7 {
		t.Errorf("benchDoc has %d headings, want 7", n)
	}
}
