package agentsetup

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// codexCheck reads the user's config.toml far enough to know whether the
// block setup appends would clash with it. TOML lets mcp_servers.contextfs
// be defined as a [mcp_servers.contextfs] table (or a sub-table of it),
// with dotted keys (mcp_servers.contextfs.command = …, or
// contextfs.command = … under [mcp_servers]) or as an inline table
// (contextfs = {…} under [mcp_servers], or inside mcp_servers = {…}).
// Each is the user's own entry, and a second definition makes the file
// invalid, so Codex could no longer read its configuration at all. An
// inline mcp_servers = {…} may not be extended by a table either. A file
// setup cannot read is refused too, so that nothing is appended to TOML
// that may not parse. go.mod has no TOML parser and setup needs only keys
// and tables, so this reads values just far enough to skip them.
func codexCheck(path, s string) error {
	t := &tomlScan{s: strings.TrimPrefix(s, "\ufeff")}
	conflict, inline := 0, 0
	visit := func(key []string, at int, inlineTable bool) {
		switch {
		case len(key) >= 2 && key[0] == "mcp_servers" && key[1] == ServerName:
			if conflict == 0 {
				conflict = t.line(at)
			}
		case len(key) == 1 && key[0] == "mcp_servers" && inlineTable:
			if inline == 0 {
				inline = t.line(at)
			}
		}
	}
	if err := t.document(visit); err != nil {
		return fmt.Errorf("%s:%d: setup cannot read this TOML (%v), so it writes nothing; fix the file or add the %s entry by hand", path, t.line(t.pos), err, ServerName)
	}
	if conflict > 0 {
		return &ConflictError{Path: path, Key: "mcp_servers." + ServerName, Line: conflict}
	}
	if inline > 0 {
		return fmt.Errorf("%s:%d defines mcp_servers as an inline table, which setup's [mcp_servers.%s] table may not extend; nothing written (write the servers as [mcp_servers.NAME] tables, or add ours by hand)", path, inline, ServerName)
	}
	return nil
}

// tomlScan walks a TOML document: its table headers and its keys, with
// their full paths, and past each value.
type tomlScan struct {
	s   string
	pos int
}

// visitFunc is told each table header and each key (its full path, where
// it starts, and whether its value is an inline table).
type visitFunc func(key []string, at int, inlineTable bool)

func (t *tomlScan) line(at int) int { return strings.Count(t.s[:min(at, len(t.s))], "\n") + 1 }

func (t *tomlScan) peek() byte {
	if t.pos >= len(t.s) {
		return 0
	}
	return t.s[t.pos]
}

func (t *tomlScan) skipSpace() {
	for t.peek() == ' ' || t.peek() == '\t' {
		t.pos++
	}
}

// skipBlank skips whitespace, newlines and comments.
func (t *tomlScan) skipBlank() {
	for {
		switch t.peek() {
		case ' ', '\t', '\r', '\n':
			t.pos++
		case '#':
			t.skipComment()
		default:
			return
		}
	}
}

func (t *tomlScan) skipComment() {
	if i := strings.IndexByte(t.s[t.pos:], '\n'); i >= 0 {
		t.pos += i
	} else {
		t.pos = len(t.s)
	}
}

// endLine expects nothing but a comment before the end of the line.
func (t *tomlScan) endLine() error {
	t.skipSpace()
	if t.peek() == '#' {
		t.skipComment()
	}
	switch {
	case t.pos >= len(t.s):
	case strings.HasPrefix(t.s[t.pos:], "\r\n"):
		t.pos += 2
	case t.peek() == '\n':
		t.pos++
	default:
		return errors.New("expected the end of the line")
	}
	return nil
}

func (t *tomlScan) document(visit visitFunc) error {
	var table []string
	for {
		t.skipBlank()
		if t.pos >= len(t.s) {
			return nil
		}
		at := t.pos
		if t.peek() == '[' {
			t.pos++
			array := t.peek() == '['
			if array {
				t.pos++
			}
			key, err := t.key()
			if err != nil {
				return err
			}
			t.skipSpace()
			closing := "]"
			if array {
				closing = "]]"
			}
			if !strings.HasPrefix(t.s[t.pos:], closing) {
				return fmt.Errorf("expected %q after a table name", closing)
			}
			t.pos += len(closing)
			table = key
			visit(key, at, false)
		} else if err := t.keyValue(table, visit); err != nil {
			return err
		}
		if err := t.endLine(); err != nil {
			return err
		}
	}
}

