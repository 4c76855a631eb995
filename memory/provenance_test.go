package memory

import (
	"reflect"
	"testing"
)

func TestValidatePathsSourceAndSession(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *Memory)
		want   []Issue
	}{
		{"globs relative to the root are fine", func(m *Memory) { m.Paths = []string{"auth/**", "cmd/*.go", "go.mod"} }, nil},
		{"an absolute glob is refused", func(m *Memory) { m.Paths = []string{"/etc/passwd"} },
			[]Issue{{"paths[0]", `must be relative to the repository root; got "/etc/passwd"`}}},
		{"a glob leaving the repository is refused", func(m *Memory) { m.Paths = []string{"../x/**"} },
			[]Issue{{"paths[0]", `must not have empty, . or .. segments; got "../x/**"`}}},
		{"a malformed glob is refused", func(m *Memory) { m.Paths = []string{"auth/[a"} },
			[]Issue{{"paths[0]", `is not a valid glob (syntax error in pattern); got "auth/[a"`}}},
		{"a repeated glob is refused", func(m *Memory) { m.Paths = []string{"a/**", "a/**"} },
			[]Issue{{"paths[1]", "repeats paths[0]"}}},
		{"a full source is fine", func(m *Memory) { m.Source = &Source{Tool: "claude-code", Model: "opus", Session: "s1abcd"} }, nil},
		{"a multi-line tool is refused", func(m *Memory) { m.Source = &Source{Tool: "a\nb"} },
			[]Issue{{"source.tool", `must be one line without surrounding spaces; got "a\nb"`}}},
		{"a malformed source session is refused", func(m *Memory) { m.Source = &Source{Session: "No Way"} },
			[]Issue{{"source.session", `must be a session ID: 4 to 64 characters of a-z, 0-9, "-" or "_"; got "No Way"`}}},
		{"a malformed session is refused", func(m *Memory) { m.Session = "x" },
			[]Issue{{"session", `must be a session ID: 4 to 64 characters of a-z, 0-9, "-" or "_"; got "x"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validMemory()
			tt.change(m)
			if got := Validate(m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate = %v, want %v", got, tt.want)
			}
		})
	}
}
