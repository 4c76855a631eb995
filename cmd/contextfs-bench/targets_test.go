package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSummaryTableHasOneRowPerTargetWithItsVerdict(t *testing.T) {
	var rep report
	rep.add(target{Issue: 31, What: "`git-contextfs --version`", Goal: "≤ 10 ms wall", Wall: 5300 * time.Microsecond,
		CPU: 4 * time.Millisecond, Baseline: "`git --version` 1.98 ms", Met: true})
	rep.add(target{Issue: 34, What: "prompt hook | warm", Goal: "≤ 50 ms wall", Wall: 80 * time.Millisecond,
		Note: "CPU p50 20 ms is within it"})
	rep.add(target{Issue: 31, What: "init cost", Goal: "reported", Value: "525 µs", Reported: true})
	var b bytes.Buffer
	rep.writeSummary(&b)
	out := b.String()
	for _, want := range []string{
		"| #31 | `git-contextfs --version` | ≤ 10 ms wall | 5.30 ms | 4.00 ms | `git --version` 1.98 ms | met |",
		// A pipe in a cell is escaped, so the row keeps its columns.
		"| #34 | prompt hook \\| warm | ≤ 50 ms wall | 80 ms |  |  | **not met**: CPU p50 20 ms is within it |",
		"| #31 | init cost | reported | 525 µs |  |  | reported |",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("summary lacks the row\n%s\nin\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n| #"); n != 3 {
		t.Errorf("summary has %d target rows, want 3:\n%s", n, out)
	}
}

func TestFailedSectionIsARowOfTheSummary(t *testing.T) {
	var rep report
	rep.fail("save", errors.New("search --json: exit status 1:\nno warm answer"))
	var b bytes.Buffer
	rep.writeSummary(&b)
	want := "|  | the save section (its targets are missing) | runs to the end | failed |  |  | **not met**: search --json: exit status 1: no warm answer |\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks\n%s\nin\n%s", want, b.String())
	}
}

func TestSummaryWithoutTargetsSaysSo(t *testing.T) {
	var b bytes.Buffer
	(&report{}).writeSummary(&b)
	if !strings.Contains(b.String(), "No section of this run measures a target.") {
		t.Errorf("empty summary:\n%s", b.String())
	}
}

func TestWallTarget(t *testing.T) {
	const limit = 10 * time.Millisecond
	for _, c := range []struct {
		name      string
		wall, cpu time.Duration
		met       bool
		note      bool
	}{
		{"wall within the limit is met", 9 * time.Millisecond, 8 * time.Millisecond, true, false},
		{"wall at the limit is met", limit, 0, true, false},
		{"wall over with CPU within is not met and says why", 14 * time.Millisecond, 6 * time.Millisecond, false, true},
		{"wall and CPU over is not met", 14 * time.Millisecond, 12 * time.Millisecond, false, false},
		{"wall over without a CPU figure is not met", 14 * time.Millisecond, 0, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			met, note := wallTarget(c.wall, c.cpu, limit)
			if met != c.met || (note != "") != c.note {
				t.Errorf("wallTarget(%s, %s) = %v, %q", c.wall, c.cpu, met, note)
			}
		})
	}
}

