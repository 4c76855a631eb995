package main

import (
	"time"
	"unicode/utf8"

	"github.com/contextfs/contextfs/internal/workflow"
)

// appendEntryJSON appends e as streamJSON's reflective encoder writes it
// as an element of the array (v1 semantics, no HTML escaping, indented
// by two spaces under a two-space prefix, without the prefix of its first
// line), and reports whether it could: a time that is not UTC or outside
// the years 0 to 9999 is left to the reflective encoder, which formats it
// or fails as printJSON would. At 10,000 memories the reflective encoder
// was a tenth of list --json --all's time; this one a fiftieth.
// TestEntryJSONIsTheReflectiveEncoders checks the bytes are the same.
func appendEntryJSON(dst []byte, e workflow.Entry) ([]byte, bool) {
	if !e.Updated.IsZero() && (e.Updated.Location() != time.UTC || e.Updated.Year() < 0 || e.Updated.Year() > 9999) {
		return dst, false
	}
	dst = append(dst, "{\n    \"id\": "...)
	dst = appendJSONString(dst, e.ID)
	dst = append(dst, ",\n    \"kind\": "...)
	dst = appendJSONString(dst, e.Kind)
	dst = append(dst, ",\n    \"type\": "...)
	dst = appendJSONString(dst, e.Type)
	dst = append(dst, ",\n    \"title\": "...)
	dst = appendJSONString(dst, e.Title)
	if e.Summary != "" {
		dst = append(dst, ",\n    \"summary\": "...)
		dst = appendJSONString(dst, e.Summary)
	}
	if len(e.Tags) > 0 {
		dst = append(dst, ",\n    \"tags\": ["...)
		for i, t := range e.Tags {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, "\n      "...)
			dst = appendJSONString(dst, t)
		}
		dst = append(dst, "\n    ]"...)
	}
	dst = append(dst, ",\n    \"path\": "...)
	dst = appendJSONString(dst, e.Path)
	if !e.Updated.IsZero() {
		dst = append(dst, ",\n    \"updated\": \""...)
		dst = e.Updated.AppendFormat(dst, time.RFC3339Nano)
		dst = append(dst, '"')
	}
	if e.Author != "" {
		dst = append(dst, ",\n    \"author\": "...)
		dst = appendJSONString(dst, e.Author)
	}
	if e.Status != "" {
		dst = append(dst, ",\n    \"status\": "...)
		dst = appendJSONString(dst, e.Status)
	}
	dst = append(dst, ",\n    \"scope\": "...)
	dst = appendJSONString(dst, string(e.Scope))
	return append(dst, "\n  }"...), true
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json (v1
// semantics, HTML not escaped) writes it: quote, backslash and control
// characters escaped (\b, \f, \n, \r and \t by name), U+2028 and U+2029
// escaped, each byte of invalid UTF-8 replaced by U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
