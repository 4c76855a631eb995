package autoindex

import "testing"

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"*.pb.go", "api/v1/x.pb.go", true},
		{"*.pb.go", "api/v1/x.go", false},
		{"testdata/**", "testdata/a/b.go", true},
		{"testdata/**", "src/testdata/a.go", false},
		{"**/fixtures/*.json", "a/b/fixtures/x.json", true},
		{"**/fixtures/*.json", "fixtures/x.json", true},
		{"docs/*.md", "docs/a/b.md", false},
		{"/vendor/**", "vendor/x.go", true},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.glob, tt.path); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}
