package hooks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckRegularRefusesAGlobalConfigThatIsNotAFile: git config writes
// by renaming a new file over the old, so a global config that is a
// device (GIT_CONFIG_GLOBAL=/dev/null) or a folder is never written.
func TestCheckRegularRefusesAGlobalConfigThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(file, []byte("[user]\n\tname = Ada\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		refused bool
	}{
		{"a file that does not exist yet", filepath.Join(dir, "none"), false},
		{"a regular file", file, false},
		{"a device", os.DevNull, true},
		{"a folder", dir, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkRegular(tt.path); (err != nil) != tt.refused {
				t.Errorf("checkRegular(%s) = %v, want refused %v", tt.path, err, tt.refused)
			}
		})
	}
}
