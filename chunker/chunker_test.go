package chunker

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readFixture returns the path and content of testdata/name. Fixtures that
// do not compile end in ".src", so that gofmt and other tools walking the
// tree skip them; the suffix is not part of the path.
func readFixture(t testing.TB, name string) (path string, src []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(name, ".src"), src
}

// chunkFile chunks testdata/name with opts.
func chunkFile(t *testing.T, opts Options, name string) []Chunk {
	t.Helper()
	path, src := readFixture(t, name)
	c := New(opts)
	defer c.Close()
	chunks, err := c.Chunk(path, src)
	if err != nil {
		t.Fatalf("Chunk(%s): %v", name, err)
	}
	return chunks
}

// want is an expected chunk: its Name(), Kind and lines.
type want struct {
	name, kind string
	start, end int
}

func (w want) String() string { return fmt.Sprintf("%s %s %d-%d", w.kind, w.name, w.start, w.end) }

func got(c Chunk) want { return want{c.Name(), c.Kind, c.StartLine, c.EndLine} }

func gotAll(chunks []Chunk) []want {
	var ws []want
	for _, c := range chunks {
		ws = append(ws, got(c))
	}
	return ws
}

// assertContains checks that every wanted chunk is among chunks, exactly.
func assertContains(t *testing.T, chunks []Chunk, wants []want) {
	t.Helper()
	have := map[want]bool{}
	for _, c := range chunks {
		have[got(c)] = true
	}
	for _, w := range wants {
		if !have[w] {
			t.Errorf("missing chunk %v", w)
		}
	}
	if t.Failed() {
		for _, c := range chunks {
			t.Logf("have %v", got(c))
		}
	}
}

