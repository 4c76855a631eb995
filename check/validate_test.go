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
