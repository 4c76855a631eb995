package markdown

import (
	"strings"
	"testing"
)

// differentialCases are read by this package and by goldmark, and must
// read the same. They also seed FuzzParseAgreesWithGoldmark.
var differentialCases = []struct{ name, src string }{
	// Documents with little or nothing in them.
	{"an empty document has no blocks", ""},
	{"a document of blank lines has no blocks", "\n\n   \n\t\n"},
	{"a document without a final newline ends its last block", "# Title\n\ntext"},
	{"a lone newline has no blocks", "\n"},

	// ATX headings.
	{"ATX headings have levels one to six", "# one\n## two\n### three\n#### four\n##### five\n###### six\n"},
	{"seven hashes are not a heading", "####### seven\n"},
	{"a hash without a space after it is not a heading", "#5 bolt\n#hashtag\n"},
	{"closing hashes are not heading text", "# title ###\n## title #####   \n"},
	{"closing hashes need a space before them", "# title#\n# C#\n"},
	{"an escaped hash is heading text", "# title \\#\n"},
	{"a heading may be empty", "#\n# \n### ###\n"},
	{"a heading may be indented up to three spaces", " # one\n  # two\n   # three\n"},
	{"four spaces of indent make code, not a heading", "    # code\n"},
	{"a heading interrupts a paragraph", "text\n# heading\ntext\n"},
	{"a tab after the hashes separates the text", "#\tTitle\n"},
	{"a lone hash at the end of input is an empty heading", "#"},

	// Setext headings.
	{"an equals underline makes a level one heading", "Title\n=====\n"},
	{"a dash underline makes a level two heading", "Title\n---\n"},
	{"a setext heading takes every line of its paragraph", "first line\nsecond line\n===\n"},
	{"an underline may be indented and end with spaces", "Title\n   ===   \n"},
	{"an underline with inner spaces is not an underline", "Title\n= =\n"},
	{"dashes without a paragraph above are a thematic break", "---\n\n---\n"},
	{"an underline after a blank line is not an underline", "Title\n\n===\n"},
	{"an underline under link definitions only is text", "[a]: /url\n===\n"},
	{"an underline under definitions and text takes the text", "[a]: /url\nTitle\n---\n"},
	{"an underline in a block quote underlines its paragraph", "> Title\n> ---\n"},
	{"a lazy line cannot be an underline", "> Title\n---\n"},
	{"a single dash under text is an underline", "Title\n-\n"},

	// Thematic breaks.
	{"three stars, dashes or underscores are a thematic break", "***\n---\n___\n"},
	{"thematic break characters may be spaced", " * * *\n-  -  -\n_ _ _ _\n"},
	{"two characters are not a thematic break", "**\n--\n"},
	{"mixed characters are not a thematic break", "*-*\n"},
	{"a thematic break interrupts a paragraph", "text\n***\ntext\n"},

	// Fenced code.
	{"a backtick fence is code", "```\n# not a heading\n```\n"},
	{"a tilde fence is code", "~~~\n# not a heading\n~~~\n"},
	{"a fence may have an info string", "```go title\ncode\n```\n"},
	{"a backtick fence's info may not hold backticks", "``` a`b\nnot code\n"},
	{"a tilde fence's info may hold backticks", "~~~ a`b\ncode\n~~~\n"},
	{"a longer closing fence closes", "```\ncode\n`````\ntext\n"},
	{"a shorter closing fence does not close", "````\ncode\n```\nstill code\n````\n"},
	{"a closing fence of the other character does not close", "```\ncode\n~~~\nstill code\n```\n"},
	{"an unclosed fence runs to the end", "```\n# code\n\n- code\n"},
	{"a closing fence may be indented up to three spaces", "```\ncode\n   ```\ntext\n"},
	{"a closing fence may not have text after it", "```\ncode\n``` x\nstill code\n```\n"},
	{"two backticks are not a fence", "``\ncode\n``\n"},
	{"a fence interrupts a paragraph", "text\n```\ncode\n```\n"},
	{"an indented fence keeps its indent", "  ```\n  code\n    more\n  ```\n"},

	// Indented code.
	{"four spaces of indent are code", "    code\n    more\n"},
	{"a tab of indent is code", "\tcode\n"},
	{"indented code keeps blank lines inside it", "    one\n\n    two\n"},
	{"indented code cannot interrupt a paragraph", "text\n    more text\n"},
	{"indented code ends at a less indented line", "    code\ntext\n"},

	// HTML blocks, the seven start conditions and their ends.
	{"script, pre, style and textarea blocks run to their end tag", "<script>\n\nvar x;\n\n</script>\ntext\n"},
	{"a pre block may end on its first line", "<pre>x</pre>\ntext\n"},
	{"end tags of kind one blocks ignore case", "<STYLE>\na\n</Style>\ntext\n"},
	{"a comment block runs to the comment's end", "<!--\n\n# not a heading\n\n-->\n# heading\n"},
	{"a processing instruction block runs to ?>", "<?php\n\necho 1;\n\n?>\ntext\n"},
	{"a declaration block runs to >", "<!DOCTYPE html\n\n>\ntext\n"},
	{"a CDATA block runs to ]]>", "<![CDATA[\n\nx\n\n]]>\ntext\n"},
	{"a block tag starts a block that ends at a blank line", "<div>\n*not emphasis*\n\n*emphasis*\n"},
	{"a block tag may be closing", "</div>\ntext\n\ntext\n"},
	{"a block tag may be followed by anything", "<table><tr><td>x\n</td></tr></table>\n"},
	{"an unknown complete tag alone on a line starts a block", "<custom-tag>\ntext\n\ntext\n"},
	{"an unknown tag with attributes starts a block", "<a href=\"x\" title='y' data-z=w>\ntext\n"},
	{"an unknown tag cannot interrupt a paragraph", "text\n<custom>\nmore\n"},
	{"a block tag interrupts a paragraph", "text\n<div>\nmore\n"},
	{"an unknown tag with text after it is not a block", "<custom> text\n"},
	{"a closing tag with attributes is not a block", "</custom x=1>\n"},
	{"a tab after a block tag's name is not a block", "<div\t>\n"},
	{"an HTML block may be indented up to three spaces", "   <div>\n   x\n"},

	// Block quotes.
	{"a block quote holds blocks", "> # heading\n> text\n>\n> - item\n"},
	{"a paragraph in a block quote continues lazily", "> first\nsecond\n"},
	{"only a paragraph continues lazily", "> ```\ncode?\n"},
	{"a block quote needs no space after its marker", ">text\n"},
	{"block quotes nest", "> > inner\n> outer\n"},
	{"a blank line ends a block quote", "> one\n\n> two\n"},
	{"a tab after the marker is partly its space", ">\tcode?\n>\t\tcode\n"},
	{"a block quote interrupts a paragraph", "text\n> quote\n"},

	// Lists.
	{"a bullet list is tight without blank lines", "- one\n- two\n- three\n"},
	{"a blank line between items makes a list loose", "- one\n\n- two\n"},
	{"a blank line inside an item makes the list loose", "- one\n\n  more\n- two\n"},
	{"a blank line at a nested list's end keeps the outer list tight", "- a\n  - b\n\n- c\n"},
	{"items may use plus and star", "+ one\n+ two\n\n* three\n"},
	{"a different bullet starts a new list", "- one\n* two\n"},
	{"ordered lists use dots or parentheses", "1. one\n2. two\n\n1) three\n"},
	{"an ordered list may start at another number", "3. three\n4. four\n"},
	{"an ordered list not starting at one cannot interrupt a paragraph", "text\n2. item\n"},
	{"an ordered list starting at one interrupts a paragraph", "text\n1. item\n"},
	{"a bullet list interrupts a paragraph", "text\n- item\n"},
	{"an empty item cannot interrupt a paragraph", "text\n-\n"},
	{"nested lists nest by indentation", "- a\n  - b\n    - c\n- d\n"},
	{"an item's content sets its indentation", "-   wide\n    continued\n"},
	{"an item starting with indented code indents by one", "-     code\n  text\n"},
	{"an item may start empty", "-\n  text\n"},
	{"an empty item followed by a blank line ends the list", "-\n\n  text\n"},
	{"a list item may hold a heading", "- # heading\n- text\n"},
	{"list items hold code and quotes", "1. text\n\n       code\n\n   > quote\n"},
	{"a thematic break ends a list", "- one\n- - -\n"},
	{"a setext underline under an item's text is a heading", "- Title\n  ---\n"},
	{"ten digits are not an ordered marker", "1234567890. not a list\n"},
	{"a marker needs a space after it", "-text\n1.text\n"},
	{"lazy lines continue an item's paragraph", "- one\ntwo\n"},
	{"a list item in a block quote", "> - a\n> - b\n"},
	{"an item's blank line set by a nested list closes the outer list", "- a\n\n  *\n\n  b\n"},

	// Link reference definitions.
	{"a definition is taken off a paragraph", "[foo]: /url \"title\"\n\n[foo]\n"},
	{"definitions may follow each other", "[a]: /a\n[b]: /b\ntext\n"},
	{"a definition's title may be on the next line", "[a]: /url\n\"title\"\ntext\n"},
	{"a definition's destination may be on the next line", "[a]:\n/url\ntext\n"},
	{"a definition with text after its title is text", "[a]: /url \"title\" more\n"},
	{"a definition whose next-line title has text after it ends at the destination", "[a]: /url\n\"title\" more\n"},
	{"a definition may use angle brackets", "[a]: <my url> 'title'\n[a]\n"},
	{"a definition needs a destination", "[a]:\n\n[a]\n"},
	{"a definition cannot interrupt a paragraph", "text\n[a]: /url\n\n[a]\n"},
	{"a definition's label may not be blank", "[ ]: /url\n"},
	{"a definition in a list item", "- [a]: /url\n- [a]\n"},
	{"a definition in a block quote", "> [a]: /url\n\n[a]\n"},
	{"the first definition of a label wins", "[a]: /one\n[a]: /two\n\n[a]\n"},
	{"a title in parentheses may not nest", "[a]: /url\n(title (x)\n[b]: /b\n\n[a] [b]\n"},

	// Tabs and line ends.
	{"tabs indent to multiples of four", "-\tone\n\n\tcode? no, item text\n"},
	{"CRLF line ends read as LF", "# Title\r\n\r\ntext\r\nmore\r\n\r\n- a\r\n- b\r\n"},
	{"a lone CR does not end a line", "one\rtwo\n"},
	{"a CRLF after a list marker is not a list item", "-\r\n"},
	{"a hard break before a CRLF", "foo  \r\nbar\\\r\nbaz\n"},

	// Inline plain text.
	{"emphasis and strong emphasis are dropped", "*em* _em_ **strong** __strong__ ***both***\n"},
	{"emphasis inside words", "foo*bar*baz foo_bar_baz\n"},
	{"unmatched delimiters stay text", "*a **b c* d** e_ f*\n"},
	{"the rule of three keeps some delimiters", "*foo**bar**baz*\n**foo*bar*\n"},
	{"code spans keep their text", "`code` ``co`de`` ` spaced ` x` y `z\n"},
	{"a code span's edge spaces touch other text", "a` b `c\n"},
	{"an unclosed backtick is text", "a ``b` c\n"},
	{"a code span may span lines", "a `b\nc` d\n"},
	{"links keep their text", "[text](/url) [text](/url \"title\") [text](</my url>)\n"},
	{"images keep their description", "![alt *text*](/img.png) ![](/empty.png)\n"},
	{"reference links keep their text", "[full][ref] [collapsed][] [ref]\n\n[ref]: /url\n"},
	{"undefined references are text", "[full][nope] [nope][] [nope]\n"},
	{"reference labels match ignoring case and spaces", "[Foo  Bar]\n\n[foo bar]: /url\n"},
	{"reference labels fold case fully", "[STRASSE]\n\n[Straße]: /url\n"},
	{"a link may not hold a link", "[a [b](/b) c](/a)\n"},
	{"an image may hold a link", "![a [b](/b) c](/a)\n"},
	{"a link's destination may not hold spaces", "[a](/b c)\n"},
	{"a link's title may span lines", "[a](/b \"c\nd\") e\n"},
	{"autolinks have no plain text", "see <https://example.com> and <me@example.com>.\n"},
	{"raw HTML has no plain text", "a <b>bold</b> <span class=\"x\">y</span> <!-- c --> <?p?> <!X> <![CDATA[d]]> e\n"},
	{"raw HTML may span lines", "a <span\ntitle=\"x\">b</span>c\n"},
	{"a lone angle bracket is text", "a < b > c <3\n"},
	{"backslash escapes stay as written", "\\*not em\\* \\[not link\\] \\` \\\\\n"},
	{"entities stay as written", "&amp; &copy; &#35; &#x22; &nosuch;\n"},
	{"a hard break with spaces reads as a space", "foo  \nbar\n"},
	{"a hard break with a backslash drops the backslash", "foo\\\nbar\n"},
	{"a backslash at the paragraph's end stays", "foo\\\n"},
	{"a soft break reads as a space", "foo\nbar\n"},
	{"heading text drops markup", "# The `Chunk` *API*\n"},
	{"an escaped character at a line's start may still open emphasis", "a\\\\\\\n*b*\n"},
	{"a backslash before a two-space hard break escapes the next line's first character", "a\\  \n\\*b\nc*\n"},
	{"delimiters after a block quote marker are flanked by it", "> a\n>*(b)*\n"},
	{"a link is not made when open brackets span over 998 bytes", "[ " + strings.Repeat("x", 1000) + " [ [a](/b)\n"},
	{"a shortcut label over 999 bytes is not a link", "[" + strings.Repeat("y", 1000) + "]\n\n[" + strings.Repeat("y", 1000) + "]: /u\n"},
	{"invalid UTF-8 ends inline HTML", "a <b title=\"\xff\"> c\n"},
	{"the long s matches s in a raw tag name", "<\u017fcript>\n\nx\n</script>\n"},
	{"deep nesting", strings.Repeat(">", 200) + " x\n" + strings.Repeat("- ", 100) + "y\n"},
}