func TestChunkFindsDeclarationsWithExactLines(t *testing.T) {
	small := func(n int) Options { return Options{MaxChunkBytes: n} }
	tests := []struct {
		file  string
		opts  Options
		lang  string
		wants []want
	}{
		{"server.go", Options{}, "go", []want{
			{"Store", "struct", 17, 21},
			{"NewStore", "function", 23, 26},
			{"Store.Get", "method", 28, 37},
			{"Getter", "interface", 46, 49},
			{"", "type", 51, 56}, // a type ( ... ) group
			{"Server.ServeHTTP", "method", 63, 73},
			{"Server.String", "method", 75, 75},
			{"Keys", "function", 77, 84},
		}},
		{"broken.go.src", Options{}, "go", []want{
			{"errMissingName", "var", 43, 43},
			{"errorString", "type", 45, 45},
		}},
		{"pipeline.py", Options{}, "python", []want{
			{"", "block", 1, 10},
			{"Record", "class", 13, 22}, // decorated
			{"Exporter", "class", 25, 45},
			{"batched", "function", 48, 57},
			{"retry", "function", 60, 72},
			{"", "block", 75, 78},
		}},
		{"pipeline.py", small(400), "python", []want{
			{"Exporter", "class", 25, 26},
			{"Exporter.__init__", "method", 28, 31},
			{"Exporter.export", "method", 33, 34}, // comment above the def
			{"Exporter.export", "method", 35, 41},
			{"Exporter.written", "method", 43, 45}, // @property
		}},
		{"cart.js", Options{}, "javascript", []want{
			{"LineItem", "class", 7, 20}, // JSDoc
			{"Cart", "class", 22, 56},
			{"withTax", "function", 58, 59}, // const arrow function
			{"receipt", "function", 61, 66},
			{"skus", "function", 68, 70},
			{"createCart", "function", 72, 74},
			{"", "block", 76, 78},
		}},
		{"cart.js", small(400), "javascript", []want{
			{"Cart", "class", 22, 23},
			{"Cart.add", "method", 25, 34},
			{"Cart.fromJSON", "method", 49, 55},
			{"Cart", "class", 56, 56},
		}},
		{"api.ts", Options{}, "typescript", []want{
			{"Role", "enum", 4, 8},
			{"User", "interface", 10, 14},
			{"UserPatch", "type", 16, 16},
			{"Repository", "class", 18, 29},
			{"UserRepository", "class", 31, 46},
			{"Validation", "module", 48, 48},
			{"Validation.isEmail", "function", 49, 51},
			{"getUser", "function", 54, 65},
			{"isAdmin", "function", 67, 67},
		}},
		{"api.ts", small(400), "typescript", []want{
			{"UserRepository.constructor", "method", 32, 34},
			{"UserRepository.update", "method", 40, 45},
		}},
		{"Profile.tsx", Options{}, "tsx", []want{
			{"ProfileProps", "interface", 3, 6},
			{"Status", "type", 8, 8},
			{"useUser", "function", 10, 25},
			{"Profile", "function", 27, 39},
			{"ErrorBoundary", "class", 41, 51},
		}},
		{"shapes.rs", Options{}, "rust", []want{
			{"Point", "struct", 11, 16}, // doc comment and #[derive]
			{"Point", "impl", 18, 27},
			{"Point", "impl", 29, 35}, // impl Add for Point
			{"Shape", "trait", 43, 50},
			{"Kind", "enum", 52, 55},
			{"Vec", "impl", 57, 61},
			{"Polygon", "type", 63, 63},
			{"point", "macro", 65, 69},
			{"centroid", "function", 71, 78},
			{"tests", "module", 80, 82},
			{"tests.centroid_of_square", "function", 84, 88},
		}},
		{"shapes.rs", small(120), "rust", []want{
			{"Point", "impl", 18, 18},
			{"Point.new", "method", 19, 22},
			{"Point.Output", "type", 30, 30},
			{"Point.add", "method", 32, 34}, // impl Add for Point
			{"Point.fmt", "method", 38, 40},
			{"Shape.is_empty", "method", 47, 49},
		}},
		{"AccountService.java", Options{}, "java", []want{
			{"", "block", 1, 6},
			{"AccountService", "class", 8, 58},
			{"AuditLog", "interface", 60, 62},
			{"Currency", "enum", 64, 74},
		}},
		{"AccountService.java", small(600), "java", []want{
			{"AccountService", "class", 8, 13},
			{"AccountService.AccountService", "method", 15, 17},
			{"AccountService.open", "method", 19, 24},
			{"AccountService.toString", "method", 26, 29}, // @Override
			{"AccountService.Account", "class", 47, 51},
			{"AccountService.InsufficientFundsException", "class", 53, 57},
		}},
		{"ring.c", Options{}, "c", []want{
			{"ring", "struct", 11, 17},
			{"ring_status", "enum", 19, 23},
			{"ring_stats", "struct", 25, 28},
			{"ring_new", "function", 32, 44},
			{"ring_free", "function", 46, 52},
			{"ring_get", "function", 68, 75},
		}},
		{"ring.h", Options{}, "c", []want{ // inside #ifndef and extern "C"
			{"", "block", 1, 14},
			{"point_t", "struct", 16, 20},
			{"value", "union", 22, 25},
			{"ring_is_pow2", "function", 27, 30},
			{"", "block", 32, 36},
		}},
		{"matrix.cpp", Options{}, "cpp", []want{
			{"linalg", "module", 6, 6},
			{"linalg.Matrix", "class", 8, 24},
			{"Matrix.Matrix", "method", 26, 27},
			{"Matrix.operator*", "method", 29, 38},
			{"linalg.Shape", "struct", 40, 43},
			{"linalg.clamp", "function", 45, 48}, // template
			{"linalg.Stack", "class", 50, 58},
			{"Stack.pop", "method", 60, 65}, // Stack<T>::pop
			{"linalg.Axis", "enum", 67, 67},
			{"main", "function", 71, 76},
		}},
		{"inventory.rb", Options{}, "ruby", []want{
			{"Inventory", "module", 6, 8},
			{"Inventory.Item", "class", 10, 34},
			{"Inventory.Ledger", "class", 36, 62},
			{"Inventory.version", "method", 64, 66},
			{"report", "method", 69, 71},
		}},
		{"inventory.rb", small(300), "ruby", []want{
			{"Item.restock", "method", 19, 25},
			{"Item.from_h", "method", 31, 33},
			{"Ledger.load", "method", 54, 60}, // inside class << self
		}},
		{"OrderProcessor.cs", Options{}, "csharp", []want{
			{"Shop.Orders", "module", 5, 6},
			{"Shop.Orders.OrderProcessor", "class", 7, 40},
			{"Shop.Orders.IPaymentGateway", "interface", 42, 45},
			{"Shop.Orders.Order", "class", 47, 47},
			{"Shop.Orders.OrderLine", "struct", 49, 59},
			{"Shop.Orders.OrderState", "enum", 61, 66},
		}},
		{"OrderProcessor.cs", small(600), "csharp", []want{
			{"OrderProcessor.OrderProcessor", "method", 15, 18},
			{"OrderProcessor.Process", "method", 22, 36},
			{"OrderProcessor.Handle", "method", 38, 39}, // [Obsolete]
		}},
		{"UserController.php", Options{}, "php", []want{
			{"", "block", 1, 8},
			{`App\Http\Controllers.UserController`, "class", 10, 43},
			{`App\Http\Controllers.UserRepository`, "interface", 45, 50},
			{`App\Http\Controllers.Timestamps`, "trait", 52, 58},
			{`App\Http\Controllers.Status`, "enum", 60, 64},
			{`App\Http\Controllers.slugify`, "function", 66, 70},
		}},
		{"UserController.php", small(300), "php", []want{
			{"UserController.index", "method", 21, 28},
			{"UserController.routes", "method", 39, 42},
		}},
		{"deploy.sh", Options{}, "bash", []want{
			{"", "block", 1, 9},
			{"log", "function", 11, 14},
			{"die", "function", 16, 19},
			{"build", "function", 21, 24},
			{"upload", "function", 26, 31},
			{"", "block", 33, 43},
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/max=%d", tt.file, tt.opts.MaxChunkBytes), func(t *testing.T) {
			chunks := chunkFile(t, tt.opts, tt.file)
			assertContains(t, chunks, tt.wants)
			path := strings.TrimSuffix(tt.file, ".src")
			for _, c := range chunks {
				if c.Language != tt.lang || c.Path != path {
					t.Errorf("chunk %v: Language, Path = %q, %q; want %q, %q", got(c), c.Language, c.Path, tt.lang, path)
				}
			}
		})
	}
}

