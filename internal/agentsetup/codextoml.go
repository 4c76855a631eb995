package agentsetup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// codexCheck reads the user's config.toml with go-toml far enough to know
// whether the block setup appends would clash with it. TOML lets
// mcp_servers.contextfs be defined as a [mcp_servers.contextfs] table (or
// a sub-table of it), with dotted keys (mcp_servers.contextfs.command = …,
// or contextfs.command = … under [mcp_servers]) or as an inline table
// (contextfs = {…} under [mcp_servers], or inside mcp_servers = {…}).
// Each is the user's own entry, and a second definition makes the file
// invalid, so Codex could no longer read its configuration at all. An
// inline mcp_servers = {…} may not be extended by a table either. A file
// go-toml cannot decode is refused, so that nothing is appended to TOML
// that may not parse; and so is one that would not decode with our block
// appended (mcp_servers = "x"), which the walk over the keys does not name.
//
// The file is only read here: setup appends a marked block to the text
// and later removes exactly that block, so every other byte (comments,
// layout, key order) stays as the user wrote it, which decoding and
// encoding again with any TOML library would not keep.
func codexCheck(path, s string) error {
	doc := []byte(strings.TrimPrefix(s, "\ufeff"))
	var decoded map[string]any
	if err := toml.Unmarshal(doc, &decoded); err != nil {
		return fmt.Errorf("%s:%d: setup cannot read this TOML (%v), so it writes nothing; fix the file or add the %s entry by hand",
			path, errorLine(err), err, ServerName)
	}
	conflict, inline := 0, 0
	var p unstable.Parser
	p.Reset(doc)
	line := func(n *unstable.Node) int { return p.Shape(n.Raw).Start.Line }
	// visit is told each table header and key (its full path, its first
	// key node and whether its value is an inline table).
	var visit func(key []string, at *unstable.Node, value *unstable.Node)
	visit = func(key []string, at *unstable.Node, value *unstable.Node) {
		inlineTable := value != nil && value.Kind == unstable.InlineTable
		switch {
		case len(key) >= 2 && key[0] == "mcp_servers" && key[1] == ServerName:
			if conflict == 0 {
				conflict = line(at)
			}
			return
		case len(key) == 1 && key[0] == "mcp_servers" && inlineTable:
			if inline == 0 {
				inline = line(at)
			}
		}
		if inlineTable {
			for it := value.Children(); it.Next(); {
				if kv := it.Node(); kv.Kind == unstable.KeyValue {
					sub, first := keyPath(kv)
					visit(append(append([]string(nil), key...), sub...), first, kv.Value())
				}
			}
		}
	}
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var first *unstable.Node
			table, first = keyPath(e)
			visit(table, first, nil)
		case unstable.KeyValue:
			sub, first := keyPath(e)
			visit(append(append([]string(nil), table...), sub...), first, e.Value())
		}
	}
	if err := p.Error(); err != nil { // toml.Unmarshal read it: not expected
		return fmt.Errorf("%s: setup cannot read this TOML (%v), so it writes nothing", path, err)
	}
	if conflict > 0 {
		return &ConflictError{Path: path, Key: "mcp_servers." + ServerName, Line: conflict}
	}
	if inline > 0 {
		return fmt.Errorf("%s:%d defines mcp_servers as an inline table, which setup's [mcp_servers.%s] table may not extend; nothing written (write the servers as [mcp_servers.NAME] tables, or add ours by hand)", path, inline, ServerName)
	}
	with := append(append([]byte(nil), doc...), "\n"+codexBlock()...)
	if err := toml.Unmarshal(with, &decoded); err != nil {
		return fmt.Errorf("%s: setup's [mcp_servers.%s] table would not fit this TOML (%v); nothing written (add the entry by hand)",
			path, ServerName, err)
	}
	return nil
}

// keyPath is the key of a table header or key/value node, its parts
// unquoted, and the node of its first part.
func keyPath(n *unstable.Node) ([]string, *unstable.Node) {
	var parts []string
	var first *unstable.Node
	for it := n.Key(); it.Next(); {
		k := it.Node()
		if first == nil {
			first = k
		}
		parts = append(parts, string(k.Data))
	}
	return parts, first
}

// errorLine is the line go-toml's error points at, 0 when it names none.
func errorLine(err error) int {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return row
	}
	return 0
}
