package check

import (
	"slices"
	"testing"
)

func TestProblemStringNamesTheRuleOnce(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"a rule and a field issue", Problem{Path: "a.md", Line: 4, Rule: "field", Message: "title: is required"},
			"a.md:4: field: title: is required"},
		{"a message starting with its rule", Problem{Path: "a.md", Line: 3, Rule: "type", Message: `type: unknown type "nosuch"`},
			`a.md:3: type: unknown type "nosuch"`},
		{"no line", Problem{Path: "a.md", Rule: "conflict", Message: "unresolved merge conflict marker"},
			"a.md: conflict: unresolved merge conflict marker"},
		{"a rule named inside the message only", Problem{Path: "a.md", Rule: "link", Message: "links[0]: no memory link: x"},
			"a.md: link: links[0]: no memory link: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConflictLinesFindEveryConflictNotMarkdown(t *testing.T) {
	const two = "---\nid: a\n---\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\nkept\n<<<<<<< ours\nv\n=======\nw\n>>>>>>> theirs\n"
	tests := []struct {
		name string
		text string
		want []int
	}{
		{"no markers", "---\nid: a\n---\nbody\n", nil},
		{"a setext heading's underline", "---\nid: a\n---\nTitle\n=======\nbody\n", nil},
		{"a conflict", "---\nid: a\n---\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n", []int{4}},
		{"a conflict in CRLF", "---\r\nid: a\r\n---\r\n<<<<<<< ours\r\nx\r\n=======\r\ny\r\n>>>>>>> theirs\r\n", []int{4}},
		{"an underline before a conflict is not part of it", "---\nid: a\n---\nT\n=======\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> b\n", []int{6}},
		{"two conflicts, one line each", two, []int{4, 10}},
		{"a diff3 conflict", "---\nid: a\n---\n<<<<<<< ours\nx\n||||||| base\no\n=======\ny\n>>>>>>> theirs\n", []int{4}},
		{"a conflict left without its end", "---\nid: a\n---\n<<<<<<< ours\nx\n=======\ny\n", []int{4}},
		{"a closing marker alone", "---\nid: a\n---\nx\n>>>>>>> theirs\n", []int{5}},
		{"a conflict that lost its opening marker, at its first marker left", "---\nid: a\n---\nx\n=======\ny\n>>>>>>> theirs\n", []int{5}},
		{"a diff3 base marker", "---\nid: a\n---\n||||||| base\n", []int{4}},
		{"a conflict, then one that lost its opening marker", "---\nid: a\n---\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\nz\n=======\nw\n>>>>>>> theirs\n", []int{4, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := conflictLines([]byte(tt.text)); !slices.Equal(got, tt.want) {
				t.Errorf("conflictLines = %v, want %v", got, tt.want)
			}
		})
	}
}