func TestDocCommentIsPartOfItsDeclaration(t *testing.T) {
	for _, c := range chunkFile(t, Options{}, "server.go") {
		if c.Name() == "Store.Get" {
			if !strings.HasPrefix(c.Content, "// Get returns the value stored under key.\nfunc (s *Store) Get(") {
				t.Errorf("Store.Get content starts %q", c.Content[:60])
			}
			return
		}
	}
	t.Error("no Store.Get chunk")
}

func TestCommentSeparatedByBlankLineIsNotDoc(t *testing.T) {
	src := "package p\n\n// Unrelated note.\n\nfunc F() {}\n"
	c := New(Options{MinChunkBytes: -1})
	defer c.Close()
	chunks, err := c.Chunk("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wants := []want{{"", "block", 1, 3}, {"F", "function", 5, 5}}
	if have := gotAll(chunks); !reflect.DeepEqual(have, wants) {
		t.Errorf("chunks = %v, want %v", have, wants)
	}
}

// A class that fits is one chunk, and its methods are found by its
// content; a class that does not fit becomes a header chunk plus one
// chunk per method.
func TestSmallClassIsOneChunkLargeClassSplitsIntoMethods(t *testing.T) {
	methods := []string{"open", "toString", "find", "transfer"}

	whole := chunkFile(t, Options{}, "AccountService.java")
	for _, c := range whole {
		if c.Parent == "AccountService" {
			t.Errorf("small class split: %v", got(c))
		}
		if c.Name() == "AccountService" {
			for _, m := range methods {
				if !strings.Contains(c.Content, " "+m+"(") {
					t.Errorf("class chunk lacks method %s", m)
				}
			}
		}
	}

	split := chunkFile(t, Options{MaxChunkBytes: 600}, "AccountService.java")
	found := map[string]bool{}
	for _, c := range split {
		if len(c.Content) > 600 {
			t.Errorf("chunk %v is %d bytes, over the limit", got(c), len(c.Content))
		}
		if c.Parent == "AccountService" && c.Kind == "method" {
			found[c.Symbol] = true
		}
	}
	for _, m := range methods {
		if !found[m] {
			t.Errorf("no method chunk for AccountService.%s", m)
		}
	}
	assertContains(t, split, []want{{"AccountService", "class", 8, 13}}) // the header
}

func TestLargeFunctionSplitsIntoStatementGroups(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n// Big does many things.\nfunc Big() {\n")
	for i := range 300 {
		fmt.Fprintf(&b, "\tx%d := compute(%d)\n\tuse(x%d)\n", i, i, i)
	}
	b.WriteString("}\n")
	const max = 1000
	c := New(Options{MaxChunkBytes: max})
	defer c.Close()
	chunks, err := c.Chunk("big.go", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []Chunk
	for _, c := range chunks {
		if c.Symbol == "Big" {
			pieces = append(pieces, c)
		}
	}
	if len(pieces) < b.Len()/max {
		t.Fatalf("Big split into %d pieces, want at least %d", len(pieces), b.Len()/max)
	}
	for i, p := range pieces {
		if p.Kind != "function" || len(p.Content) > max {
			t.Errorf("piece %d: kind %s, %d bytes", i, p.Kind, len(p.Content))
		}
		if i > 0 && p.StartLine != pieces[i-1].EndLine+1 {
			t.Errorf("piece %d starts at %d, previous ended at %d", i, p.StartLine, pieces[i-1].EndLine)
		}
	}
	if first := pieces[0]; first.StartLine != 3 || !strings.HasPrefix(first.Content, "// Big does many things.\nfunc Big() {\n\tx0") {
		t.Errorf("first piece does not start with the doc and signature: %v", got(first))
	}
	if last := pieces[len(pieces)-1]; last.EndLine != 605 || !strings.HasSuffix(last.Content, "use(x299)\n}") {
		t.Errorf("last piece does not end the function: %v", got(last))
	}
}

func TestHugeLineIsAChunkOfItsOwn(t *testing.T) {
	src := "package p\n\nvar table = \"" + strings.Repeat("ab", 2000) + "\"\n\nfunc F() {}\n" +
		strings.Repeat("\n// Padding keeps the average line short, unlike minified code.\n", 40)
	c := New(Options{MaxChunkBytes: 1000})
	defer c.Close()
	chunks, err := c.Chunk("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	assertContains(t, chunks, []want{{"table", "var", 3, 3}, {"F", "function", 5, 5}})
}

func TestTinyNeighboursMerge(t *testing.T) {
	src := `package config

import "time"

const Version = "1.2.0"
const Name = "contextfs"

var Timeout = 5 * time.Second
var Retries = 3

// Load reads the configuration.
func Load() {}

const Lonely = 1

func Save() {}
`
	tests := []struct {
		name  string
		opts  Options
		wants []want
	}{
		{"default", Options{}, []want{
			{"", "block", 1, 9}, // package, import, consts and vars
			{"Load", "function", 11, 12},
			{"Lonely", "const", 14, 14}, // tiny, but between functions
			{"Save", "function", 16, 16},
		}},
		{"disabled", Options{MinChunkBytes: -1}, []want{
			{"", "block", 1, 3},
			{"Version", "const", 5, 5},
			{"Name", "const", 6, 6},
			{"Timeout", "var", 8, 8},
			{"Retries", "var", 9, 9},
			{"Load", "function", 11, 12},
			{"Lonely", "const", 14, 14},
			{"Save", "function", 16, 16},
		}},
		{"bounded by max", Options{MaxChunkBytes: 60}, []want{
			{"", "block", 1, 5},
			{"", "block", 6, 8},
			{"Retries", "var", 9, 9},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.opts)
			defer c.Close()
			chunks, err := c.Chunk("config.go", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			assertContains(t, chunks, tt.wants)
		})
	}
}

func TestSyntaxErrorsKeepIntactDeclarations(t *testing.T) {
	tests := []struct {
		file  string
		wants []want
	}{
		{"broken.go.src", []want{
			{"Normalize", "function", 5, 8},
			{"Split", "function", 10, 17}, // the broken one
			{"", "block", 19, 19},         // <<<<<<< HEAD
			{"Join", "function", 20, 23},
			{"Join", "function", 25, 28},
			{"Config", "struct", 31, 34},
			{"Config.Validate", "method", 36, 41},
			{"errorString.Error", "method", 47, 47},
		}},
		{"broken.py", []want{
			{"load", "function", 4, 9},
			{"parse", "function", 12, 17}, // the broken one
			{"Settings", "class", 20, 25},
			{"main", "function", 28, 30},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			assertContains(t, chunkFile(t, Options{}, tt.file), tt.wants)
		})
	}
}

var fixtures = []string{
	"server.go", "broken.go.src", "pipeline.py", "broken.py", "cart.js", "api.ts", "Profile.tsx",
	"shapes.rs", "AccountService.java", "ring.c", "ring.h", "matrix.cpp", "inventory.rb",
	"OrderProcessor.cs", "UserController.php", "deploy.sh", "guide.md", "notes.txt",
}

// checkLayout checks the invariants of any chunking: chunks are in order,
// do not overlap, hold exactly the text of their lines, and cover every
// non-blank line of the file.
func checkLayout(t *testing.T, src []byte, chunks []Chunk) {
	t.Helper()
	rows := strings.Split(string(src), "\n")
	if strings.HasSuffix(string(src), "\n") {
		rows = rows[:len(rows)-1]
	}
	covered := make([]bool, len(rows))
	prevEnd := 0
	for _, c := range chunks {
		if c.StartLine < 1 || c.StartLine > c.EndLine || c.EndLine > len(rows) {
			t.Fatalf("chunk %v: bad lines for a %d-line file", got(c), len(rows))
		}
		if c.StartLine <= prevEnd {
			t.Errorf("chunk %v overlaps or precedes the previous one, which ended at %d", got(c), prevEnd)
		}
		prevEnd = c.EndLine
		if want := strings.Join(rows[c.StartLine-1:c.EndLine], "\n"); c.Content != want {
			t.Errorf("chunk %v: Content is not the exact text of its lines", got(c))
		}
		for i := c.StartLine - 1; i < c.EndLine; i++ {
			covered[i] = true
		}
	}
	for i, row := range rows {
		if !covered[i] && strings.TrimSpace(row) != "" {
			t.Errorf("line %d %q is in no chunk", i+1, row)
		}
	}
}

func TestEveryLineIsCoveredOnce(t *testing.T) {
	for _, max := range []int{0, 150, 400} {
		for _, f := range fixtures {
			t.Run(fmt.Sprintf("%s/max=%d", f, max), func(t *testing.T) {
				_, src := readFixture(t, f)
				checkLayout(t, src, chunkFile(t, Options{MaxChunkBytes: max}, f))
			})
		}
	}
}

func TestChunkIsDeterministic(t *testing.T) {
	for _, f := range fixtures {
		if a, b := chunkFile(t, Options{}, f), chunkFile(t, Options{}, f); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ", f)
		}
	}
}

func TestMarkdownSections(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		wants []want
	}{
		{"whole sections", Options{}, []want{
			{"", "block", 1, 7}, // front matter and preamble
			{"Building", "section", 9, 12},
			{"Building.From source", "section", 14, 21}, // fenced code with '#'
			{"Building.With Docker", "section", 23, 29}, // ~~~ fence with '#'
			{"Testing", "section", 31, 40},              // indented code and list with '#'
			{"Testing.Fuzzing Chunker", "section", 42, 45},
			{"Testing.Release process", "section", 47, 52}, // setext heading
			{"Release process.Hotfixes", "section", 54, 56},
		}},
		{"large sections split between blocks", Options{MaxChunkBytes: 150}, []want{
			{"", "block", 1, 4},
			{"", "block", 6, 7},
			{"Testing", "section", 31, 34},
			{"Testing", "section", 36, 37},
			{"Testing", "section", 39, 40},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := chunkFile(t, tt.opts, "guide.md")
			assertContains(t, chunks, tt.wants)
			for _, c := range chunks {
				if c.Language != "markdown" {
					t.Errorf("chunk %v: Language %q", got(c), c.Language)
				}
				if c.Kind == "section" && strings.Contains(c.Symbol, "heading") {
					t.Errorf("a '#' line that is not a heading became section %q", c.Symbol)
				}
			}
		})
	}
}

func TestMarkdownWithoutHeadings(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	for _, src := range []string{"just a paragraph\n", "---\ntitle: only front matter\n---\n", "---\nunterminated: front matter\n"} {
		chunks, err := c.Chunk("a.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 1 || chunks[0].Kind != "block" || chunks[0].Content != strings.TrimSuffix(src, "\n") {
			t.Errorf("%q: chunks = %+v, want one block of the whole file", src, chunks)
		}
	}
}

// notes.txt is prose with reStructuredText-style headings: it is cut into
// sections, and a section too large for one chunk at blank lines.
func TestTextWindows(t *testing.T) {
	assertContains(t, chunkFile(t, Options{}, "notes.txt"), []want{
		{"Meeting notes, storage working group", "section", 1, 14},
		{"Action items", "section", 16, 23},
	})
	assertContains(t, chunkFile(t, Options{MaxChunkBytes: 300}, "notes.txt"), []want{
		{"Meeting notes, storage working group", "section", 1, 4},
		{"Meeting notes, storage working group", "section", 6, 9}, // cut at blank lines
		{"Meeting notes, storage working group", "section", 11, 14},
		{"Action items", "section", 16, 23},
	})

	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "line %d of a log without blank lines\n", i+1)
	}
	c := New(Options{})
	defer c.Close()
	chunks, err := c.Chunk("build.log", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	wants := []want{{"", "block", 1, 60}, {"", "block", 61, 120}, {"", "block", 121, 180}, {"", "block", 181, 200}}
	if have := gotAll(chunks); !reflect.DeepEqual(have, wants) || chunks[0].Language != "text" {
		t.Errorf("windows = %v (%s), want %v (text)", have, chunks[0].Language, wants)
	}
}

