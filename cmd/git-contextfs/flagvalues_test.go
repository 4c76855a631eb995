package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestStringArrayParsesLikePflags compares the own string-array flag with
// pflag's on the same command lines: same values, same printed value and
// type name, and the same "empty default" answer in -h.
func TestStringArrayParsesLikePflags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"unset stays nil", nil},
		{"one value", []string{"--tag", "a"}},
		{"values repeat in order", []string{"--tag", "a", "-t", "b,c", "--tag=d"}},
		{"a comma stays in the value", []string{"--tag", "x,y"}},
		{"quotes and spaces print CSV-quoted", []string{"--tag", `say "hi"`, "--tag", "two words"}},
		{"an empty value counts", []string{"--tag", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got []string
			theirs := pflag.NewFlagSet("theirs", pflag.ContinueOnError)
			theirs.StringArrayVarP(&want, "tag", "t", nil, "a tag")
			ours := pflag.NewFlagSet("ours", pflag.ContinueOnError)
			stringArrayVar(ours, &got, "tag", "t", "a tag")
			if err := theirs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if err := ours.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("values %q, pflag's %q", got, want)
			}
			tf, of := theirs.Lookup("tag"), ours.Lookup("tag")
			if of.Value.String() != tf.Value.String() || of.Value.Type() != tf.Value.Type() || of.Changed != tf.Changed {
				t.Errorf("printed %q %q changed %v, pflag's %q %q %v", of.Value.String(), of.Value.Type(), of.Changed, tf.Value.String(), tf.Value.Type(), tf.Changed)
			}
			if o, th := ours.FlagUsages(), theirs.FlagUsages(); o != th {
				t.Errorf("usage\n%s\npflag's\n%s", o, th)
			}
			sv, ok := of.Value.(pflag.SliceValue)
			if !ok {
				t.Fatal("not a pflag.SliceValue")
			}
			if !slices.Equal(sv.GetSlice(), tf.Value.(pflag.SliceValue).GetSlice()) {
				t.Errorf("GetSlice %q, pflag's %q", sv.GetSlice(), tf.Value.(pflag.SliceValue).GetSlice())
			}
		})
	}
}
