package main

import (
	"bytes"
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// stringArray is pflag's string-array flag value (repeatable, each value
// taken whole), with the same type name, parsing and printing. It exists
// because pflag formats the default of every such flag through a CSV
// writer when the flag is defined, and the command tree defines nineteen
// of them on every start: with an empty default that work is skipped.
type stringArray struct {
	value   *[]string
	changed bool
}

// stringArrayVar defines a repeatable string flag on fs, like
// fs.StringArrayVarP with a nil default. Its DefValue is "" rather than
// pflag's "[]": pflag recognises an empty default of its own type by the
// type, of any other by "", and -h must not print "(default [])"; the
// manual page prints the "[]" (manpage.flags).
func stringArrayVar(fs *pflag.FlagSet, p *[]string, name, short, usage string) {
	*p = nil
	fs.VarPF(&stringArray{value: p}, name, short, usage).DefValue = ""
}

// Set replaces the default with the first value given, then appends.
func (s *stringArray) Set(val string) error {
	if !s.changed {
		*s.value = []string{val}
		s.changed = true
	} else {
		*s.value = append(*s.value, val)
	}
	return nil
}

// Append adds a value, for completion and pflag.SliceValue users.
func (s *stringArray) Append(val string) error {
	*s.value = append(*s.value, val)
	return nil
}

// Replace sets all values at once.
func (s *stringArray) Replace(val []string) error {
	*s.value = append([]string(nil), val...)
	return nil
}

// GetSlice returns a copy of the values.
func (s *stringArray) GetSlice() []string {
	return append([]string{}, *s.value...)
}

// Type is the name help shows for the flag's argument, as pflag's.
func (s *stringArray) Type() string { return "stringArray" }

// String prints the values as pflag does: "[a,b]", CSV-quoted.
func (s *stringArray) String() string {
	if len(*s.value) == 0 {
		return "[]"
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(*s.value) // a bytes.Buffer does not fail
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}
