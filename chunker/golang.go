package chunker

import (
	"bytes"
	"go/scanner"
	"go/token"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Go's top level is simple enough to read with go/scanner, about ten
// times faster than a tree-sitter parse: declarations start with a
// keyword at bracket depth 0 and end at the next semicolon there. Most
// declarations fit in one chunk, and then nothing inside them matters to
// the layout, so goCode finds the top level with the scanner and asks
// tree-sitter only for the declarations it must split (or cannot name),
// by parsing just their bytes. On src/cmd, parsing and layout fell from
// about 2.5 s of CPU to 1.2 s, the remaining tree-sitter work included.
// The result is the layout code would make from a full parse, piece for
// piece: TestGoScanMatchesTreeSitter holds the two to that over real Go.
// Whatever the scanner does not fully understand (a scan error,
// unbalanced brackets, a statement at the top level, a byte-order mark)
// sends the file to the full parse.

// goItem is one node of a Go file's top level, as tree-sitter would see
// it: a comment, a declaration or other code (package clause, imports).
type goItem struct {
	comment, decl bool
	s, e          int // rows, as builder.rows reports them
	from, to      int // bytes of the node's source
	id            ident
	known         bool         // id is certain; otherwise tree-sitter names it
	node          *sitter.Node // from the ranged parse, where needed
}

// goCode lays out a Go file like code does, or reports ok false if the
// file needs a full parse.
func (c *Chunker) goCode(li lines) (ps []piece, ok bool) {
	items, ok := scanGo(li)
	if !ok {
		return nil, false
	}
	b := &builder{spec: specs()["go"], li: li, max: c.opts.MaxChunkBytes}
	// Mark the nodes whose inside matters. A declaration might be split if
	// it does not fit with every comment that could be its doc.
	var need []int
	for i := range items {
		it := &items[i]
		switch {
		case it.comment:
			continue
		case it.decl:
			start := it.s
			for j := i - 1; j >= 0 && items[j].comment && items[j].e+1 >= start; j-- {
				start = items[j].s
			}
			if it.known && li.size(start, it.e) <= b.max {
				continue
			}
		case li.size(it.s, it.e) <= b.max:
			continue
		}
		need = append(need, i)
	}
	if len(need) > 0 {
		tree, ok := c.goRanges(li, items, need)
		if !ok {
			return nil, false
		}
		defer tree.Close()
		b.cursor = tree.Walk()
		defer b.cursor.Close()
	}

	// This is layout for the root with no open child, over items.
	top := scope{own: ident{kind: "block"}}
	plain := func(it *goItem) {
		if it.node != nil {
			b.plain(it.node, top)
		} else {
			b.own(it.e, top.own) // nothing if its rows are assigned already
		}
	}
	var pre []*goItem
	for i := range items {
		it := &items[i]
		if it.comment {
			pre = append(pre, it)
			continue
		}
		if !it.decl {
			for _, p := range pre {
				plain(p)
			}
			pre = pre[:0]
			plain(it)
			continue
		}
		first := b.attachedTo(it.s, len(pre), func(j int) (int, int) { return pre[j].s, pre[j].e })
		for _, p := range pre[:first] {
			plain(p)
		}
		start := it.s
		if first < len(pre) {
			start = pre[first].s
		}
		pre = pre[:0]
		if it.node != nil {
			d, ok := b.identify(it.node)
			if !ok {
				return nil, false
			}
			b.declaration(d, start, it.node, top)
		} else if b.begin(decl{ident: it.id}, start, it.e, top); it.e >= b.next {
			return nil, false // cannot happen: it fits with any doc
		}
	}
	for _, p := range pre {
		plain(p)
	}
	b.own(li.count()-1, top.own)
	b.flush()
	return mergeTiny(b.out, li, c.opts.MinChunkBytes, c.opts.MaxChunkBytes), true
}

// goRanges parses just the items at need, each through the end of its
// last row, and attaches each its node. ok is false if the parse does not
// give back exactly those nodes.
func (c *Chunker) goRanges(li lines, items []goItem, need []int) (*sitter.Tree, bool) {
	p, err := c.parser("go")
	if err != nil {
		return nil, false
	}
	ranges := make([]sitter.Range, 0, len(need))
	for _, i := range need {
		it := &items[i]
		end := min(li.end(it.e)+1, len(li.src))
		ranges = append(ranges, sitter.Range{
			StartByte:  uint(it.from),
			EndByte:    uint(end),
			StartPoint: sitter.Point{Row: uint(it.s), Column: uint(it.from - li.starts[it.s])},
			EndPoint:   sitter.Point{Row: uint(it.e), Column: uint(end - li.starts[it.e])},
		})
	}
	if p.SetIncludedRanges(ranges) != nil {
		p.SetIncludedRanges(nil)
		return nil, false
	}
	tree := p.Parse(li.src, nil)
	p.SetIncludedRanges(nil)
	c.rangeParses++
	if tree == nil {
		return nil, false
	}
	root := tree.RootNode()
	k, ok := 0, true
	for j := range root.NamedChildCount() {
		n := root.NamedChild(j)
		if n.Kind() == "comment" {
			continue
		}
		if k == len(need) || int(n.StartByte()) != items[need[k]].from || int(n.EndByte()) != items[need[k]].to || n.HasError() {
			ok = false
			break
		}
		items[need[k]].node = n
		k++
	}
	if !ok || k != len(need) {
		tree.Close()
		return nil, false
	}
	return tree, true
}

// goTok is a token of a declaration at bracket depth 0 or 1.
type goTok struct {
	tok   token.Token
	lit   string
	depth int
}

// scanGo reads the top level of a Go file, or reports ok false for a file
// it does not fully understand.
func scanGo(li lines) (items []goItem, ok bool) {
	src := li.src
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		return nil, false // tree-sitter does not skip a byte-order mark
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	bad := false
	var sc scanner.Scanner
	sc.Init(file, src, func(token.Position, string) { bad = true }, scanner.ScanComments)

	row := 0 // offsets are asked in order, so rowOf only walks forward
	rowOf := func(off int) int {
		for row+1 < len(li.starts) && li.starts[row+1] <= off {
			row++
		}
		return row
	}
	var (
		cur   = -1 // index of the item being read
		depth int
		stack []token.Token
		toks  []goTok // cur's tokens at depth 0 and 1
		body  bool    // cur is a function and its body has begun
	)
	for {
		pos, tok, lit := sc.Scan()
		if bad {
			return nil, false
		}
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		if tok == token.COMMENT {
			if depth == 0 && cur < 0 {
				end := commentEnd(src, off)
				items = append(items, goItem{comment: true, s: rowOf(off), e: rowOf(end - 1), from: off, to: end})
			}
			continue
		}
		if depth == 0 && tok == token.SEMICOLON {
			if cur >= 0 {
				if it := &items[cur]; it.decl {
					it.id, it.known = goIdent(toks)
				}
				cur = -1
			}
			continue
		}
		if cur < 0 {
			switch tok {
			case token.PACKAGE, token.IMPORT, token.FUNC, token.TYPE, token.CONST, token.VAR:
			default:
				return nil, false // a statement at the top level, or worse
			}
			items = append(items, goItem{decl: tok != token.PACKAGE && tok != token.IMPORT, s: rowOf(off), from: off})
			cur, toks, body = len(items)-1, toks[:0], false
		}
		// The item ends with this token, unless another follows.
		end := off + len(lit)
		switch {
		case lit == "":
			end = off + len(tok.String())
		case tok == token.STRING && src[off] == '`':
			end = rawEnd(src, off)
		}
		it := &items[cur]
		it.to, it.e = end, rowOf(end-1)

		switch tok {
		case token.RPAREN, token.RBRACK, token.RBRACE:
			// The closers' token values are their openers' plus 5.
			if depth == 0 || stack[depth-1] != tok-5 {
				return nil, false
			}
			stack = stack[:depth-1]
			depth--
		}
		if depth <= 1 && !body {
			toks = append(toks, goTok{tok, lit, depth})
			body = toks[0].tok == token.FUNC && tok == token.LBRACE && depth == 0
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			stack = append(stack, tok)
			depth++
		}
	}
	// go/scanner ends the last line with a semicolon, so an item still
	// open here has brackets that never closed.
	if depth != 0 || cur >= 0 {
		return nil, false
	}
	return items, true
}

// The closers are their openers plus 5, which scanGo relies on.
var _ = [1]struct{}{}[(token.RPAREN-token.LPAREN-5)|(token.RBRACK-token.LBRACK-5)|(token.RBRACE-token.LBRACE-5)]

// commentEnd returns the offset just past the comment at off.
func commentEnd(src []byte, off int) int {
	if src[off+1] == '/' {
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			return off + i
		}
		return len(src)
	}
	if i := bytes.Index(src[off+2:], []byte("*/")); i >= 0 {
		return off + 2 + i + 2
	}
	return len(src)
}

