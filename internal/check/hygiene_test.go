package check

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/testgit"
)

// memPath is where these tests write memory id.
func memPath(id string) string { return ".contextfs/memories/" + id + ".md" }

// problemStrings are the problems as validate prints them.
func problemStrings(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// TestValidateReportsExpiresLinksAndSupersedesCycles: validate (every
// file) reports a malformed expires:, a link to the memory itself, a
// supersedes naming no memory and a supersedes cycle (of supersedes
// entries, links of rel supersedes, or both), each with its file and line;
// a null or empty expires: and a plain supersedes chain pass.
func TestValidateReportsExpiresLinksAndSupersedesCycles(t *testing.T) {
	testgit.Isolate(t)
	const expiresMust = "field: expires: must be a date like 2025-01-31 or an RFC 3339 time like 2025-01-31T18:00:00Z; got "
	const cycleMsg = ": every memory in it is superseded by another, so all of them are hidden from list and search; " +
		"remove one of its supersedes entries or links of rel supersedes (git contextfs unlink FROM TO --rel supersedes removes either)"
	tests := []struct {
		name  string
		extra map[string]string // ID → frontmatter lines after title (line 5 on)
		want  []string          // the problems, in order, as validate prints them
	}{
		{"a date", map[string]string{"exp1": "expires: 2025-01-31\n"}, nil},
		{"a quoted date", map[string]string{"exp1": "expires: \"2025-01-31\"\n"}, nil},
		{"an RFC 3339 time", map[string]string{"exp1": "expires: 2025-01-31T18:00:00Z\n"}, nil},
		{"null", map[string]string{"exp1": "expires: null\n"}, nil},
		{"~", map[string]string{"exp1": "expires: ~\n"}, nil},
		{"no value", map[string]string{"exp1": "expires:\n"}, nil},
		{"an empty string", map[string]string{"exp1": "expires: \"\"\n"}, nil},
		{"not a date", map[string]string{"exp1": "expires: not-a-date\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + `"not-a-date"`}},
		{"February 30", map[string]string{"exp1": "expires: 2025-02-30\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + `"2025-02-30"`}},
		{"no leading zeros", map[string]string{"exp1": "expires: 2025-1-5\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + `"2025-1-5"`}},
		{"no dashes", map[string]string{"exp1": "expires: 20250131\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + `"20250131"`}},
		{"a space before the time", map[string]string{"exp1": "expires: 2025-01-31 10:00:00\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + `"2025-01-31 10:00:00"`}},
		{"a list", map[string]string{"exp1": "expires: [2025-01-31]\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + "a list"}},
		{"a mapping", map[string]string{"exp1": "expires: {a: 1}\n"},
			[]string{memPath("exp1") + ":5: " + expiresMust + "a mapping"}},
		{"a link to itself", map[string]string{"self1": "links:\n  - self1x\n  - self1\n", "self1x": ""},
			[]string{memPath("self1") + ":7: field: links[1]: must not be the memory's own ID"}},
		{"a supersedes naming a deleted version is history, not a problem", map[string]string{"dsup": "supersedes:\n  - nosuchmem\n"}, nil},
		{"a chain is no cycle", map[string]string{"chna": "supersedes:\n  - chnb\n", "chnb": "supersedes:\n  - chnc\n", "chnc": ""}, nil},
		{"a cycle of two", map[string]string{"cyca": "supersedes:\n  - cycb\n", "cycb": "supersedes:\n  - cyca\n"},
			[]string{
				memPath("cyca") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cyca → cycb → cyca" + cycleMsg,
				memPath("cycb") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycb → cyca → cycb" + cycleMsg,
			}},
		{"a cycle of three, and a memory outside it", map[string]string{
			"cyca": "supersedes:\n  - cycb\n", "cycb": "supersedes:\n  - cycc\n", "cycc": "supersedes:\n  - outs\n  - cyca\n",
			"outs": "", "tail": "supersedes:\n  - cyca\n"},
			[]string{
				memPath("cyca") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cyca → cycb → cycc → cyca" + cycleMsg,
				memPath("cycb") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycb → cycc → cyca → cycb" + cycleMsg,
				memPath("cycc") + ":7: cycle: supersedes[1]: makes a supersedes cycle, cycc → cyca → cycb → cycc" + cycleMsg,
			}},
		{"two cycles sharing a memory", map[string]string{
			"cyca": "supersedes:\n  - cycb\n", "cycb": "supersedes:\n  - cyca\n  - cycc\n", "cycc": "supersedes:\n  - cycb\n"},
			[]string{
				memPath("cyca") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cyca → cycb → cyca" + cycleMsg + " (the memories superseding one another: cyca, cycb, cycc)",
				memPath("cycb") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycb → cyca → cycb" + cycleMsg + " (the memories superseding one another: cyca, cycb, cycc)",
				memPath("cycb") + ":7: cycle: supersedes[1]: makes a supersedes cycle, cycb → cycc → cycb" + cycleMsg + " (the memories superseding one another: cyca, cycb, cycc)",
				memPath("cycc") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycc → cycb → cycc" + cycleMsg + " (the memories superseding one another: cyca, cycb, cycc)",
			}},
		// A link of rel supersedes is the same edge as a supersedes entry.
		{"a cycle of links of rel supersedes", map[string]string{
			"cyca": "links:\n  - {id: cycb, rel: supersedes}\n", "cycb": "links:\n  - {id: cyca, rel: supersedes}\n"},
			[]string{
				memPath("cyca") + ":6: cycle: links[0]: makes a supersedes cycle, cyca → cycb → cyca" + cycleMsg,
				memPath("cycb") + ":6: cycle: links[0]: makes a supersedes cycle, cycb → cyca → cycb" + cycleMsg,
			}},
		{"a cycle of an entry and a link, reported on the link's own line", map[string]string{
			"cyca": "supersedes:\n  - cycb\n", "cycb": "links:\n  - cyca\n  - {id: cyca, rel: supersedes}\n"},
			[]string{
				memPath("cyca") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cyca → cycb → cyca" + cycleMsg,
				memPath("cycb") + ":7: cycle: links[1]: makes a supersedes cycle, cycb → cyca → cycb" + cycleMsg,
			}},
		{"links of other relations both ways are no cycle", map[string]string{
			"lnka": "links:\n  - {id: lnkb, rel: depends_on}\n", "lnkb": "links:\n  - lnka\n  - {id: lnka, rel: contradicts}\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			for id, extra := range tt.extra {
				testgit.WriteFile(t, dir, memPath(id), testgit.Memory(id, extra, "Body of "+id+".\n"))
			}
			repo, err := gitstore.Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			probs, n, err := Validate(repo, nil)
			if err != nil || n != len(tt.extra) {
				t.Fatalf("Validate: %d files, err %v", n, err)
			}
			if got := problemStrings(probs); !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// TestCyclesThroughMemoriesNotChecked: a file that closes a supersedes
// cycle with memories already committed is refused by the pre-commit
// check (which checks the staged file only) and by validate naming the
// file, not only when every member is checked; the committed memories'
// links of rel supersedes are followed as their supersedes entries are.
func TestCyclesThroughMemoriesNotChecked(t *testing.T) {
	testgit.Isolate(t)
	tests := []struct {
		name      string
		committed map[string]string // ID → frontmatter lines
		changed   string            // the ID staged and named
		extra     string
		want      string
	}{
		{"a cycle of two", map[string]string{"cyca": "supersedes:\n  - cycb\n", "cycb": ""},
			"cycb", "supersedes:\n  - cyca\n",
			memPath("cycb") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycb → cyca → cycb"},
		{"a cycle of three", map[string]string{"cyca": "supersedes:\n  - cycb\n", "cycb": "supersedes:\n  - cycc\n", "cycc": ""},
			"cycc", "supersedes:\n  - cyca\n",
			memPath("cycc") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycc → cyca → cycb → cycc"},
		{"a chain", map[string]string{"cyca": "supersedes:\n  - cycb\n", "cycb": "", "cycc": ""},
			"cycc", "supersedes:\n  - cyca\n", ""},
		{"a link of rel supersedes closing a cycle of links", map[string]string{"cyca": "links:\n  - {id: cycb, rel: supersedes}\n", "cycb": ""},
			"cycb", "links:\n  - {id: cyca, rel: supersedes}\n",
			memPath("cycb") + ":6: cycle: links[0]: makes a supersedes cycle, cycb → cyca → cycb"},
		{"an entry closing a cycle through a committed link", map[string]string{"cyca": "links:\n  - {id: cycb, rel: supersedes}\n", "cycb": "supersedes:\n  - cycc\n", "cycc": ""},
			"cycc", "supersedes:\n  - cyca\n",
			memPath("cycc") + ":6: cycle: supersedes[0]: makes a supersedes cycle, cycc → cyca → cycb → cycc"},
		{"a related link back is no cycle", map[string]string{"cyca": "links:\n  - {id: cycb, rel: supersedes}\n", "cycb": ""},
			"cycb", "links:\n  - cyca\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testgit.Init(t)
			for id, extra := range tt.committed {
				testgit.WriteFile(t, dir, memPath(id), testgit.Memory(id, extra, "Body of "+id+".\n"))
			}
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "commit", "-q", "-m", "base")
			testgit.WriteFile(t, dir, memPath(tt.changed), testgit.Memory(tt.changed, tt.extra, "Body of "+tt.changed+".\n"))
			testgit.Run(t, dir, "add", "-A")
			repo, err := gitstore.Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			named, _, err := Validate(repo, []string{filepath.Join(dir, filepath.FromSlash(memPath(tt.changed)))})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				by    string
				probs []Problem
			}{{"the pre-commit check", checkStaged(t, dir).Problems}, {"validate FILE", named}} {
				got := problemStrings(c.probs)
				if tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tt.want)) {
					t.Errorf("%s: problems %q, want one starting %q", c.by, got, tt.want)
				}
			}
		})
	}
}
