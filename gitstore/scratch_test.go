//go:build unix

package gitstore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRemoveStaleScratchRespectsHoldScratch: a scratch file its writer
// holds (HoldScratch) stays while the writer has it open, however old,
// and goes once the writer closes it (as a kill does); files that do not
// match, and young ones, stay.
func TestRemoveStaleScratchRespectsHoldScratch(t *testing.T) {
	old := time.Now().Add(-2 * time.Hour)
	match := func(n string) bool { return strings.HasPrefix(n, "scratch-") }
	tests := []struct {
		name     string
		file     string
		mtime    time.Time
		hold     bool
		wantGone bool
	}{
		{"old and unheld goes", "scratch-a", old, false, true},
		{"old and held stays", "scratch-b", old, true, false},
		{"young and unheld stays", "scratch-c", time.Now(), false, false},
		{"another name stays", "other-d", old, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f, err := os.Create(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if tc.hold {
				if err := HoldScratch(f); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chtimes(f.Name(), tc.mtime, tc.mtime); err != nil {
				t.Fatal(err)
			}
			removed := RemoveStaleScratch(dir, match)
			if gone := slices.Contains(removed, tc.file); gone != tc.wantGone {
				t.Errorf("removed %v, want %s gone: %v", removed, tc.file, tc.wantGone)
			}
			f.Close() // the writer is done, or was killed
			if tc.hold {
				if removed := RemoveStaleScratch(dir, match); !slices.Equal(removed, []string{tc.file}) {
					t.Errorf("after its writer closed it: removed %v, want [%s]", removed, tc.file)
				}
			}
		})
	}
}