func TestEmptyAndBlankFilesHaveNoChunks(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	for _, name := range []string{"a.go", "a.py", "a.md", "a.txt"} {
		for _, src := range []string{"", "\n\n  \n", "\t"} {
			chunks, err := c.Chunk(name, []byte(src))
			if err != nil || len(chunks) != 0 {
				t.Errorf("Chunk(%s, %q) = %v, %v; want no chunks", name, src, chunks, err)
			}
		}
	}
}

func TestSkippedFiles(t *testing.T) {
	goSrc := []byte("package p\n\nfunc F() {}\n")
	long := bytes.Repeat([]byte("var a=1;"), 400) // one 3200-byte line
	tests := []struct {
		name    string
		path    string
		content []byte
		opts    Options
		reason  string // substring of the reason
	}{
		{"binary", "logo.go", []byte("package p\x00\x01\x02"), Options{}, "binary (NUL byte at offset 9)"},
		{"not UTF-8", "latin1.go", []byte("package p // caf\xe9\n"), Options{}, "not valid UTF-8 (invalid byte at offset 16)"},
		{"too large", "big.go", goSrc, Options{MaxFileBytes: 10}, "too large (23 bytes, limit 10)"},
		{"too large by default", "big.txt", bytes.Repeat([]byte("a\n"), 1<<19+1), Options{}, "too large (1048578 bytes, limit 1048576)"},
		{"Go generated header", "x_string.go", []byte("// Code generated by \"stringer -type=X\"; DO NOT EDIT.\n\npackage p\n"), Options{}, "generated (marker on line 1)"},
		{"generated after build tags", "pb.go", []byte("//go:build linux\n\n// Code generated by protoc-gen-go. DO NOT EDIT.\npackage p\n"), Options{}, "generated (marker on line 3)"},
		{"@generated", "schema.py", []byte("# @generated by schema-tool\nX = 1\n"), Options{}, "generated (marker on line 1)"},
		{"@generated in a doc block", "Relay.js", []byte("/**\n * @generated SignedSource<<abc>>\n */\nexport default {};\n"), Options{}, "generated (marker on line 2)"},
		{"min.js", "dist/app.min.js", []byte("var a=1;"), Options{}, "generated (minified: app.min.js)"},
		{"minified by line length", "dist/app.js", long, Options{}, "generated (minified: lines average 3200 bytes)"},
		{"minified by one huge line", "bundle.js", append(bytes.Repeat([]byte("x;\n"), 1000), bytes.Repeat([]byte("y"), 20000)...), Options{}, "generated (minified: line 1001 is 20000 bytes long)"},
		{"vendor", "vendor/github.com/x/y/y.go", goSrc, Options{}, "vendored (under vendor/)"},
		{"node_modules", "web/node_modules/react/index.js", goSrc, Options{}, "vendored (under node_modules/)"},
		{"third_party", `third_party\zlib\zlib.h`, goSrc, Options{}, "vendored (under third_party/)"},
		{"go.sum", "go.sum", []byte("a v1 h1:x=\n"), Options{}, "lock file"},
		{"package-lock.json", "web/package-lock.json", []byte("{}"), Options{}, "lock file"},
		{"yarn.lock", "yarn.lock", []byte("a@1:\n"), Options{}, "lock file"},
		{"Cargo.lock", "Cargo.lock", []byte("[[package]]\n"), Options{}, "lock file"},
		{"pnpm-lock.yaml", "pnpm-lock.yaml", []byte("lockfileVersion: 9\n"), Options{}, "lock file"},
		{"language not enabled", "a.py", []byte("x = 1\n"), Options{Languages: []string{"go"}}, "language python not enabled"},
	}
	if filepath.Separator != '\\' {
		tests[13].path = "third_party/zlib/zlib.h"
	}
	c := New(Options{})
	defer c.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SkipReason(tt.path, tt.content, tt.opts); got != tt.reason {
				t.Errorf("SkipReason = %q, want %q", got, tt.reason)
			}
			c := New(tt.opts)
			defer c.Close()
			_, err := c.Chunk(tt.path, tt.content)
			var skip *SkipError
			if !errors.As(err, &skip) {
				t.Fatalf("Chunk error = %v, want *SkipError", err)
			}
			if want := "skip " + tt.path + ": " + tt.reason; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err, want)
			}
			if c.Parses() != 0 {
				t.Errorf("a skipped file was parsed")
			}
		})
	}
}

