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

func TestNormalizeSpellsOutContractionsAndDropsPossessives(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"n't becomes not", "why didn't the retry fire", "why did not the retry fire"},
		{"can't and won't are irregular", "we can't and won't", "we cannot and will not"},
		{"a typographic apostrophe", "it doesn’t scale", "it does not scale"},
		{"it's is it is", "it's slow", "it is slow"},
		{"a possessive goes", "the team's release procedure", "the team release procedure"},
		{"re, ve, ll, d and m", "we're, we've, we'll, we'd, I'm", "we are, we have, we will, we would, I am"},
		{"case is kept", "Didn't WORK", "Did not WORK"},
		{"text without apostrophes is unchanged", `"NotFound hit" -redis OR pool*`, `"NotFound hit" -redis OR pool*`},
		{"a quote around a word is not a contraction", "the 'main' branch", "the 'main' branch"},
		{"a trailing apostrophe stays", "the users' keys", "the users' keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
