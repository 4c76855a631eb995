package aging_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	contextfs "github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/aging"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/testgit"
)

func TestRulesOfDefaults(t *testing.T) {
	off := false
	tests := []struct {
		name string
		in   contextfs.HygieneConfig
		want aging.Rules
	}{
		{"nothing set", contextfs.HygieneConfig{}, aging.Rules{SupersedeProgress: true, SessionCap: 3}},
		{"progress supersede off", contextfs.HygieneConfig{SupersedeProgress: &off}, aging.Rules{SupersedeProgress: false, SessionCap: 3}},
		{"a cap of 5", contextfs.HygieneConfig{SessionCap: 5}, aging.Rules{SupersedeProgress: true, SessionCap: 5}},
		{"a negative cap is the default", contextfs.HygieneConfig{SessionCap: -1}, aging.Rules{SupersedeProgress: true, SessionCap: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := aging.RulesOf(tt.in); got != tt.want {
				t.Errorf("RulesOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPlanExpiry: a date in expires: lasts to the end of that day (UTC),
// a time expires at its instant, null means no expiry, and a malformed
// value makes prune leave the file alone and report it, not fail.
func TestPlanExpiry(t *testing.T) {
	ctx := context.Background()
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: testgit.Init(t), Embedder: embed.NewBuiltin()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keep, err := s.Save(ctx, contextfs.SaveRequest{Type: "fact", Body: "The staging database is read-only."})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(s.Repo.Abs(keep.Memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	rules := aging.Rules{SupersedeProgress: true, SessionCap: 3}
	june1 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		expires string
		now     time.Time
		want    string // the kind of the one step, or "" for none
	}{
		{"the day before the date", "2025-06-02", june1, ""},
		{"the date itself, at its start", "2025-06-01", june1, ""},
		{"the date itself, at its end", "2025-06-01", june1.Add(24*time.Hour - time.Second), ""},
		{"the day after the date", "2025-06-01", june1.Add(24 * time.Hour), "expired"},
		{"a date long past", "2025-05-31", june1, "expired"},
		{"a time not yet reached", "2025-06-01T12:00:00Z", june1.Add(11 * time.Hour), ""},
		{"a time reached", "2025-06-01T12:00:00Z", june1.Add(12 * time.Hour), "expired"},
		{"null", "null", june1, ""},
		{"empty", "", june1, ""},
		{"a malformed date", "someday!!", june1, "invalid"},
		{"February 30", "2025-02-30", june1, "invalid"},
		{"a list", "[2025-01-31]", june1, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := strings.Replace(string(orig), "\ncreated:", "\nexpires: "+tt.expires+"\ncreated:", 1)
			if err := os.WriteFile(s.Repo.Abs(keep.Memory.Path), []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			steps, err := aging.Plan(ctx, s, rules, tt.now)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			switch {
			case tt.want == "" && len(steps) != 0,
				tt.want != "" && (len(steps) != 1 || steps[0].Kind != tt.want || steps[0].Path != keep.Memory.Path):
				t.Fatalf("steps %+v, want one %q step for %s", steps, tt.want, keep.Memory.Path)
			}
			if tt.want == "invalid" && !strings.Contains(steps[0].Message, "expires: must be a date") {
				t.Errorf("the invalid step says %q, want the expires problem", steps[0].Message)
			}
		})
	}
}

// memFile is a memory file with the given type, extra frontmatter lines and
// creation time.
func memFile(id, typ, extra, created string) string {
	return "---\nid: " + id + "\ntype: " + typ + "\ntitle: T " + id + "\n" + extra +
		"created: " + created + "\nupdated: " + created + "\n---\nBody of " + id + ".\n"
}

// TestPruneLeavesInvalidFilesAlone: prune (Plan, then Apply) never
// deletes or rewrites a file validate rejects, expired or not, and still
// applies the rules to the valid memories around it.
func TestPruneLeavesInvalidFilesAlone(t *testing.T) {
	const day = "2024-05-01T10:00:00Z"
	expired := "expires: 2025-01-01\n"
	gone := memFile("gone0001", "fact", expired, day) // valid and expired: removed in every case
	tests := []struct {
		name    string
		files   map[string]string // ID → content, besides gone0001
		changed []string          // IDs whose file prune rewrites; the others keep their bytes
		kinds   []string          // the steps' kinds
	}{
		{"an unknown type", map[string]string{"badtype1": memFile("badtype1", "nosuchtype", expired, day)},
			nil, []string{"invalid", "expired"}},
		{"an ID too short", map[string]string{"x1": memFile("x1", "fact", expired, day)},
			nil, []string{"invalid", "expired"}},
		{"a malformed expires", map[string]string{"exp2": memFile("exp2", "fact", "expires: 2025-1-5\n", day)},
			nil, []string{"invalid", "expired"}},
		{"a dangling link", map[string]string{"dlink1": memFile("dlink1", "fact", "links:\n  - nowhere1\n"+expired, day)},
			nil, []string{"invalid", "expired"}},
		{"an ID used twice", map[string]string{
			"dup1": memFile("dupl0001", "fact", expired, day), "dup2": memFile("dupl0001", "fact", expired, day)},
			nil, []string{"invalid", "invalid", "expired"}},
		{"the latest progress invalid", map[string]string{
			"prog1": memFile("prog0001", "progress", "", "2024-05-01T10:00:00Z"),
			"prog2": memFile("prog0002", "progress", "", "2024-05-02T10:00:00Z"),
			"prog3": memFile("prog0003", "progress", "links:\n  - prog0003\n", "2024-05-03T10:00:00Z")},
			[]string{"prog2"}, []string{"invalid", "expired", "supersede-progress"}},
		{"the latest progress with an ID too short", map[string]string{
			"prog1": memFile("prog0001", "progress", "", "2024-05-01T10:00:00Z"),
			"prog2": memFile("prog0002", "progress", "", "2024-05-02T10:00:00Z"),
			"prog3": memFile("p3", "progress", "", "2024-05-03T10:00:00Z")},
			[]string{"prog2"}, []string{"invalid", "expired", "supersede-progress"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := testgit.Init(t)
			testgit.WriteFile(t, dir, ".contextfs/memories/gone.md", gone)
			for name, content := range tt.files {
				testgit.WriteFile(t, dir, ".contextfs/memories/"+name+".md", content)
			}
			s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			steps, err := aging.Plan(ctx, s, aging.Rules{SupersedeProgress: true, SessionCap: 3}, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			var kinds []string
			for _, st := range steps {
				kinds = append(kinds, st.Kind)
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("steps %+v\nkinds %q, want %q", steps, kinds, tt.kinds)
			}
			if err := aging.Apply(ctx, s, steps); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, ".contextfs/memories/gone.md")); !os.IsNotExist(err) {
				t.Errorf("the valid expired memory is still there (stat: %v)", err)
			}
			for name, content := range tt.files {
				raw, err := os.ReadFile(filepath.Join(dir, ".contextfs/memories/"+name+".md"))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if changed := string(raw) != content; changed != slices.Contains(tt.changed, name) {
					t.Errorf("%s changed: %v, want %v:\n%s", name, changed, !changed, raw)
				}
			}
		})
	}
}

// TestPlanAdviceForSessionsBeyondTheCap: the advice names a command that
// clears the cap (merge would keep the episodic type), in good grammar.
func TestPlanAdviceForSessionsBeyondTheCap(t *testing.T) {
	tests := []struct {
		sessions int
		want     string
	}{
		{3, ""},
		{4, `1 session summary beyond the cap of 3: condense sess0001 into a learned-pattern: git contextfs save --type learned-pattern --supersedes sess0001 "WHAT THEY TEACH"`},
		{5, `2 session summaries beyond the cap of 3: condense sess0002, sess0001 into a learned-pattern: git contextfs save --type learned-pattern --supersedes sess0002,sess0001 "WHAT THEY TEACH"`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.sessions), func(t *testing.T) {
			ctx := context.Background()
			dir := testgit.Init(t)
			for i := 1; i <= tt.sessions; i++ {
				id := fmt.Sprintf("sess%04d", i)
				testgit.WriteFile(t, dir, ".contextfs/memories/"+id+".md", memFile(id, "episodic", "", fmt.Sprintf("2024-05-%02dT10:00:00Z", i)))
			}
			s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			steps, err := aging.Plan(ctx, s, aging.Rules{SupersedeProgress: true, SessionCap: 3}, time.Now())
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			var got string
			if len(steps) > 0 {
				got = steps[0].Message
			}
			if len(steps) > 1 || got != tt.want || tt.want != "" && !steps[0].Proposal {
				t.Errorf("steps %+v\nwant one proposal: %s", steps, tt.want)
			}
		})
	}
}