func TestParseReadsAsGoldmarkDoes(t *testing.T) {
	for _, tt := range differentialCases {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			if got, want := ours(src), theirs(src); got.String() != want.String() {
				t.Errorf("Parse(%q):\n--- goldmark\n%s\n--- ours\n%s", tt.src, want, got)
			}
		})
	}
}

func TestTextOfHeadingsAndParagraphs(t *testing.T) {
	doc := Parse([]byte("# The `Chunk` *API*\n\nSee [the docs](/d) and <b>raw</b>\nhere.\n\n- tight\n\n---\n"))
	var got []string
	for i, b := range doc.Blocks {
		got = append(got, kindName(b.Kind)+":"+doc.Text(i))
	}
	want := []string{"heading:The Chunk API", "para:See the docs and raw here.", "list:", "item:", "para:tight", "hr:"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("blocks and texts = %q, want %q", got, want)
	}
	if !doc.Blocks[4].Tight || doc.Blocks[4].Depth != 2 {
		t.Errorf("a tight list's paragraph: %+v, want Tight at depth 2", doc.Blocks[4])
	}
}

func TestPosIsWhereTheBlockStarts(t *testing.T) {
	src := "[a]: /u\n  text\n\n   # h\n"
	doc := Parse([]byte(src))
	var got []int
	for _, b := range doc.Blocks {
		got = append(got, b.Pos)
	}
	want := []int{0, 10, 19}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Pos = %v, want %v", got, want)
	}
}

func TestNormalizeLabelFoldsAsGoldmark(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  Foo \t Bar\n", "foo bar"},
		{"STRASSE", "strasse"},
		{"Straße", "strasse"},
		{"ΑΓΩ", "αγω"},
		{"\vx\f", "x"},
		{"a\vb", "a\vb"},
		{"\xff\xfe", "\xff\xfe"},
	} {
		if got := normalizeLabel([]byte(tt.in)); got != tt.want {
			t.Errorf("normalizeLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