// keyValue reads key = value in the table named by table; visit (nil
// inside arrays) is told the key's full path.
func (t *tomlScan) keyValue(table []string, visit visitFunc) error {
	at := t.pos
	key, err := t.key()
	if err != nil {
		return err
	}
	t.skipSpace()
	if t.peek() != '=' {
		return errors.New("expected = after a key")
	}
	t.pos++
	t.skipSpace()
	full := append(append([]string{}, table...), key...)
	if visit != nil {
		visit(full, at, t.peek() == '{')
	}
	return t.value(full, visit)
}

// key reads a dotted key: bare, "basic" and 'literal' parts.
func (t *tomlScan) key() ([]string, error) {
	var parts []string
	for {
		t.skipSpace()
		var part string
		var err error
		switch t.peek() {
		case '"':
			part, err = t.basicString()
		case '\'':
			part, err = t.literalString()
		default:
			start := t.pos
			for c := t.peek(); c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'; c = t.peek() {
				t.pos++
			}
			part = t.s[start:t.pos]
			if part == "" {
				err = errors.New("expected a key")
			}
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
		t.skipSpace()
		if t.peek() != '.' {
			return parts, nil
		}
		t.pos++
	}
}

// value skips a value; the keys of an inline table are told to visit
// under path.
func (t *tomlScan) value(path []string, visit visitFunc) error {
	rest := t.s[t.pos:]
	switch {
	case strings.HasPrefix(rest, `"""`):
		return t.multiLineString(`"""`)
	case strings.HasPrefix(rest, `'''`):
		return t.multiLineString(`'''`)
	case t.peek() == '"':
		_, err := t.basicString()
		return err
	case t.peek() == '\'':
		_, err := t.literalString()
		return err
	case t.peek() == '[':
		t.pos++
		for {
			t.skipBlank()
			if t.peek() == ']' {
				t.pos++
				return nil
			}
			if err := t.value(nil, nil); err != nil {
				return err
			}
			t.skipBlank()
			switch t.peek() {
			case ',':
				t.pos++
			case ']':
				t.pos++
				return nil
			default:
				return errors.New("expected , or ] in an array")
			}
		}
	case t.peek() == '{':
		t.pos++
		for {
			t.skipBlank()
			if t.peek() == '}' {
				t.pos++
				return nil
			}
			if err := t.keyValue(path, visit); err != nil {
				return err
			}
			t.skipBlank()
			switch t.peek() {
			case ',':
				t.pos++
			case '}':
				t.pos++
				return nil
			default:
				return errors.New("expected , or } in an inline table")
			}
		}
	}
	// A number, boolean or date: up to what ends a value.
	start := t.pos
	for t.pos < len(t.s) && !strings.ContainsRune(",]}#\r\n", rune(t.s[t.pos])) {
		t.pos++
	}
	if strings.TrimSpace(t.s[start:t.pos]) == "" {
		return errors.New("expected a value")
	}
	return nil
}

// basicString reads a "string" and returns its value.
func (t *tomlScan) basicString() (string, error) {
	start := t.pos
	for i := t.pos + 1; i < len(t.s); i++ {
		switch t.s[i] {
		case '\\':
			i++
		case '\n':
			return "", errors.New("a string does not end on its line")
		case '"':
			t.pos = i + 1
			raw := t.s[start:t.pos]
			if v, err := strconv.Unquote(raw); err == nil {
				return v, nil
			}
			return raw[1 : len(raw)-1], nil
		}
	}
	return "", errors.New("a string does not end")
}

// literalString reads a 'string' and returns its value.
func (t *tomlScan) literalString() (string, error) {
	end := strings.IndexAny(t.s[t.pos+1:], "'\n")
	if end < 0 || t.s[t.pos+1+end] != '\'' {
		return "", errors.New("a string does not end on its line")
	}
	v := t.s[t.pos+1 : t.pos+1+end]
	t.pos += end + 2
	return v, nil
}

// multiLineString skips a multi-line string, basic (delim """, with
// escapes) or literal (delim three single quotes). Up to two quotes right
// before the closing ones belong to the string.
func (t *tomlScan) multiLineString(delim string) error {
	for i := t.pos + 3; i < len(t.s); i++ {
		if delim == `"""` && t.s[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(t.s[i:], delim) {
			i += 3
			for k := 0; k < 2 && i < len(t.s) && t.s[i] == delim[0]; k++ {
				i++
			}
			t.pos = i
			return nil
		}
	}
	return errors.New("a multi-line string does not end")
}
