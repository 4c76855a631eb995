package secrets

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/contextfs/contextfs/internal/printable"
)

// AllowMarker is the text that, anywhere on a line, stops the line from being
// reported. It is meant to be written in a comment next to a known false
// positive, where reviewers see it.
const AllowMarker = "contextfs:allow-secret"

// Finding is one suspected secret. It never holds the secret itself, so it
// can be printed, logged and serialized safely.
type Finding struct {
	Path        string `json:"path"`
	Line        int    `json:"line"`        // 1-based
	Column      int    `json:"column"`      // 1-based byte column of the secret's first byte
	Rule        string `json:"rule"`        // stable ID, such as "aws-access-key-id"
	Description string `json:"description"` // for people, such as "AWS access key ID"
	// Redacted is the secret with all but its first four characters
	// replaced by '*', one per character, enough to recognize the value
	// without disclosing it. Secrets shorter than 12 characters show only
	// their first third.
	Redacted string `json:"redacted"`
	// Fingerprint identifies the rule and the secret, independently of where
	// the secret is: the first 16 hex digits of the SHA-256 of
	// rule + ":" + secret. Listing it in Allow.Fingerprints allows a known
	// false positive.
	Fingerprint string `json:"fingerprint"`
}

// String formats f the way compilers report errors, so that editors and
// terminals can jump to it: "path:line:col: rule: description (redacted)".
func (f Finding) String() string {
	if f.Line == 0 { // found in the path itself, not in the content
		return fmt.Sprintf("%s: %s: %s (%s)", printable.Path(f.Path), f.Rule, f.Description, f.Redacted)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s (%s)", printable.Path(f.Path), f.Line, f.Column, f.Rule, f.Description, f.Redacted)
}

// Allow lists the exceptions a Scanner makes. The package documentation
// describes when to use each.
type Allow struct {
	// Fingerprints are Finding.Fingerprint values that are not reported.
	// They are compared without regard to case.
	Fingerprints []string
	// Patterns are regular expressions in the syntax of package regexp,
	// matched against the secret text of a finding; a finding whose secret
	// they match anywhere is not reported.
	Patterns []string
	// Paths are path.Match globs of files that are not scanned, matched
	// against the slash-separated path given to Scan. A glob without a
	// slash is also matched against the path's last element.
	Paths []string
}

// Scanner finds secrets in files. It does not change after NewScanner
// returns it, so one Scanner may be used by many goroutines at once. The
// zero Scanner scans everything with no exceptions.
type Scanner struct {
	fingerprints map[string]bool
	patterns     []*regexp.Regexp
	paths        []string
}

// NewScanner returns a Scanner that skips what allow lists. It reports every
// invalid pattern and glob in allow at once, so that a configuration can be
// fixed in one go; a Scanner that silently ignored a broken exception would
// block commits for no visible reason. The errors name the entry but not
// this package, since the caller knows which configuration file held it.
func NewScanner(allow Allow) (*Scanner, error) {
	s := &Scanner{fingerprints: make(map[string]bool, len(allow.Fingerprints))}
	var errs []error
	for _, fp := range allow.Fingerprints {
		s.fingerprints[strings.ToLower(strings.TrimSpace(fp))] = true
	}
	for _, p := range allow.Patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("allow pattern %q: %w", p, err))
			continue
		}
		s.patterns = append(s.patterns, re)
	}
	for _, g := range allow.Paths {
		if _, err := path.Match(g, ""); err != nil {
			errs = append(errs, fmt.Errorf("allow path %q: %w", g, err))
			continue
		}
		s.paths = append(s.paths, g)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Scan returns the suspected secrets in content, the text of the file at
// path, sorted by line and column. It returns nil when path is allowed or
// nothing is found. The path is only matched against Allow.Paths and copied
// into the findings; the file is not read.
func (s *Scanner) Scan(path string, content []byte) []Finding {
	if s.skipPath(path) {
		return nil
	}
	var out []Finding
	for _, m := range scan(content) {
		if s.allowed(m) {
			continue
		}
		out = append(out, Finding{
			Path:        path,
			Line:        m.line + 1,
			Column:      m.start + 1,
			Rule:        m.rule.id,
			Description: m.rule.desc,
			Redacted:    redact(m.secret),
			Fingerprint: fingerprint(m.rule.id, m.ident),
		})
	}
	return out
}

// skipPath reports whether name matches one of the Allow.Paths globs.
func (s *Scanner) skipPath(name string) bool {
	if len(s.paths) == 0 {
		return false
	}
	name = filepath.ToSlash(name)
	base := path.Base(name)
	for _, g := range s.paths {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
		if !strings.Contains(g, "/") {
			if ok, _ := path.Match(g, base); ok {
				return true
			}
		}
	}
	return false
}

// allowed reports whether an allow list exempts m.
func (s *Scanner) allowed(m match) bool {
	if s.fingerprints[fingerprint(m.rule.id, m.ident)] {
		return true
	}
	for _, re := range s.patterns {
		if re.MatchString(m.secret) {
			return true
		}
	}
	return false
}

// fingerprint is the Finding.Fingerprint of the secret ident found by rule.
func fingerprint(rule, ident string) string {
	sum := sha256.Sum256([]byte(rule + ":" + ident))
	return hex.EncodeToString(sum[:8])
}

// redact masks all but the first four characters of s, keeping at most a
// third of them so that short passwords are not half disclosed. It works on
// runes so that the result is valid UTF-8 with one '*' per hidden character.
func redact(s string) string {
	r := []rune(s)
	keep := min(4, len(r)/3)
	return string(r[:keep]) + strings.Repeat("*", len(r)-keep)
}

// match is a secret found by a rule, before the allow lists apply.
type match struct {
	rule       *rule
	line       int    // 0-based line number
	start, end int    // byte offsets of the secret within its line
	secret     string // the secret text
	ident      string // what the fingerprint is computed over; usually secret
}

// scan runs every rule over content and returns what they find, sorted, with
// findings of a less specific rule dropped where a more specific one covers
// the same text.
func scan(content []byte) []match { return scanCounting(content, nil) }

// anchorRef is one anchor of one rule, filed under its pivot byte.
type anchorRef struct {
	rule int // index in rules()
	lit  []byte
	off  int // index of the pivot byte in lit
}

// anchorTable files every rule's anchors under their pivot bytes, so that
// one pass over a file finds the anchors of all rules.
var anchorTable = sync.OnceValue(func() *[256][]anchorRef {
	var t [256][]anchorRef
	for i, r := range rules() {
		for _, a := range r.anchors {
			p := a.lit[a.pivot]
			t[p] = append(t[p], anchorRef{rule: i, lit: a.lit, off: a.pivot})
		}
	}
	return &t
})

// maxRest bounds the text after a candidate that a check may read: more
// than any armored key, and small enough that a file of many candidates
// stays linear to scan.
const maxRest = 64 << 10

// scanCounting is scan, adding to *work (when not nil) the number of bytes
// it handed to each step: the pass over the file, every line given to a
// rule's finder, every window given to a check. A test compares the work at
// two sizes to show that scanning is linear without timing it.
//
// One pass over content finds the anchors of every rule, looking up each
// byte in a table of the anchors' rarest bytes. A rule runs only on the
// lines holding one of its anchors: most text holds no anchor of most
// rules, so most of the regular expressions never run, and those that do
// run on a line rather than on the file.
func scanCounting(content []byte, work *int) []match {
	rs := rules()
	tab := anchorTable()
	count := func(n int) {
		if work != nil {
			*work += n
		}
	}
	count(len(content))
	type hit struct{ rule, line int }
	var (
		hits []hit
		last = make([]int, len(rs)) // per rule, the line of its last hit
	)
	for i := range last {
		last[i] = -1
	}
	line := 0
	for i, b := range content {
		if b == '\n' {
			line++
			continue
		}
		for _, ref := range tab[b] {
			if last[ref.rule] == line {
				continue
			}
			st := i - ref.off
			end := st + len(ref.lit)
			// Comparing the first and last bytes first rules out most
			// anchors sharing a pivot without a call.
			if st >= 0 && end <= len(content) && content[st] == ref.lit[0] && content[end-1] == ref.lit[len(ref.lit)-1] &&
				bytes.Equal(content[st:end], ref.lit) {
				last[ref.rule] = line
				hits = append(hits, hit{ref.rule, line})
			}
		}
	}
	if len(hits) == 0 {
		return nil
	}
	starts := lineStarts(content)
	// Rule by rule, in the rules' order; lines ascend within a rule.
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.rule, b.rule) })
	var found []match
	for _, h := range hits {
		r := &rs[h.rule]
		li := h.line
		lo, hi := starts[li], lineEnd(content, starts, li)
		line := content[lo:hi]
		if bytes.Contains(line, allowMarker) {
			continue
		}
		count(len(line))
		for _, sp := range r.find(line) {
			c := candidate{
				prefix: line[sp.start:sp.secretStart],
				secret: string(line[sp.secretStart:sp.secretEnd]),
				rest:   content[lo+sp.secretEnd : min(len(content), lo+sp.secretEnd+maxRest)],
				before: content[max(0, lo+sp.secretStart-8<<10) : lo+sp.secretStart],
			}
			count(len(c.rest) + len(c.before))
			ident, ok := c.secret, true
			if r.check != nil {
				ident, ok = r.check(c)
			}
			if ok {
				found = append(found, match{rule: r, line: li, start: sp.secretStart, end: sp.secretEnd, secret: c.secret, ident: ident})
			}
		}
	}
	slices.SortFunc(found, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.start, b.start), strings.Compare(a.rule.id, b.rule.id))
	})
	return dropShadowed(found)
}

