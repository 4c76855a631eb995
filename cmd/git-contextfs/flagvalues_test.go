package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestStringArrayFlagsTakeEachValueWhole checks the repeatable flags'
// reading: values in order, each whole (commas and quotes kept for the
// commands that split them), nil when unset, and no "(default [])" in -h.
func TestStringArrayFlagsTakeEachValueWhole(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unset stays nil", nil, nil},
		{"one value", []string{"--tag", "a"}, []string{"a"}},
		{"values repeat in order", []string{"--tag", "a", "-t", "b,c", "--tag=d"}, []string{"a", "b,c", "d"}},
		{"a comma stays in the value", []string{"--tag", "x,y"}, []string{"x,y"}},
		{"quotes and spaces are kept", []string{"--tag", `say "hi"`, "--tag", "two words"}, []string{`say "hi"`, "two words"}},
		{"an empty value counts", []string{"--tag", ""}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			stringArrayVar(fs, &got, "tag", "t", "a tag")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("values %q, want %q", got, tt.want)
			}
			if u := fs.FlagUsages(); strings.Contains(u, "default") {
				t.Errorf("-h prints a default for an empty flag: %s", u)
			}
		})
	}
}
