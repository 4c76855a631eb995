package gitstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// configEntry is one variable of a git configuration file: section and key
// lower-cased (git compares them without case), subsection as written
// (git compares it with case). hasValue is false for a key written
// without "=", which git reads as boolean true.
type configEntry struct {
	section, subsection, key, value string
	hasValue                        bool
}

// parseConfig reads a git configuration file as git's own parser does
// (config.c: git_parse_source, get_value, parse_value) and returns its
// variables in file order. What it does not read exactly like git (the
// old "[section.subsection]" form, a subsection escape other than \" and
// \\, a key outside any section, a NUL byte, which git's C strings end
// at) and what git rejects give errNeedGit: git is the judge there.
// Include sections are returned like any other.
//
// It stands in for go-git's reader (gcfg), which disagrees with git on
// files git writes (docs/DESIGN.md, "Hand-written pieces and why").
func parseConfig(raw []byte) ([]configEntry, error) {
	if bytes.IndexByte(raw, 0) >= 0 {
		return nil, errNeedGit
	}
	p := configParser{src: bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))}
	var out []configEntry
	var section, subsection string
	comment := false
	for {
		c := p.next()
		if c == '\n' {
			if p.eof {
				return out, nil
			}
			comment = false
			continue
		}
		if comment || isConfigSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			var ok bool
			if section, subsection, ok = p.header(); !ok {
				return nil, errNeedGit
			}
			continue
		}
		if !isAlpha(c) || section == "" {
			return nil, errNeedGit
		}
		e, ok := p.variable(c)
		if !ok {
			return nil, errNeedGit
		}
		e.section, e.subsection = section, subsection
		out = append(out, e)
	}
}

type configParser struct {
	src []byte
	pos int
	eof bool
}

// next returns the next byte, "\r\n" as '\n', and '\n' at the end (with
// eof set), as git's get_next_char.
func (p *configParser) next() byte {
	if p.pos >= len(p.src) {
		p.eof = true
		return '\n'
	}
	c := p.src[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.src) && p.src[p.pos] == '\n' {
		p.pos++
		c = '\n'
	}
	return c
}

// header reads a section header after its '[': "[name]" or
// `[name "subsection"]`.
func (p *configParser) header() (section, subsection string, ok bool) {
	var name []byte
	for {
		c := p.next()
		switch {
		case c == '\n':
			return "", "", false
		case c == ']':
			return string(name), "", len(name) > 0
		case isConfigSpace(c):
			sub, ok := p.subsection()
			return string(name), sub, ok && len(name) > 0
		case isKeyChar(c):
			name = append(name, lower(c))
		default: // '.' is the old form, which lower-cases the subsection
			return "", "", false
		}
	}
}

// subsection reads ` "name"]` after a section name and a space.
func (p *configParser) subsection() (string, bool) {
	c := p.next()
	for c != '\n' && isConfigSpace(c) {
		c = p.next()
	}
	if c != '"' { // a line end too: git's "incomplete line"
		return "", false
	}
	var name []byte
	for {
		c := p.next()
		switch c {
		case '\n':
			return "", false
		case '"':
			return string(name), p.next() == ']'
		case '\\':
			c = p.next()
			if c != '"' && c != '\\' {
				return "", false
			}
		}
		name = append(name, c)
	}
}

// variable reads "key = value" or "key" whose first byte, c, is read.
func (p *configParser) variable(c byte) (configEntry, bool) {
	key := []byte{lower(c)}
	for {
		c = p.next()
		if c == '\n' || !isKeyChar(c) {
			break
		}
		key = append(key, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	e := configEntry{key: string(key)}
	if c == '\n' {
		return e, true
	}
	if c != '=' {
		return e, false
	}
	v, ok := p.value()
	e.value, e.hasValue = v, true
	return e, ok
}

// value reads a value after its '=' to the end of its line, as git's
// parse_value: leading and trailing white space dropped, each inner
// white-space byte outside quotes kept as a space, quotes removed, the
// escapes \t \b \n \\ \" read, a backslash at a line end joining the
// next line, and "#" or ";" outside quotes starting a comment.
func (p *configParser) value() (string, bool) {
	var v []byte
	quote, comment := false, false
	spaces := 0
	for {
		c := p.next()
		if c == '\n' {
			if quote {
				return "", false
			}
			return string(v), true
		}
		if comment {
			continue
		}
		if isConfigSpace(c) && !quote {
			if len(v) > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
		case '"':
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// isConfigSpace is git's isspace: space, tab, line feed, carriage return.
func isConfigSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// LocalConfigBool reads the boolean key ("section.name" or
// "section.subsection.name") from the repository's own configuration file
// (CommonDir/config, what `git config --local` reads) as
// `git config --local --type=bool --get` would, without starting git:
// set is false when the file does not set it, value is the last setting's
// meaning (a key written without "=" is true; "", false, no, off and 0 are
// false; true, yes, on and other integers are true). A file that includes
// others, that parseConfig hands over to git, or a value git would have to
// judge is an error: ask git then.
func (r *Repo) LocalConfigBool(key string) (value, set bool, err error) {
	first, last := strings.Index(key, "."), strings.LastIndex(key, ".")
	if first <= 0 || last == len(key)-1 {
		return false, false, errors.New("config key " + key + ": want section.name")
	}
	// Section and name are compared without case, the subsection with.
	section, subsection, name := strings.ToLower(key[:first]), "", strings.ToLower(key[last+1:])
	if first < last {
		subsection = key[first+1 : last]
	}
	raw, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	entries, err := parseConfig(raw)
	if err != nil {
		return false, false, err
	}
	for _, e := range entries {
		if e.section == "include" || e.section == "includeif" {
			return false, false, errNeedGit
		}
		if e.section != section || e.subsection != subsection || e.key != name {
			continue
		}
		set = true
		switch v := strings.ToLower(e.value); {
		case !e.hasValue, v == "true", v == "yes", v == "on":
			value = true
		case v == "", v == "false", v == "no", v == "off":
			value = false
		default:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return false, false, errNeedGit // "1k", or a value git refuses
			}
			value = n != 0
		}
	}
	return value, set, nil
}