var allowMarker = []byte(AllowMarker)

// dropShadowed removes each match that overlaps a match of a more specific
// rule on the same line, such as the generic rule's report of a GitHub token
// assigned to GITHUB_TOKEN, so that one secret is reported once, under its
// most telling name. ms must be sorted by line and start.
func dropShadowed(ms []match) []match {
	kept := ms[:0:0]
	var maxEnd [rankVendor + 1]int // per rank, the furthest end of the line's earlier matches
	for i, m := range ms {
		if i == 0 || ms[i-1].line != m.line {
			maxEnd = [len(maxEnd)]int{}
		}
		shadowed := false
		for r := m.rule.rank + 1; r < len(maxEnd); r++ {
			shadowed = shadowed || maxEnd[r] > m.start
		}
		for j := i + 1; !shadowed && j < len(ms) && ms[j].line == m.line && ms[j].start < m.end; j++ {
			shadowed = ms[j].rule.rank > m.rule.rank
		}
		if !shadowed {
			kept = append(kept, m)
		}
		maxEnd[m.rule.rank] = max(maxEnd[m.rule.rank], m.end)
	}
	return kept
}

// lineStarts returns the offset at which each line of b starts.
func lineStarts(b []byte) []int {
	starts := make([]int, 1, bytes.Count(b, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return starts
		}
		off += i + 1
		starts = append(starts, off)
	}
}

// lineEnd returns the offset of the newline ending line li, or len(b) for an
// unterminated last line.
func lineEnd(b []byte, starts []int, li int) int {
	if li+1 < len(starts) {
		return starts[li+1] - 1
	}
	return len(b)
}
