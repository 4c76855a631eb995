package pathglob

import (
	"slices"
	"strings"
	"testing"
)

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

func TestRootsCoverEveryFileTheGlobsMatch(t *testing.T) {
	tests := []struct {
		name  string
		globs []string
		want  []string
	}{
		{"a folder glob is its folder", []string{"auth/**"}, []string{"auth"}},
		{"a file is itself", []string{"go.mod"}, []string{"go.mod"}},
		{"a pattern segment ends the prefix", []string{"cmd/*/main.go", "docs/a?.md"}, []string{"cmd", "docs"}},
		{"nested roots fold into the outer one", []string{"auth/jwt/*.go", "auth/**", "authz/x"}, []string{"auth", "authz/x"}},
		{"a glob that may match anywhere narrows nothing", []string{"auth/**", "**/*.go"}, nil},
		{"a leading pattern narrows nothing", []string{"*.md"}, nil},
		{"dot segments narrow nothing", []string{"./auth/**"}, nil},
	}
	files := []string{"auth/token.go", "auth/jwt/sign.go", "authz/x", "cmd/a/main.go", "docs/ab.md", "go.mod", "main.go", "README.md"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Roots(tt.globs)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Roots(%q) = %q, want %q", tt.globs, got, tt.want)
			}
			// The point of Roots: a matched file lies below one of them.
			for _, f := range files {
				if !Any(tt.globs, []string{f}) || got == nil {
					continue
				}
				if !slices.ContainsFunc(got, func(r string) bool { return f == r || strings.HasPrefix(f, r+"/") }) {
					t.Errorf("%s matches %q but lies below none of %q", f, tt.globs, got)
				}
			}
		})
	}
}