// rawEnd returns the offset just past the raw string literal at off. The
// scanner's literal cannot say, as it drops carriage returns.
func rawEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off+1:], '`'); i >= 0 {
		return off + 1 + i + 1
	}
	return len(src)
}

// goIdent names a declaration from its tokens at depth 0 and 1 as the Go
// declFuncs name it from the tree, or reports false for any form it is not
// sure of, which tree-sitter then names.
func goIdent(toks []goTok) (ident, bool) {
	kw := toks[0].tok
	rest := toks[1:]
	if kw == token.FUNC {
		return goFuncIdent(rest)
	}
	// Split into specs: the whole, or each line of a group.
	var specs [][]goTok
	if len(rest) > 0 && rest[0].tok == token.LPAREN && rest[0].depth == 0 {
		var spec []goTok
		for _, t := range rest[1:] {
			switch {
			case t.depth == 0: // the closing parenthesis
			case t.depth == 1 && t.tok == token.SEMICOLON:
				if len(spec) > 0 {
					specs = append(specs, spec)
				}
				spec = nil
			default:
				spec = append(spec, t)
			}
		}
		if len(spec) > 0 {
			specs = append(specs, spec)
		}
	} else {
		specs = [][]goTok{rest}
	}
	if kw == token.TYPE {
		if len(specs) != 1 {
			return ident{kind: "type"}, true
		}
		return goTypeIdent(specs[0])
	}
	// const and var: a symbol only for a single name. Each spec starts
	// with its names: IDENT (, IDENT)*.
	names := 0
	var name string
	for _, spec := range specs {
		d := spec[0].depth
		for i := 0; i < len(spec); i += 2 {
			if spec[i].tok != token.IDENT || spec[i].depth != d {
				return ident{}, false
			}
			names++
			name = spec[i].lit
			if i+1 == len(spec) || spec[i+1].tok != token.COMMA || spec[i+1].depth != d {
				break
			}
		}
	}
	id := ident{kind: kw.String()}
	if names == 1 {
		id.symbol = name
	}
	return id, true
}

