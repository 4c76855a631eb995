package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestSaveRefusesDataOverTheLimits saves hostile --data through the real
// binary: deep nesting that block YAML would blow up to ~100 MB, data
// over the size limit, and too many or too long tags. Each must be
// refused before it is encoded, with exit 1 and no file behind. The
// process's peak memory says whether it was encoded first, where its run
// time would say more about the machine's load.
func TestSaveRefusesDataOverTheLimits(t *testing.T) {
	// A refusal may hold up to 64 MB more than the refusal of a short
	// tag (the arguments, parsing them: 13 MB for the deepest data, 46 MB
	// with the race detector); encoding the nested data as block YAML
	// first would take about 100 MB more.
	const maxExtraRSS = 64 << 20
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
	save := func(t *testing.T, args []string) (result, int64, bool) {
		args = append([]string{"save", "--type", "fact", "--title", "Limits"}, args...)
		cmd := exec.Command(filepath.Join(binDir, "git-contextfs"), append(args, "A fact.")...)
		cmd.Dir, cmd.Env = dir, testgit.Env()
		peakRSS := measured(t, cmd)
		r := runProcess(t, cmd)
		return r, peakRSS(), true
	}
	_, base, _ := save(t, []string{"--tag", "x y"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, rss, ok := save(t, c.args)
			if r.code != 1 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 naming %q", r.code, r.stderr, c.want)
			}
			t.Logf("peak memory %d MB, %d MB refusing a short tag", rss>>20, base>>20)
			if ok && rss > base+maxExtraRSS {
				t.Errorf("refusing held %d MB at its peak, want at most %d MB", rss>>20, (base+maxExtraRSS)>>20)
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
