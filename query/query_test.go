package query

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in         string
		plain            string
		require, exclude string
		syntax           bool
	}{
		{"plain words rank and require nothing", "retry failed uploads", "retry failed uploads", "", "", false},
		{"a quoted phrase is required", `"connection pool" size`, "connection pool size", `("connection pool")`, "", true},
		{"a prefix matches what it begins", "conn* pool", "conn pool", "", "", true},
		{"a minus excludes a word", "pool -redis", "pool", "", `"redis"`, true},
		{"a minus excludes a phrase", `pool -"read replica"`, "pool", "", `"read replica"`, true},
		{"OR makes alternatives of which one is required", "postgres OR mysql pool", "postgres mysql pool", `("postgres" OR "mysql")`, "", true},
		{"a hyphenated word is not an exclusion", "real-time sync", "real time sync", "", "", false},
		{"an unclosed quote runs to the end", `"open ended`, "open ended", `("open ended")`, "", true},
		{"lone operators are ignored", "- * OR", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Parse(tt.in)
			req, ex := q.Match()
			got := []any{q.Plain, req, ex, q.Syntax()}
			want := []any{tt.plain, tt.require, tt.exclude, tt.syntax}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse(%q): plain, require, exclude, syntax = %q, want %q", tt.in, got, want)
			}
		})
	}
}
