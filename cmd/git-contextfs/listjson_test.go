package main

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/scope"
)

// entriesJSON writes es as list --json does: with the hand-written
// encoder when fast, else with the reflective one alone.
func entriesJSON(t *testing.T, es []scope.Entry, fast bool) string {
	t.Helper()
	var b bytes.Buffer
	f := appendEntryJSON
	if !fast {
		f = nil
	}
	if err := streamJSON(&b, seqOf(es), f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEntryJSONIsTheReflectiveEncoders compares, byte for byte, what the
// hand-written encoder of list --json writes with what encoding/json
// writes for the same entries: empty and omitted fields, every control
// character, quotes and markup, separators, invalid UTF-8, times of every
// kind (zero, fractional, another zone, out of range), and random ones.
func TestEntryJSONIsTheReflectiveEncoders(t *testing.T) {
	var ctl strings.Builder
	for b := range 0x20 {
		ctl.WriteByte(byte(b))
	}
	ctl.WriteString("\x7f\"\\/<>&'")
	utc := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	full := contextfs.Entry{ID: "abc", Kind: "memory", Type: "decision", Title: "T", Summary: "S", Tags: []string{"a", "b"},
		Path: ".contextfs/memories/a.md", Updated: utc, Author: "A <a@b.c>", Status: "accepted"}
	with := func(f func(*contextfs.Entry)) scope.Entry {
		e := full
		f(&e)
		return scope.Entry{Entry: e, Scope: scope.Repo}
	}
	tests := []struct {
		name string
		es   []scope.Entry
	}{
		{"nothing", nil},
		{"every field", []scope.Entry{{Entry: full, Scope: scope.User}}},
		{"empty fields omitted or written", []scope.Entry{{}}},
		{"empty tag list", []scope.Entry{with(func(e *contextfs.Entry) { e.Tags = []string{} })}},
		{"one empty tag", []scope.Entry{with(func(e *contextfs.Entry) { e.Tags = []string{""} })}},
		{"control characters, quotes and markup", []scope.Entry{with(func(e *contextfs.Entry) { e.Title, e.Tags = ctl.String(), []string{ctl.String()} })}},
		{"separators and other scripts", []scope.Entry{with(func(e *contextfs.Entry) { e.Summary = "a\u2028b\u2029c 日本語 🚀 e\u0301 \ufeff \ufffd" })}},
		{"invalid UTF-8", []scope.Entry{with(func(e *contextfs.Entry) {
			e.Title, e.Author = "bad \xff byte \xe2\x80 cut \xed\xa0\x80 surrogate", "\xc0\xaf"
		})}},
		{"fractional seconds", []scope.Entry{with(func(e *contextfs.Entry) { e.Updated = utc.Add(123456789) })}},
		{"another zone", []scope.Entry{with(func(e *contextfs.Entry) { e.Updated = utc.In(time.FixedZone("X", 5*3600+1800)) })}},
		{"local time", []scope.Entry{with(func(e *contextfs.Entry) { e.Updated = utc.Local() })}},
		{"year zero", []scope.Entry{with(func(e *contextfs.Entry) { e.Updated = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC) })}},
		{"several", []scope.Entry{{Entry: full}, with(func(e *contextfs.Entry) { e.Summary = "" }), {Entry: full, Scope: scope.User}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := entriesJSON(t, tc.es, true), entriesJSON(t, tc.es, false); got != want {
				t.Errorf("hand-written:\n%s\nreflective:\n%s", got, want)
			}
		})
	}
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		str := func() string {
			b := make([]byte, r.IntN(12))
			for i := range b {
				switch r.IntN(4) {
				case 0:
					b[i] = byte(r.IntN(256))
				case 1:
					b[i] = byte(r.IntN(0x20))
				default:
					b[i] = byte(0x20 + r.IntN(0x5f))
				}
			}
			s := string(b)
			if r.IntN(3) == 0 {
				s += string(rune(r.IntN(utf8.MaxRune + 1)))
			}
			return s
		}
		var es []scope.Entry
		for range 2000 {
			e := scope.Entry{Entry: contextfs.Entry{ID: str(), Kind: str(), Type: str(), Title: str(), Summary: str(), Path: str(),
				Author: str(), Status: str()}, Scope: scope.Scope(str())}
			for range r.IntN(3) {
				e.Tags = append(e.Tags, str())
			}
			if r.IntN(4) > 0 {
				e.Updated = time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9)*int64(r.IntN(2))).UTC()
			}
			es = append(es, e)
		}
		if got, want := entriesJSON(t, es, true), entriesJSON(t, es, false); got != want {
			t.Fatalf("hand-written and reflective output differ")
		}
	})
}

// TestEntryJSONLeavesOutOfRangeTimesToTheReflectiveEncoder: a year past
// 9999 cannot be written as RFC 3339, and list --json fails on it as
// encoding/json does rather than printing something else.
func TestEntryJSONLeavesOutOfRangeTimesToTheReflectiveEncoder(t *testing.T) {
	e := scope.Entry{Entry: contextfs.Entry{ID: "a", Updated: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if _, ok := appendEntryJSON(nil, e); ok {
		t.Fatal("the hand-written encoder wrote a year past 9999")
	}
	var b bytes.Buffer
	if err := streamJSON(&b, seqOf([]scope.Entry{e}), appendEntryJSON); err == nil {
		t.Fatalf("no error for a year past 9999; wrote %q", b.String())
	}
}

// FuzzEntryJSON is TestEntryJSONIsTheReflectiveEncoders on any strings.
func FuzzEntryJSON(f *testing.F) {
	f.Add("id", "title", "tag", "summary", int64(0))
	f.Add("\x00\xff", "\u2028<&>", "\"\\", "\xed\xa0\x80", int64(1714557600))
	f.Fuzz(func(t *testing.T, id, title, tag, summary string, unix int64) {
		e := scope.Entry{Entry: contextfs.Entry{ID: id, Title: title, Tags: []string{tag}, Summary: summary}, Scope: scope.Repo}
		if unix != 0 {
			e.Updated = time.Unix(unix, 0).UTC()
		}
		es := []scope.Entry{e}
		var fast, slow bytes.Buffer
		errFast := streamJSON(&fast, seqOf(es), appendEntryJSON)
		errSlow := streamJSON(&slow, seqOf(es), nil)
		if (errFast == nil) != (errSlow == nil) || fast.String() != slow.String() {
			t.Fatalf("hand-written (%v):\n%s\nreflective (%v):\n%s", errFast, fast.String(), errSlow, slow.String())
		}
	})
}
