package chunker

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// code chunks a file in a tree-sitter language.
func (c *Chunker) code(lang string, li lines) ([]piece, error) {
	if li.count() == 0 {
		return nil, nil
	}
	c.parses++
	if lang == "go" && !c.treeOnly {
		if ps, ok := c.goCode(li); ok {
			return ps, nil
		}
	}
	p, err := c.parser(lang)
	if err != nil {
		return nil, err
	}
	tree := p.Parse(li.src, nil)
	if tree == nil {
		// Parse only fails when cancelled or timed out, which this
		// package never asks for; text windows are a safe answer anyway.
		return textWindows(li, c.opts.MaxChunkBytes), nil
	}
	defer tree.Close()
	cursor := tree.Walk()
	defer cursor.Close()

	b := &builder{spec: specs()[lang], li: li, max: c.opts.MaxChunkBytes, cursor: cursor}
	top := scope{own: ident{kind: "block"}}
	b.layout(tree.RootNode(), li.count()-1, top, 0)
	b.flush()
	return mergeTiny(b.out, li, c.opts.MinChunkBytes, c.opts.MaxChunkBytes), nil
}

// builder lays a syntax tree out as pieces. It walks the tree in source
// order and assigns every row exactly once: next is the first row not yet
// assigned, so pieces never overlap and, since every gap between
// declarations goes to a block, no row is lost.
type builder struct {
	spec   *spec
	li     lines
	max    int
	cursor *sitter.TreeCursor
	next   int     // first row not yet assigned
	pend   *piece  // rows of own code not yet emitted, growing
	out    []piece // finished pieces, in order
}

// scope is the context of a layout: the identity of code that belongs to
// no nested declaration, and the Parent of nested declarations.
type scope struct {
	own    ident
	parent string
}

// rows returns n's first and last rows. A node that ends at the start of
// a row (Rust's doc comments and C's #include keep their newline) ends on
// the row before.
func (b *builder) rows(n *sitter.Node) (s, e int) {
	start, end := n.StartPosition(), n.EndPosition()
	s, e = int(start.Row), int(end.Row)
	if end.Column == 0 && e > s {
		e--
	}
	e = min(e, b.li.count()-1)
	return min(s, e), e
}

// layout assigns the rows up to hi to n's children in turn. Comments and
// other prefixes are held back until the next child shows whether they
// document a declaration. The child whose id is open is laid out in
// place, like a transparent node; a split declaration opens its body.
func (b *builder) layout(n *sitter.Node, hi int, sc scope, open uintptr) {
	kids := n.NamedChildren(b.cursor)
	var pre []sitter.Node
	for i := range kids {
		k := &kids[i]
		if b.prefix(k) {
			pre = append(pre, *k)
			continue
		}
		if k.Id() != open {
			if d, ok := b.identify(k); ok && !d.scope {
				first := b.attached(pre, k)
				for j := range pre[:first] {
					b.plain(&pre[j], sc)
				}
				start, _ := b.rows(k)
				if first < len(pre) {
					start, _ = b.rows(&pre[first])
				}
				pre = pre[:0]
				b.declaration(d, start, k, sc)
				continue
			} else if ok {
				// "namespace N;" is code, and names the Parent of the
				// declarations after it.
				sc.parent = d.symbol
			}
		}
		for j := range pre {
			b.plain(&pre[j], sc)
		}
		pre = pre[:0]
		if k.Id() == open {
			_, e := b.rows(k)
			b.layout(k, e, sc, 0)
		} else {
			b.plain(k, sc)
		}
	}
	for j := range pre {
		b.plain(&pre[j], sc)
	}
	b.own(hi, sc.own)
}

// prefix reports whether n may document the declaration below it.
func (b *builder) prefix(n *sitter.Node) bool {
	k := n.Kind()
	return strings.Contains(k, "comment") || b.spec.prefixes[k]
}

// attached returns the index in pre of the first prefix that belongs to
// the declaration n: the trailing run of prefixes with no blank line
// between them and n, not sharing a row with code already assigned.
func (b *builder) attached(pre []sitter.Node, n *sitter.Node) int {
	next, _ := b.rows(n)
	return b.attachedTo(next, len(pre), func(i int) (int, int) { return b.rows(&pre[i]) })
}

// attachedTo is attached for a declaration starting on row next, after n
// prefixes whose rows are rows(0) to rows(n-1).
func (b *builder) attachedTo(next, n int, rows func(int) (int, int)) int {
	i := n
	for ; i > 0; i-- {
		s, e := rows(i - 1)
		if e+1 < next || s < b.next {
			break
		}
		next = s
	}
	return i
}