func TestNotSkipped(t *testing.T) {
	tests := []struct {
		path    string
		content string
	}{
		{"gen.go", "package gen\n\n// This file is not generated; see Code generated below.\nfunc F() {}\n"},
		{"doc.go", "// Package p mentions @generated in passing.\npackage p\n"},
		{"vendoring.go", "package vendoring\n"},
		{"src/vendor.go", "package src\n"},
		{"README.md", "# Title\n\n" + strings.Repeat("A long paragraph on one line. ", 40) + "\n"},
		{"a.py", "x = 1\n"},
	}
	for _, tt := range tests {
		if r := SkipReason(tt.path, []byte(tt.content), Options{Languages: []string{"go", "markdown", "python"}}); r != "" {
			t.Errorf("SkipReason(%s) = %q, want \"\"", tt.path, r)
		}
	}
}

func TestLanguage(t *testing.T) {
	tests := map[string]string{
		"main.go": "go", "a/b.py": "python", "x.js": "javascript", "x.mjs": "javascript",
		"x.cjs": "javascript", "x.jsx": "javascript", "x.ts": "typescript", "x.mts": "typescript",
		"x.cts": "typescript", "x.tsx": "tsx", "lib.rs": "rust", "A.java": "java", "a.c": "c",
		"a.h": "c", "a.cc": "cpp", "a.cpp": "cpp", "a.cxx": "cpp", "a.hpp": "cpp", "a.hh": "cpp",
		"a.rb": "ruby", "A.cs": "csharp", "a.php": "php", "a.sh": "bash", "a.bash": "bash",
		"README.md": "markdown", "x.markdown": "markdown", "NOTES.TXT": "text", "c.yaml": "text",
		"Makefile": "text", "Dockerfile": "text", "Rakefile": "ruby", "run": "", "data.bin": "",
	}
	for path, want := range tests {
		if got := Language(path); got != want {
			t.Errorf("Language(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		path, content, want string
	}{
		{"bin/deploy", "#!/usr/bin/env bash\nset -e\n", "bash"},
		{"bin/deploy", "#!/bin/sh\necho hi\n", "bash"},
		{"bin/tool", "#!/usr/bin/env -S python3 -u\nprint(1)\n", "python"},
		{"bin/tool", "#!/usr/local/bin/python3.12\nprint(1)\n", "python"},
		{"bin/serve", "#!/usr/bin/env node\nconsole.log(1)\n", "javascript"},
		{"bin/x", "#!/usr/bin/perl\nprint 1;\n", "text"},
		{"CHANGES", "v1.0: first release\n", "text"},
		{"blob", "\x00\x01\x02", ""},
		{"main.go", "#!/bin/sh\n", "go"}, // the name wins
	}
	for _, tt := range tests {
		if got := DetectLanguage(tt.path, []byte(tt.content)); got != tt.want {
			t.Errorf("DetectLanguage(%q, %q) = %q, want %q", tt.path, tt.content, got, tt.want)
		}
	}
	c := New(Options{})
	defer c.Close()
	chunks, err := c.Chunk("bin/deploy", []byte("#!/usr/bin/env bash\n\ndeploy() {\n\techo deploying\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	assertContains(t, chunks, []want{{"deploy", "function", 3, 5}})
}

func TestParsesCountsCodeFilesParsed(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	steps := []struct {
		path, content string
		parses        int
	}{
		{"a.go", "package a\n", 1},
		{"a.go", "package a\n", 2}, // no caching: every call parses
		{"b.py", "x = 1\n", 3},
		{"README.md", "# Title\n", 3}, // Markdown is not parsed by tree-sitter
		{"notes.txt", "hello\n", 3},
		{"vendor/c.go", "package c\n", 3}, // skipped
		{"empty.go", "", 3},               // nothing to parse
		{"c.rs", "fn main() {}\n", 4},
	}
	for _, s := range steps {
		c.Chunk(s.path, []byte(s.content))
		if got := c.Parses(); got != s.parses {
			t.Errorf("after %s: Parses() = %d, want %d", s.path, got, s.parses)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		c    Chunk
		want string
	}{
		{Chunk{Symbol: "ServeHTTP", Parent: "Server"}, "Server.ServeHTTP"},
		{Chunk{Symbol: "main"}, "main"},
		{Chunk{Parent: "Server"}, ""},
		{Chunk{}, ""},
	}
	for _, tt := range tests {
		if got := tt.c.Name(); got != tt.want {
			t.Errorf("%+v.Name() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	c := New(Options{})
	if _, err := c.Chunk("a.go", []byte("package a\n")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c.Close()
}

func TestCRLFAndMissingFinalNewlineKeepExactContent(t *testing.T) {
	_, src := readFixture(t, "server.go")
	variants := map[string][]byte{
		"crlf":       bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")),
		"no newline": bytes.TrimSuffix(src, []byte("\n")),
	}
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			c := New(Options{})
			defer c.Close()
			chunks, err := c.Chunk("server.go", v)
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, v, chunks)
			assertContains(t, chunks, []want{{"Store.Get", "method", 28, 37}, {"Keys", "function", 77, 84}})
		})
	}
}