// goFuncIdent names "func Name ..." or "func (r *T) Name ...".
func goFuncIdent(toks []goTok) (ident, bool) {
	if len(toks) > 0 && toks[0].tok == token.IDENT {
		return ident{kind: "function", symbol: toks[0].lit}, true
	}
	if len(toks) == 0 || toks[0].tok != token.LPAREN {
		return ident{}, false
	}
	// The receiver: [name] [*] T, and no type arguments (tree-sitter
	// names those).
	var recv []goTok
	i := 1
	for ; i < len(toks) && toks[i].depth == 1; i++ {
		recv = append(recv, toks[i])
	}
	// Name, then the parameters: a method with type parameters is new Go
	// that tree-sitter's grammar does not know yet.
	if i+2 >= len(toks) || toks[i+1].tok != token.IDENT || toks[i+2].tok != token.LPAREN {
		return ident{}, false
	}
	name := toks[i+1].lit
	var typ string
	switch {
	case len(recv) == 1 && recv[0].tok == token.IDENT:
		typ = recv[0].lit
	case len(recv) == 2 && recv[0].tok == token.MUL && recv[1].tok == token.IDENT:
		typ = recv[1].lit
	case len(recv) == 2 && recv[0].tok == token.IDENT && recv[1].tok == token.IDENT:
		typ = recv[1].lit
	case len(recv) == 3 && recv[0].tok == token.IDENT && recv[1].tok == token.MUL && recv[2].tok == token.IDENT:
		typ = recv[2].lit
	default:
		return ident{}, false
	}
	return ident{kind: "method", symbol: name, parent: typ}, true
}

// goTypeIdent names one type spec: "Name [=] struct|interface|...".
func goTypeIdent(spec []goTok) (ident, bool) {
	if len(spec) < 2 || spec[0].tok != token.IDENT {
		return ident{}, false
	}
	t := spec[1]
	if t.tok == token.ASSIGN && len(spec) > 2 {
		t = spec[2]
	}
	switch t.tok {
	case token.LBRACK:
		return ident{}, false // type parameters or an array type
	case token.STRUCT:
		return ident{kind: "struct", symbol: spec[0].lit}, true
	case token.INTERFACE:
		return ident{kind: "interface", symbol: spec[0].lit}, true
	}
	return ident{kind: "type", symbol: spec[0].lit}, true
}
