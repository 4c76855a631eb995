package pathglob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		glob, file string
		want       bool
	}{
		{"auth/**", "auth/token.go", true},
		{"auth/**", "auth/jwt/sign.go", true},
		{"auth/**", "docs/auth.md", false},
		{"auth", "auth/token.go", true},
		{"auth/", "auth/token.go", true},
		{"auth/*.go", "auth/token.go", true},
		{"auth/*.go", "auth/jwt/sign.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "a/b/c.md", false},
		{"cmd/**/main.go", "cmd/main.go", true},
		{"cmd/**/main.go", "cmd/x/y/main.go", true},
		{"go.mod", "go.mod", true},
		{"go.mod", "go.sum", false},
		{"docs/[a", "docs/a", false},
		{"**", "anything/at/all", true},
	}
	for _, tt := range tests {
		if got := Match(tt.glob, tt.file); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.glob, tt.file, got, tt.want)
		}
	}
}

func TestAnyNeedsOneGlobToCoverOneFile(t *testing.T) {
	if !Any([]string{"docs/**", "auth/**"}, []string{"README.md", "auth/token.go"}) {
		t.Error("auth/** should cover auth/token.go")
	}
	if Any([]string{"auth/**"}, []string{"docs/x.md"}) || Any(nil, []string{"a"}) || Any([]string{"a"}, nil) {
		t.Error("Any matched where no glob covers a file")
	}
}
