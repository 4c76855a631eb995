package check

import "testing"

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

func TestConflictLineFindsGitsMarkersNotMarkdown(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"no markers", "---\nid: a\n---\nbody\n", 0},
		{"a setext heading's underline", "---\nid: a\n---\nTitle\n=======\nbody\n", 0},
		{"a conflict", "---\nid: a\n---\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n", 4},
		{"a conflict in CRLF", "---\r\nid: a\r\n---\r\n<<<<<<< ours\r\nx\r\n=======\r\ny\r\n>>>>>>> theirs\r\n", 4},
		{"an underline before a conflict", "---\nid: a\n---\nT\n=======\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> b\n", 5},
		{"a closing marker alone", "---\nid: a\n---\nx\n>>>>>>> theirs\n", 5},
		{"a diff3 base marker", "---\nid: a\n---\n||||||| base\n", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := conflictLine([]byte(tt.text)); got != tt.want {
				t.Errorf("conflictLine = %d, want %d", got, tt.want)
			}
		})
	}
}
