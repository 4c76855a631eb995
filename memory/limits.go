package memory

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/contextfs/contextfs/internal/printable"
)

// Default limits. A memory is a note a person reads in one sitting: these
// sit far above any real one and far below what costs every search time and
// memory (a 50 MB file is read by the first search after it lands, and
// printed whole by recall).
const (
	DefaultMaxFileBytes = 512 << 10
	DefaultMaxDataDepth = 16
	DefaultMaxDataBytes = 64 << 10
	DefaultMaxTags      = 64
	DefaultMaxTagLength = 64
)

// Limits bound what one memory may hold. A zero field means its default,
// so the zero Limits are the defaults and a config file need name only
// the limits it changes.
type Limits struct {
	// MaxFileBytes bounds the size of a memory file; a larger file is
	// reported, never read.
	MaxFileBytes int64 `yaml:"max_file_bytes" json:"max_file_bytes,omitempty"`
	// MaxDataDepth bounds the nesting of data: block YAML indents every
	// level, so deep data would make a small input a huge file.
	MaxDataDepth int `yaml:"max_data_depth" json:"max_data_depth,omitempty"`
	// MaxDataBytes bounds data, measured as compact JSON.
	MaxDataBytes int `yaml:"max_data_bytes" json:"max_data_bytes,omitempty"`
	// MaxTags bounds the number of tags, MaxTagLength each tag's length
	// in characters.
	MaxTags      int `yaml:"max_tags" json:"max_tags,omitempty"`
	MaxTagLength int `yaml:"max_tag_length" json:"max_tag_length,omitempty"`
}

// WithDefaults returns l with every zero or negative field set to its
// default.
func (l Limits) WithDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxDataDepth <= 0 {
		l.MaxDataDepth = DefaultMaxDataDepth
	}
	if l.MaxDataBytes <= 0 {
		l.MaxDataBytes = DefaultMaxDataBytes
	}
	if l.MaxTags <= 0 {
		l.MaxTags = DefaultMaxTags
	}
	if l.MaxTagLength <= 0 {
		l.MaxTagLength = DefaultMaxTagLength
	}
	return l
}

// Check returns the limits m exceeds, as issues in a stable order. The
// size of m's file is checked where the file is read (see TooLargeError).
func (l Limits) Check(m *Memory) []Issue {
	l = l.WithDefaults()
	var issues []Issue
	if len(m.Tags) > l.MaxTags {
		issues = append(issues, Issue{Field: "tags", Message: fmt.Sprintf("has %d tags; at most %d are allowed", len(m.Tags), l.MaxTags)})
	}
	for i, t := range m.Tags {
		if n := utf8.RuneCountInString(t); n > l.MaxTagLength {
			issues = append(issues, Issue{Field: fmt.Sprintf("tags[%d]", i), Message: fmt.Sprintf("is %d characters long; at most %d are allowed", n, l.MaxTagLength)})
		}
	}
	if len(m.Data) == 0 {
		return issues
	}
	if d := depth(m.Data, l.MaxDataDepth+1); d > l.MaxDataDepth {
		issues = append(issues, Issue{Field: "data", Message: fmt.Sprintf("is nested more than %d levels deep", l.MaxDataDepth)})
		return issues // too deep to measure its size safely
	}
	if raw, err := json.Marshal(m.Data); err == nil && len(raw) > l.MaxDataBytes {
		issues = append(issues, Issue{Field: "data", Message: fmt.Sprintf("is %d bytes as JSON; at most %d are allowed", len(raw), l.MaxDataBytes)})
	}
	return issues
}

// depth returns the nesting depth of v (a map or slice counts one level),
// stopping once it reaches stop so that hostile input costs little.
func depth(v any, stop int) int {
	most := 0
	visit := func(c any) bool {
		if d := 1 + depth(c, stop-1); d > most {
			most = d
		}
		return most < stop
	}
	if stop <= 0 {
		return 0
	}
	switch x := v.(type) {
	case map[string]any:
		most = 1
		for _, c := range x {
			if !visit(c) {
				break
			}
		}
	case []any:
		most = 1
		for _, c := range x {
			if !visit(c) {
				break
			}
		}
	}
	return most
}

// TooLargeError is a memory file over the size limit. It is reported
// instead of read, so a huge file costs no memory.
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	return printable.Path(e.Path) + ": " + e.Reason()
}

// Reason is the error without the path, for a report that shows the path
// beside it.
func (e *TooLargeError) Reason() string {
	return fmt.Sprintf("the file is %d bytes; memory files are limited to %d bytes (limits.max_file_bytes)", e.Size, e.Limit)
}