func TestParseInittraceSumsALibrarysPackages(t *testing.T) {
	out := `init internal/bytealg @0.003 ms, 0.001 ms clock, 0 bytes, 0 allocs
init github.com/yuin/goldmark/util @53 ms, 0.48 ms clock, 139464 bytes, 437 allocs
init github.com/yuin/goldmark/parser @54 ms, 0.17 ms clock, 100000 bytes, 12 allocs
init github.com/yuin/goldmark-emoji @54 ms, 5 ms clock, 1 bytes, 1 allocs
init go.yaml.in/yaml/v3 @55 ms, 0.2 ms clock, 25664 bytes, 30 allocs
contextfs v0.0.0-dev
`
	run := parseInittrace(out)
	if len(run) != 5 {
		t.Fatalf("parsed %d init lines, want 5: %+v", len(run), run)
	}
	it := initTimes{run}
	// goldmark-emoji is another module, not a package of goldmark's.
	if got, want := it.p50("github.com/yuin/goldmark"), 650*time.Microsecond; got != want {
		t.Errorf("goldmark init = %s, want %s", got, want)
	}
	if got, want := it.bytesP50("github.com/yuin/goldmark"), int64(239464); got != want {
		t.Errorf("goldmark bytes = %d, want %d", got, want)
	}
	if got, want := it.p50(""), 5851*time.Microsecond; got != want {
		t.Errorf("all inits = %s, want %s", got, want)
	}
}

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		pkg, prefix string
		want        bool
	}{
		{"github.com/yuin/goldmark", "github.com/yuin/goldmark", true},
		{"github.com/yuin/goldmark/util", "github.com/yuin/goldmark", true},
		{"github.com/yuin/goldmark-emoji", "github.com/yuin/goldmark", false},
		{"github.com/go-git/go-billy/v5", "github.com/go-git/", true},
		{"github.com/spf13/cobra", "github.com/spf13/cobra/doc", false},
		{"os", "", true},
	} {
		if got := under(c.pkg, c.prefix); got != c.want {
			t.Errorf("under(%q, %q) = %v, want %v", c.pkg, c.prefix, got, c.want)
		}
	}
}

func TestColdSaveTargetIsJudgedByTheWallRatioWithACPUNote(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		save, search cpuTimes
		met          bool
		note         string
	}{
		{"a save at 1.1 times the search meets it", cpuTimes{wall: ms(110), cpu: ms(100)}, cpuTimes{wall: ms(100), cpu: ms(100)}, true, ""},
		{"a save at 1.3 times misses it", cpuTimes{wall: ms(130), cpu: ms(130)}, cpuTimes{wall: ms(100), cpu: ms(100)}, false, ""},
		{"a wall miss with the CPU within it says so", cpuTimes{wall: ms(130), cpu: ms(100)}, cpuTimes{wall: ms(100), cpu: ms(100)}, false, "CPU ratio 1.00×"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := coldSaveTarget(10000, tc.save, tc.search)
			if got.Met != tc.met || got.Issue != 37 {
				t.Errorf("met %v issue %d, want met %v issue 37: %+v", got.Met, got.Issue, tc.met, got)
			}
			if !strings.Contains(got.Note, tc.note) || (tc.note == "" && got.Note != "") {
				t.Errorf("note %q, want one containing %q", got.Note, tc.note)
			}
		})
	}
}

func TestWarmVerdictNamesEachMissedTarget(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		w    warmScale
		want string
	}{
		{"both within 25 ms", warmScale{WatcherCPU: 20 * ms, MCPWall: []time.Duration{10 * ms}, MCPCPU: 9 * ms}, "met"},
		{"the watcher over", warmScale{WatcherCPU: 30 * ms, MCPWall: []time.Duration{10 * ms}, MCPCPU: 9 * ms}, "**not met**: watcher CPU"},
		{"MCP waiting on a busy machine", warmScale{WatcherCPU: 10 * ms, MCPWall: []time.Duration{40 * ms}, MCPCPU: 9 * ms}, "**not met**: MCP wall p50 40 ms (its CPU per call, 9.00 ms, is within it"},
		{"MCP over on CPU too", warmScale{WatcherCPU: 10 * ms, MCPWall: []time.Duration{40 * ms}, MCPCPU: 30 * ms}, "**not met**: MCP wall p50 40 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := warmVerdict(&tc.w)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want it to start with %q", got, tc.want)
			}
			if strings.Contains(tc.name, "CPU too") && strings.Contains(got, "within") {
				t.Errorf("got %q: the CPU is not within the target", got)
			}
		})
	}
}
