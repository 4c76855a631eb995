package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestSaveRefusesDataOverTheLimits saves hostile --data through the real
// binary: deep nesting that block YAML would blow up to ~100 MB, data
// over the size limit, and too many or too long tags. Each must be
// refused quickly with exit 1 and leave no file behind.
func TestSaveRefusesDataOverTheLimits(t *testing.T) {
	dir := testgit.Init(t)
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	manyTags := ""
	for i := range 70 {
		manyTags += "tag" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ","
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"data nested 10,000 levels deep", []string{"--data", deep}, "nested more than"},
		{"data over 64 KiB", []string{"--data", `{"x":"` + strings.Repeat("y", 70<<10) + `"}`}, "bytes as JSON"},
		{"more than 64 tags", []string{"--tag", strings.TrimSuffix(manyTags, ",")}, "at most 64"},
		{"a tag over 64 characters", []string{"--tag", strings.Repeat("t", 65)}, "characters long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			args := append([]string{"save", "--type", "fact", "--title", "Limits"}, c.args...)
			r := cli(t, dir, "", append(args, "A fact.")...)
			if r.code != 1 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 naming %q", r.code, r.stderr, c.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refusing took %v", d)
			}
			files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*"))
			if len(files) != 0 {
				t.Fatalf("files left behind: %v", files)
			}
		})
	}
}

// TestOverSizeMemoryIsReportedNotLoaded writes a 2 MB memory file by hand:
// validate names it as a size problem (exit 1), recall refuses it, and
// search still answers from the other memories with a notice.
func TestOverSizeMemoryIsReportedNotLoaded(t *testing.T) {
	dir := testgit.Init(t)
	ok(t, dir, "save", "--type", "fact", "--title", "Small", "The build uses a shared cache.")
	big := "---\nid: bigbigbig1\ntype: fact\ntitle: Big\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n" +
		strings.Repeat("shared cache filler line\n", 90000)
	if err := os.WriteFile(filepath.Join(dir, ".contextfs", "memories", "big-bigbigbig1.md"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cli(t, dir, "", "validate")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "big-bigbigbig1.md") || !strings.Contains(r.stdout+r.stderr, "limited to") {
		t.Fatalf("validate: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = cli(t, dir, "", "search", "shared cache")
	if r.code != 0 || !strings.Contains(r.stdout, "Small") || strings.Contains(r.stdout, "Big") || !strings.Contains(r.stderr, "limited to") {
		t.Fatalf("search: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
