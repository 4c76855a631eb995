package memory

import (
	"strings"
	"testing"
)

func nested(n int) any {
	var v any = "leaf"
	for range n {
		v = map[string]any{"a": v}
	}
	return v
}

// TestLimitsCheck checks each limit at and past its bound.
func TestLimitsCheck(t *testing.T) {
	tags := func(n, l int) []string {
		var out []string
		for i := range n {
			out = append(out, strings.Repeat("x", l-1)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
		}
		return out
	}
	cases := []struct {
		name   string
		m      Memory
		limits Limits
		want   string // "" means no issue
	}{
		{"data at the default depth passes", Memory{Data: map[string]any{"x": nested(DefaultMaxDataDepth - 1)}}, Limits{}, ""},
		{"data one level too deep fails", Memory{Data: map[string]any{"x": nested(DefaultMaxDataDepth)}}, Limits{}, "nested more than 16"},
		{"data 10,000 levels deep fails", Memory{Data: map[string]any{"x": nested(10000)}}, Limits{}, "nested more than"},
		{"a configured depth is used", Memory{Data: map[string]any{"x": nested(3)}}, Limits{MaxDataDepth: 3}, "nested more than 3"},
		{"data over the size fails", Memory{Data: map[string]any{"x": strings.Repeat("y", DefaultMaxDataBytes)}}, Limits{}, "bytes as JSON"},
		{"64 tags pass", Memory{Tags: tags(64, 3)}, Limits{}, ""},
		{"65 tags fail", Memory{Tags: tags(65, 3)}, Limits{}, "at most 64"},
		{"a 65-character tag fails", Memory{Tags: []string{strings.Repeat("t", 65)}}, Limits{}, "65 characters long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			issues := c.limits.Check(&c.m)
			if c.want == "" {
				if len(issues) > 0 {
					t.Fatalf("unexpected issues %v", issues)
				}
				return
			}
			if len(issues) == 0 || !strings.Contains(issues[0].Message, c.want) {
				t.Fatalf("issues %v, want one saying %q", issues, c.want)
			}
		})
	}
}
