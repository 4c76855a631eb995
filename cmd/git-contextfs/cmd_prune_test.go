package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCLIPruneLeavesInvalidFilesAlone: prune and prune --dry-run skip,
// and say so, files validate rejects (an unknown type, a short ID, a
// malformed expires:), keep their bytes, and prune the rest; a memory
// that expires today stays until tomorrow.
func TestCLIPruneLeavesInvalidFilesAlone(t *testing.T) {
	const dir0 = ".contextfs/memories/"
	today := time.Now().UTC().Format(time.DateOnly)
	tests := []struct {
		name    string
		files   map[string]string // ID → extra frontmatter
		removed []string          // IDs prune removes; the others keep their bytes
		want    []string          // lines prune prints, in order (prefixes)
	}{
		{"an unknown type and a short ID, expired", map[string]string{
			"x1": memDoc("x1", "fact", "expires: 2025-01-01\n"), "badtype1": memDoc("badtype1", "nosuchtype", "expires: 2025-01-01\n"),
			"gone": memDoc("gone", "fact", "expires: 2025-01-01\n")},
			[]string{"gone"}, []string{
				"skip: " + dir0 + `badtype1.md is invalid, so prune leaves it alone: line 3: type: unknown type "nosuchtype"`,
				"skip: " + dir0 + "x1.md is invalid, so prune leaves it alone: line 2: field: id: must be 4 to 64 characters",
				"did: remove gone (T gone): it expired at the end of 2025-01-01"}},
		{"malformed expires", map[string]string{
			"exp1": memDoc("exp1", "fact", "expires: not-a-date\n"), "exp2": memDoc("exp2", "fact", "expires: 2025-02-30\n"),
			"exp3": memDoc("exp3", "fact", "expires: null\n"), "gone": memDoc("gone", "fact", "expires: 2025-01-01\n")},
			[]string{"gone"}, []string{
				"skip: " + dir0 + "exp1.md is invalid, so prune leaves it alone: line 5: field: expires: must be a date like 2025-01-31",
				"skip: " + dir0 + "exp2.md is invalid, so prune leaves it alone: line 5: field: expires: must be a date like 2025-01-31",
				"did: remove gone (T gone): it expired at the end of 2025-01-01"}},
		{"expires today", map[string]string{"exp4": memDoc("exp4", "fact", "expires: "+today+"\n")},
			nil, []string{"nothing to prune"}},
		{"only invalid files", map[string]string{"x1": memDoc("x1", "fact", "expires: 2025-01-01\n")},
			nil, []string{"skip: " + dir0 + "x1.md is invalid", "nothing to prune"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hookedRepo(t)
			for id, content := range tt.files {
				writeFile(t, dir, dir0+id+".md", content)
			}
			check := func(out, verb string) {
				t.Helper()
				lines := strings.Split(strings.TrimSpace(out), "\n")
				bad := len(lines) != len(tt.want)
				for i := 0; !bad && i < len(lines); i++ {
					bad = !strings.HasPrefix(lines[i], strings.Replace(tt.want[i], "did: ", verb, 1))
				}
				if bad {
					t.Errorf("prune printed\n%s\nwant lines starting\n%s", out, strings.Join(tt.want, "\n"))
				}
			}
			check(ok(t, dir, "prune", "--dry-run"), "would: ")
			check(ok(t, dir, "prune"), "did: ")
			for id, content := range tt.files {
				raw, err := os.ReadFile(filepath.Join(dir, dir0+id+".md"))
				switch {
				case slices.Contains(tt.removed, id):
					if !os.IsNotExist(err) {
						t.Errorf("%s is still there (err %v)", id, err)
					}
				case err != nil || string(raw) != content:
					t.Errorf("%s changed (err %v):\n%s", id, err, raw)
				}
			}
		})
	}
}

// TestCLIPruneAdviceForSessionsClearsTheCap: the command prune proposes
// for session summaries beyond the cap, run as printed, brings them under
// it (merge would have kept the episodic type).
func TestCLIPruneAdviceForSessionsClearsTheCap(t *testing.T) {
	dir := hookedRepo(t)
	for _, topic := range []string{"parser", "indexer", "docs", "release", "bench"} {
		save(t, dir, "--type", "session-summary", "--dedup", "allow", "Session on the "+topic+": it went well.")
	}
	out := ok(t, dir, "prune", "--dry-run")
	_, advice, found := strings.Cut(out, "into a learned-pattern: git contextfs ")
	if !strings.HasPrefix(out, "propose: 2 session summaries beyond the cap of 3: condense ") || !found {
		t.Fatalf("prune --dry-run printed\n%s\nwant a proposal naming a command", out)
	}
	flags, text, found := strings.Cut(strings.TrimSpace(advice), ` "`)
	if !found {
		t.Fatalf("no quoted text in the advice %q", advice)
	}
	args := append(strings.Fields(flags), strings.TrimSuffix(text, `"`))
	if args[0] != "save" {
		t.Fatalf("the advice runs %q, want save", args)
	}
	ok(t, dir, args...)
	if out := ok(t, dir, "prune", "--dry-run"); strings.TrimSpace(out) != "nothing to prune" {
		t.Errorf("after following the advice, prune --dry-run printed\n%s", out)
	}
}