// identify reports whether n is a declaration, looking through wrappers.
func (b *builder) identify(n *sitter.Node) (decl, bool) {
	kind := n.Kind()
	if f := b.spec.decls[kind]; f != nil {
		d, ok := f(n, b.li.src)
		if ok && d.inner == nil {
			d.inner = n
		}
		return d, ok
	}
	if b.spec.wrappers[kind] {
		for i := range n.NamedChildCount() {
			if d, ok := b.identify(n.NamedChild(i)); ok {
				return d, true
			}
		}
	}
	return decl{}, false
}

// plain assigns n's rows to the scope's own code. A node too large for one
// chunk is opened, so that its children (statements, members, nested
// declarations) become the split points; transparent nodes always are.
func (b *builder) plain(n *sitter.Node, sc scope) {
	s, e := b.rows(n)
	if e < b.next {
		return // shares its only rows with code already assigned
	}
	if b.spec.transparent[n.Kind()] || n.IsError() {
		var open uintptr // extern "C" { ... } holds its declarations in a body
		if body := n.ChildByFieldName("body"); body != nil {
			open = body.Id()
		}
		b.layout(n, e, sc, open)
		return
	}
	if b.li.size(max(s, b.next), e) > b.max && n.NamedChildCount() > 0 {
		b.layout(n, e, sc, 0)
		return
	}
	b.own(e, sc.own)
}

// declaration emits declaration d, the node n whose doc starts on row
// start: whole if it fits, else split.
func (b *builder) declaration(d decl, start int, n *sitter.Node, sc scope) {
	_, e := b.rows(n)
	id := b.begin(d, start, e, sc)
	if e < b.next {
		return // emitted whole, or nothing left to emit
	}
	inner := scope{own: id, parent: id.symbol}
	if id.symbol == "" {
		inner.parent = sc.parent
	}
	body := d.body
	if body == "" {
		body = "body"
	}
	var open uintptr
	if bn := d.inner.ChildByFieldName(body); bn != nil {
		open = bn.Id()
	}
	b.layout(d.inner, e, inner, open)
	b.flush()
}

// begin starts declaration d on rows start through e: it emits the code
// before it and, if d fits, d itself. It returns d's identity in scope sc.
// Afterwards e < b.next unless d remains to be split: it was emitted
// whole, or it shares its only rows with code already assigned.
func (b *builder) begin(d decl, start, e int, sc scope) ident {
	if e < b.next {
		return ident{}
	}
	start = max(start, b.next)
	b.own(start-1, sc.own)
	b.flush()
	id := d.ident
	if id.kind == "function" && typeKinds()[sc.own.kind] {
		id.kind = "method"
	}
	if id.parent == "" {
		id.parent = sc.parent
	}
	if !d.container && b.li.size(start, e) <= b.max {
		b.out = append(b.out, piece{id, start, e})
		b.next = e + 1
	}
	return id
}

// own assigns the rows from next through e to code of identity id,
// growing the pending piece while it fits in max.
func (b *builder) own(e int, id ident) {
	s := b.next
	if e < s {
		return
	}
	b.next = e + 1
	if b.pend != nil && b.pend.ident == id && b.li.size(b.pend.start, e) <= b.max {
		b.pend.end = e
		return
	}
	b.flush()
	if b.li.size(s, e) <= b.max {
		b.pend = &piece{id, s, e}
		return
	}
	// Too large and with no children to split at: cut by lines, and
	// keep the last window growing.
	ws := b.li.split(s, e, b.max, 0, b.li.paragraph)
	for i, w := range ws {
		p := piece{id, w[0], w[1]}
		if i == len(ws)-1 {
			b.pend = &p
		} else {
			b.out = append(b.out, p)
		}
	}
}

// flush emits the pending piece, trimmed of blank rows.
func (b *builder) flush() {
	if b.pend == nil {
		return
	}
	if s, e, ok := b.li.trim(b.pend.start, b.pend.end); ok {
		b.out = append(b.out, piece{b.pend.ident, s, e})
	}
	b.pend = nil
}

// mergeTiny merges each piece smaller than minBytes into the adjacent one
// when both are mergeable kinds with the same parent and the result fits
// in maxBytes. A merge of different kinds is a "block", and one of
// different symbols has none.
func mergeTiny(ps []piece, li lines, minBytes, maxBytes int) []piece {
	if minBytes <= 0 {
		return ps
	}
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 {
			q := &out[n-1]
			if mergeable()[q.kind] && mergeable()[p.kind] && q.parent == p.parent &&
				(li.size(q.start, q.end) < minBytes || li.size(p.start, p.end) < minBytes) &&
				li.size(q.start, p.end) <= maxBytes {
				if q.kind != p.kind {
					q.kind = "block"
				}
				if q.symbol != p.symbol || q.kind == "block" {
					q.symbol = ""
				}
				q.end = p.end
				continue
			}
		}
		out = append(out, p)
	}
	return out
}
